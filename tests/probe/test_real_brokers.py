"""probe against a real ActiveMQ Classic broker (Debian package ``activemq``): its OpenWire port
and its MQTT 3.1.1-only port are ready, and serve's target monitor gives the same verdicts."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from artemis_routing_cli.config import load
from artemis_routing_cli.probe.model import Check, Credentials, Endpoint, ProbeOptions
from artemis_routing_cli.probe.render import render_text
from artemis_routing_cli.probe.runner import check_endpoint, probe
from tests.conftest import broker_xml
from tests.real_clients import ActiveMQ, start_activemq

pytestmark = pytest.mark.network


@pytest.fixture(scope="module")
def activemq(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ActiveMQ]:
    broker = start_activemq(tmp_path_factory.mktemp("activemq"))
    yield broker
    broker.stop()


def pool_xml(broker: ActiveMQ) -> str:
    return broker_xml(f"""
      <connectors>
        <connector name="openwire">tcp://127.0.0.1:{broker.openwire_port}</connector>
        <connector name="mqtt">tcp://127.0.0.1:{broker.mqtt_port}</connector>
        <connector name="mqtt-named">tcp://127.0.0.1:{broker.mqtt_port}?protocols=MQTT</connector>
      </connectors>
      <connection-routers><connection-router name="r">
        <key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>
        <pool><check-period>200</check-period>
          <static-connectors><connector-ref>openwire</connector-ref><connector-ref>mqtt</connector-ref>
            <connector-ref>mqtt-named</connector-ref></static-connectors>
        </pool>
      </connection-router></connection-routers>""")


def check(port: int, protocol: str = "auto", protocols: tuple[str, ...] = ()) -> Check:
    endpoint = Endpoint("t", "127.0.0.1", port, protocols=protocols)
    return asyncio.run(check_endpoint(endpoint, Credentials(), ProbeOptions(timeout=5.0, protocol=protocol)))


def test_openwire_handshake_with_activemq(activemq):
    result = check(activemq.openwire_port, "openwire")
    assert result.handshake is not None and result.handshake.ok
    assert result.handshake.detail.startswith("WireFormatInfo version ")


def test_auto_finds_openwire_on_activemq(activemq):
    result = check(activemq.openwire_port)
    assert result.handshake is not None and result.handshake.ok
    assert result.handshake.protocol == "openwire"


def test_mqtt_handshake_falls_back_to_3_1_1_on_connack_0x01(activemq):
    result = check(activemq.mqtt_port, "mqtt")
    assert result.handshake is not None and result.handshake.ok
    assert result.handshake.detail == "CONNACK success (MQTT 3.1.1)"


def test_auto_goes_on_past_the_silence_of_core_and_amqp_to_mqtt(activemq):
    result = check(activemq.mqtt_port)
    assert result.handshake is not None and result.handshake.ok
    assert result.handshake.protocol == "mqtt"


def test_protocols_of_the_connector_url_are_tried_first():
    assert Endpoint("t", "h", 1, protocols=("mqtt", "openwire")).auto_order() == ("mqtt", "openwire", "core", "amqp")
    assert Endpoint("t", "h", 1).auto_order() == ("core", "amqp", "mqtt", "openwire")


def test_ms_is_the_time_to_the_verdict_and_json_has_the_handshake_time(activemq, tmp_path):
    path = tmp_path / "broker.xml"
    path.write_text(pool_xml(activemq), encoding="utf-8")
    report = probe(load(str(path)), ProbeOptions(timeout=5.0))
    [pool] = report.pools
    for target in pool.targets:
        data = target.to_json()
        c = target.check
        assert c is not None and c.verdict_ms is not None and c.handshake_ms is not None and c.latency_ms is not None
        assert data["verdict_ms"] == round(c.verdict_ms, 1) and data["handshake_ms"] == round(c.handshake_ms, 1)
        assert c.verdict_ms >= c.handshake_ms  # the verdict waits for the handshake
    from rich.console import Console
    console = Console(width=200, record=True)
    render_text(report, console)
    text = console.export_text()
    for target in pool.targets:
        assert target.check is not None and f"{target.check.verdict_ms:.1f}" in text


def test_probe_and_serve_give_every_target_the_same_verdict(activemq, tmp_path):
    from artemis_routing_cli.serve.server import ServeOptions
    from tests.serve.conftest import start_server

    path = tmp_path / "broker.xml"
    path.write_text(pool_xml(activemq), encoding="utf-8")
    report = probe(load(str(path)), ProbeOptions())
    probed = {t.endpoint.name: t.ready for t in report.pools[0].targets}
    assert probed == {"openwire": True, "mqtt": True, "mqtt-named": True}
    running = start_server(Path(path), ServeOptions(listen=["127.0.0.1:0"], routers=["r"], monitor=True))
    try:
        served = {}
        for name in probed:
            record = running.wait_for(lambda r, n=name: r["event"] == "readiness" and r["target"] == n, name)
            served[name] = record["ready"]
    finally:
        running.stop()
    assert served == probed
