"""Persisted router caches across restarts, and per-connection limits (malformed, oversize,
slow and surplus clients lose only their own connection)."""

from __future__ import annotations

import socket
import sqlite3
import struct

import pytest

from artemis_routing_cli.protocols.mqtt import MqttClient
from artemis_routing_cli.routing.targets import state_from_options

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops, recv_until_closed

pytestmark = pytest.mark.network

STICKY = """
  <connectors>
    <connector name="target1">tcp://10.0.0.1:61617</connector>
    <connector name="target2">tcp://10.0.0.2:61618</connector>
  </connectors>
  <connection-routers>
    <connection-router name="sticky">
      <key-type>CLIENT_ID</key-type>
      <cache><persisted>true</persisted><timeout>0</timeout></cache>
      <policy name="ROUND_ROBIN"/>
      <pool><static-connectors><connector-ref>target1</connector-ref><connector-ref>target2</connector-ref>
      </static-connectors></pool>
    </connection-router>
  </connection-routers>
"""


def mqtt_reference(port: int, client_id: str) -> str | None:
    client = MqttClient()
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        sock.sendall(client.connect(client_id))
        [connack] = client.receive_data(recv_until_closed(sock))
    return connack.server_reference


@on_both_loops
def test_persisted_cache_is_committed_before_the_answer_and_survives_a_restart(serve, tmp_path):
    data_dir = tmp_path / "data"
    state = state_from_options(NODE_IDS)
    first = serve(STICKY, routers=["sticky"], data_dir=str(data_dir), state=state, seed=0)
    assert mqtt_reference(first.port(), "sticky-client") == "10.0.0.1:61617"  # round robin starts at 0
    # committed before the client got its CONNACK: another reader sees it while the server runs
    with sqlite3.connect(data_dir / "router-caches.sqlite") as db:
        rows = db.execute("SELECT router, key, node_id FROM cache_entry").fetchall()
    assert rows == [("sticky", "sticky-client", "11111111-1111-1111-1111-111111111111")]
    first.stop()

    second = serve(STICKY, routers=["sticky"], data_dir=str(data_dir), state=state, seed=1)
    assert mqtt_reference(second.port(), "newcomer") == "10.0.0.2:61618"  # seed 1: position 1
    assert mqtt_reference(second.port(), "sticky-client") == "10.0.0.1:61617"  # from the reloaded cache
    assert [r["decided_by"] for r in second.routes()] == ["policy", "cache"]


@on_both_loops
def test_malformed_frame_closes_only_that_connection(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    client = MqttClient()
    connect = client.connect("FOO1")
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as good:
        good.sendall(connect[:5])  # a slow but honest client, half-way through its CONNECT
        with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as bad:
            # MQTT CONNECT whose protocol name says MQTT but level 9 does not exist
            body = struct.pack(">H", 4) + b"MQTT" + b"\x09\x02\x00\x3c" + struct.pack(">H", 1) + b"x"
            bad.sendall(b"\x10" + bytes((len(body),)) + body)
            assert recv_until_closed(bad) == b""
        good.sendall(connect[5:])
        [connack] = client.receive_data(recv_until_closed(good))
    assert connack.server_reference == "10.0.0.2:61618"
    [closed] = [r for r in running.records if r["event"] == "closed"]
    assert closed["reason"] == "malformed"


@on_both_loops
def test_oversize_handshake_is_closed(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], max_frame_size=256)
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(MqttClient().connect("x" * 1000))
        assert recv_until_closed(sock) == b""
    assert [r["reason"] for r in running.records if r["event"] == "closed"] == ["oversize"]


@on_both_loops
def test_silent_client_is_closed_at_the_handshake_timeout(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], handshake_timeout=0.2)
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(b"\x10")
        assert recv_until_closed(sock) == b""
    assert [r["reason"] for r in running.records if r["event"] == "closed"] == ["timeout"]


def test_protocol_not_in_the_acceptor_list_is_closed(serve, tmp_path):
    from tests.peers import free_port

    port = free_port()
    core = ROUTER_CORE.replace("<connection-routers>", f"""<acceptors>
        <acceptor name="amqp-only">tcp://0.0.0.0:{port}?router=by-client;protocols=AMQP</acceptor>
      </acceptors><connection-routers>""", 1)
    running = serve(core, listen=[])
    assert running.server.addresses["amqp-only"] == ("127.0.0.1", port)
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        sock.sendall(MqttClient().connect("FOO1"))
        assert recv_until_closed(sock) == b""
    [closed] = [r for r in running.records if r["event"] == "closed"]
    assert closed["reason"] == "protocol_not_allowed" and closed["protocol"] == "MQTT"


@on_both_loops
def test_connections_over_the_limit_are_closed(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], max_connections=1, state=state_from_options(NODE_IDS))
    client = MqttClient()
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as first:
        first.sendall(b"\x10")  # holds the only slot
        with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as second:
            assert recv_until_closed(second) == b""
        first.sendall(client.connect("FOO1")[1:])
        [connack] = client.receive_data(recv_until_closed(first))
    assert connack.server_reference == "10.0.0.2:61618"
