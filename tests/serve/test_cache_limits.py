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


def test_protocol_not_in_the_acceptor_list_is_left_open_unanswered(serve, tmp_path):
    """ProtocolHandler asks only the acceptor's managers: MQTT bytes on protocols=AMQP match none, fall
    back to CORE, which the acceptor lacks: the broker logs it and leaves the socket open, silent."""
    from tests.peers import free_port

    port = free_port()
    core = ROUTER_CORE.replace("<connection-routers>", f"""<acceptors>
        <acceptor name="amqp-only">tcp://0.0.0.0:{port}?router=by-client;protocols=AMQP</acceptor>
      </acceptors><connection-routers>""", 1)
    running = serve(core, listen=[])
    assert running.server.addresses["amqp-only"] == ("127.0.0.1", port)
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        sock.sendall(MqttClient().connect("FOO1"))
        record = running.wait_for(lambda r: r["event"] == "unserved", "the unserved connection")
        sock.sendall(b"more bytes are read and dropped")
        sock.shutdown(socket.SHUT_WR)  # the client gives up: only then does the connection end
        assert recv_until_closed(sock) == b""
    assert record["reason"] == "protocol_not_allowed" and record["protocol"] == "CORE"
    assert not [r for r in running.records if r["event"] == "closed"]


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


# --- expiry while serving and at stop (Caffeine's maintenance, LocalCache.stop -> cleanUp) ---------
class Clock:
    """A hand-moved millisecond clock for the engine's cache."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


class RecordingStore:
    def __init__(self) -> None:
        self.removed: list[str] = []

    def put(self, key: str, node_id: str) -> None:
        pass

    def remove(self, key: str) -> None:
        self.removed.append(key)


def swept_cache(timeout_ms: int = 1000):
    from artemis_routing_cli.routing.cache import RouterCache

    clock, store = Clock(), RecordingStore()
    return RouterCache(timeout_ms, clock, store), clock, store


def test_the_sweep_drops_what_expired_after_its_last_access_and_deletes_it_from_the_store():
    import asyncio

    cache, clock, store = swept_cache()
    cache.put("a", "n1")
    cache.put("b", "n2")
    clock.now += 600
    assert cache.get("b") == "n2"  # b's access time moves on
    clock.now += 400  # a: 1000 ms since its last access (expired, as Caffeine's >=); b: 400
    assert cache.sweep() == 1 and store.removed == ["a"] and cache.snapshot() == {"b": "n2"}
    clock.now += 1000
    from artemis_routing_cli.serve.sweeper import sweep_in_steps

    assert asyncio.run(sweep_in_steps(cache, chunk=1)) == 1 and store.removed == ["a", "b"] and len(cache) == 0


def test_a_cache_without_timeout_is_never_swept():
    cache, clock, store = swept_cache(timeout_ms=0)
    cache.put("a", "n1")
    clock.now += 10**9
    assert cache.sweep() == 0 and len(cache) == 1


def test_sweep_period_follows_the_timeout_within_bounds():
    from artemis_routing_cli.serve.sweeper import sweep_period

    assert (sweep_period(200), sweep_period(30_000), sweep_period(3_600_000)) == (1.0, 30.0, 60.0)


def test_an_entry_expired_while_serving_is_deleted_from_disk_when_serve_stops(serve, tmp_path):
    data_dir = tmp_path / "data"
    core = STICKY.replace("<timeout>0</timeout>", "<timeout>60000</timeout>")
    running = serve(core, routers=["sticky"], data_dir=str(data_dir), state=state_from_options(NODE_IDS), seed=0)
    assert len(running.server._sweepers) == 1  # the periodic sweep runs while serving
    assert mqtt_reference(running.port(), "gone-client") == "10.0.0.1:61617"
    assert mqtt_reference(running.port(), "kept-client") == "10.0.0.2:61618"
    cache = running.server.services["sticky"].router.cache
    clock = Clock()

    def move_on() -> None:
        clock.now = cache.clock() + 30_000
        cache.clock = clock
        assert cache.get("kept-client") is not None  # used half a minute on ...
        clock.now += 30_000  # ... and a minute on, gone-client has not been used for its whole timeout

    running.call(move_on)
    running.stop()  # LocalCache.stop: cleanUp with the removal listener still deleting
    with sqlite3.connect(data_dir / "router-caches.sqlite") as db:
        rows = db.execute("SELECT key FROM cache_entry").fetchall()
    assert rows == [("kept-client",)]
