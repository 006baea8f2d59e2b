"""Pool monitoring: targets checked by connecting to them, readiness logged, quorum waited for."""

from __future__ import annotations

import socket

import pytest

from artemis_routing_cli.protocols.mqtt import MqttClient
from tests.peers import free_port, start_mosquitto
from tests.real_clients import need

from .conftest import HANG_GUARD, recv_until_closed

pytestmark = pytest.mark.network


def pool_xml(up_port: int, down_port: int, quorum_size: int, quorum_timeout: int) -> str:
    return f"""
      <connectors>
        <connector name="up">tcp://127.0.0.1:{up_port}</connector>
        <connector name="down">tcp://127.0.0.1:{down_port}</connector>
      </connectors>
      <connection-routers><connection-router name="r">
        <key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>
        <pool><check-period>100</check-period><quorum-size>{quorum_size}</quorum-size>
          <quorum-timeout>{quorum_timeout}</quorum-timeout>
          <static-connectors><connector-ref>down</connector-ref><connector-ref>up</connector-ref></static-connectors>
        </pool>
      </connection-router></connection-routers>"""


def reason_and_reference(port: int) -> tuple[int, str | None]:
    client = MqttClient()
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        sock.sendall(client.connect("c1"))
        [connack] = client.receive_data(recv_until_closed(sock))
    return connack.reason_code, connack.server_reference


@pytest.fixture
def live_target(tmp_path):
    """A real broker that answers a handshake: mosquitto (MQTT)."""
    broker = start_mosquitto(tmp_path)
    need(broker is not None, "mosquitto")
    assert broker is not None
    yield broker.port
    broker.stop()


@pytest.fixture
def silent_port():
    """A port that accepts connections and never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def test_first_client_waits_for_the_quorum_and_goes_to_the_ready_target(serve, live_target):
    running = serve(pool_xml(live_target, free_port(), 1, 10_000), routers=["r"], monitor=True)
    # targets start not ready; the client waits (quorum-timeout) until the first check passes
    assert reason_and_reference(running.port()) == (0x9C, f"127.0.0.1:{live_target}")
    readiness = {r["target"]: r["ready"] for r in running.records if r["event"] == "readiness"}
    assert readiness["up"] is True


def test_a_port_that_accepts_and_never_answers_is_not_ready_as_for_probe(serve, silent_port):
    """One readiness check for probe and serve: TCP alone does not make a target ready."""
    running = serve(pool_xml(silent_port, free_port(), 1, 0), routers=["r"], monitor=True)
    record = running.wait_for(lambda r: r["event"] == "readiness" and r["target"] == "up", "readiness of up")
    assert record["ready"] is False
    assert "no protocol answered" in record["reason"]
    assert reason_and_reference(running.port()) == (0x88, None)


def test_unmet_quorum_refuses_unavailable(serve, live_target):
    running = serve(pool_xml(live_target, free_port(), 2, 0), routers=["r"], monitor=True)
    assert reason_and_reference(running.port()) == (0x88, None)
