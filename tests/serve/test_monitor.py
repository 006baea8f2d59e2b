"""Pool monitoring: targets checked by connecting to them, readiness logged, quorum waited for."""

from __future__ import annotations

import socket

import pytest

from artemis_routing_cli.protocols.mqtt import MqttClient
from tests.peers import free_port

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
def live_target():
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


def test_unmet_quorum_refuses_unavailable(serve, live_target):
    running = serve(pool_xml(live_target, free_port(), 2, 0), routers=["r"], monitor=True)
    assert reason_and_reference(running.port()) == (0x88, None)
