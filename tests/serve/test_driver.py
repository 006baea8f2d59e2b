"""The listener's connection driver (``serve/driver.py``): sessions run from the socket's callbacks,
resumed by each read, by the end of the stream, by futures they wait on, and stopped by the
deadline while they wait. Real sockets on 127.0.0.1, real server."""

from __future__ import annotations

import socket

import pytest

from artemis_routing_cli.probe.readiness import Readiness
from artemis_routing_cli.protocols.mqtt import Connack, MqttClient, parse_connack
from artemis_routing_cli.routing.targets import state_from_options
from artemis_routing_cli.serve.monitor import TargetCheck

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops, recv_until_closed

pytestmark = pytest.mark.network


def connack_of(data: bytes) -> Connack:
    return parse_connack(data)


@on_both_loops
def test_a_connect_sent_one_byte_at_a_time_is_answered(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    hello = MqttClient().connect("FOO1")
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for i in range(len(hello)):
            sock.sendall(hello[i:i + 1])
        answer = recv_until_closed(sock)
    assert connack_of(answer).server_reference == "10.0.0.2:61618"


@on_both_loops
def test_a_client_that_half_closes_after_its_connect_still_gets_the_answer(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(MqttClient().connect("FOO1"))
        sock.shutdown(socket.SHUT_WR)
        answer = recv_until_closed(sock)
    assert connack_of(answer).server_reference == "10.0.0.2:61618"


@on_both_loops
def test_a_client_that_closes_before_its_connect_is_complete_leaves_no_open_connection(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    hello = MqttClient().connect("FOO1")
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(hello[:5])
        sock.shutdown(socket.SHUT_WR)
        assert recv_until_closed(sock) == b""
    # the server closed its side when the stream ended: nothing was routed or counted as open
    assert running.routes() == []
    assert running.call(lambda: running.server.metrics.get("arouter_connections_open", listener="listen-1")) == 0


@on_both_loops
def test_open_connections_gauge_follows_the_sockets(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    client = MqttClient()

    def open_now() -> float:
        return running.call(lambda: running.server.metrics.get("arouter_connections_open", listener="listen-1"))

    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as first:
        first.sendall(b"\x10")  # half a CONNECT: the server keeps it open
        with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as second:
            second.sendall(MqttClient().connect("BAR2"))
            assert connack_of(recv_until_closed(second)).server_reference is not None
        # the first was accepted before the second; the second is closed once its answer is out
        assert open_now() == 1
        first.sendall(client.connect("FOO1")[1:])
        assert client.receive_data(recv_until_closed(first))[0].server_reference == "10.0.0.2:61618"
    assert open_now() == 0
    assert "arouter_connections_open{listener=\"listen-1\"} 0" in running.call(running.server.metrics.render)


QUORUM_CORE = """
  <connectors>
    <connector name="target1">tcp://10.0.0.1:61617</connector>
    <connector name="target2">tcp://10.0.0.2:61618</connector>
  </connectors>
  <connection-routers>
    <connection-router name="by-client">
      <key-type>CLIENT_ID</key-type>
      <policy name="CONSISTENT_HASH"/>
      <pool><quorum-size>2</quorum-size><quorum-timeout>60000</quorum-timeout>
        <static-connectors><connector-ref>target1</connector-ref><connector-ref>target2</connector-ref>
        </static-connectors></pool>
    </connection-router>
  </connection-routers>
"""


async def always_down(_router, _target) -> TargetCheck:  # noqa: ANN001
    return TargetCheck(Readiness(False, "down (test checker)", False))


@on_both_loops
def test_the_deadline_stops_a_session_waiting_for_the_pool_quorum(serve):
    """The client waits in getTargets (quorum-timeout 60 s); the 0.3 s handshake timeout cancels
    the wait: the connection is closed with a timeout, and no route is logged."""
    running = serve(QUORUM_CORE, routers=["by-client"], state=state_from_options(NODE_IDS), monitor=True,
                    checker=always_down, handshake_timeout=0.3)
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(MqttClient().connect("FOO1"))
        assert recv_until_closed(sock) == b""
    closed = running.wait_for(lambda r: r["event"] == "closed", "timeout drop")
    assert closed["reason"] == "timeout" and closed["protocol"] == "MQTT"
    assert running.routes() == []
