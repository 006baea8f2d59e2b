"""A plain listener's socket before it needs a session (``serve/fresh.py``): whatever comes first - a
hello the fast path declines, the end of the stream, silence until the handshake timeout - is handed to
the session as it arrives, under the deadline the socket got when it was accepted (never a new one).
Real sockets on 127.0.0.1, real server."""

from __future__ import annotations

import socket

import pytest

from artemis_routing_cli.protocols.mqtt import MqttClient, parse_connack
from artemis_routing_cli.routing.targets import state_from_options

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops, recv_until_closed

pytestmark = pytest.mark.network


def listener_of(running):
    return running.server._listeners["listen-1"]


def handshake_queue(running) -> list[tuple[str, str, float]]:
    """(class name, state name, due time) of each connection in the listener's handshake queue."""
    def read() -> list[tuple[str, str, float]]:
        names = {0: "fresh", 1: "draining", 2: "handed", 3: "closed"}
        return [(type(conn).__name__, names.get(getattr(conn, "_state", -1), "?"), due)
                for conn, due in listener_of(running).handshake_deadlines._due.items()]
    return running.call(read)


def until(running, check, what: str) -> None:
    """Ask the server's loop until ``check()`` holds (a bounded number of round trips, no sleeping)."""
    for _ in range(100_000):
        if running.call(check):
            return
    raise AssertionError(what)


@on_both_loops
def test_a_hello_handed_to_the_session_keeps_the_deadline_of_its_socket(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    client = MqttClient()
    hello = client.connect("FOO1")
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        until(running, lambda: len(listener_of(running).handshake_deadlines) == 1, "the socket's deadline")
        [(kind, state, due)] = handshake_queue(running)
        assert (kind, state) == ("FreshConnection", "fresh")
        sock.sendall(hello[:5])  # not a whole hello: the session reads on
        until(running, lambda: sum(c.received for c in listener_of(running).handshake_deadlines._due) == 5,
              "the server reading the first bytes")
        assert handshake_queue(running) == [("FreshConnection", "handed", due)]  # the same deadline
        sock.sendall(hello[5:])
        assert client.receive_data(recv_until_closed(sock))[0].server_reference == "10.0.0.2:61618"
    assert handshake_queue(running) == []
    until(running, lambda: running.server.metrics.get("arouter_connections_open", listener="listen-1") == 0,
          "the socket closed")


@on_both_loops
def test_a_socket_silent_from_the_start_is_closed_by_the_session_at_the_handshake_timeout(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], handshake_timeout=2.0)
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        until(running, lambda: len(listener_of(running).handshake_deadlines) == 1, "the socket's deadline")
        assert [(kind, state) for kind, state, _due in handshake_queue(running)] == [("FreshConnection", "fresh")]
        assert recv_until_closed(sock) == b""  # closed at the deadline, by the session it was handed to
    assert [r["reason"] for r in running.records if r["event"] == "closed"] == ["timeout"]
    assert not [r for r in running.records if r["event"] == "internal"]
    until(running, lambda: running.server.metrics.get("arouter_connections_open", listener="listen-1") == 0,
          "the socket closed")


@on_both_loops
def test_a_socket_closed_before_its_first_byte_ends_as_the_session_ends_it(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        until(running, lambda: len(listener_of(running).handshake_deadlines) == 1, "the socket's deadline")
        assert [(kind, state) for kind, state, _due in handshake_queue(running)] == [("FreshConnection", "fresh")]
        sock.shutdown(socket.SHUT_WR)
        assert recv_until_closed(sock) == b""
    until(running, lambda: running.server.metrics.get("arouter_connections_open", listener="listen-1") == 0,
          "the socket closed")
    assert running.routes() == []
    assert not [r for r in running.records if r["event"] == "internal"]
    assert handshake_queue(running) == []


@on_both_loops
def test_with_the_fast_path_off_every_socket_goes_to_the_session_at_once(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))

    def off() -> None:
        listener_of(running).fast = False
    running.call(off)
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        until(running, lambda: len(listener_of(running).handshake_deadlines) == 1, "the socket's deadline")
        assert [state for _kind, state, _due in handshake_queue(running)] == ["handed"]
        sock.sendall(MqttClient().connect("FOO1"))
        assert parse_connack(recv_until_closed(sock)).server_reference == "10.0.0.2:61618"
    assert running.call(lambda: listener_of(running).answered_at_once) == 0
    until(running, lambda: running.server.metrics.get("arouter_connections_open", listener="listen-1") == 0,
          "the socket closed")


@on_both_loops
def test_a_socket_reset_before_its_first_byte_is_uncounted_without_an_error(serve):
    import struct

    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    sock = socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD)
    until(running, lambda: len(listener_of(running).handshake_deadlines) == 1, "the socket's deadline")
    assert [(kind, state) for kind, state, _due in handshake_queue(running)] == [("FreshConnection", "fresh")]
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()  # a reset: the server's socket is lost without an end of stream
    until(running, lambda: running.server.metrics.get("arouter_connections_open", listener="listen-1") == 0,
          "the socket closed")
    assert handshake_queue(running) == []
    assert running.routes() == []
    assert not [r for r in running.records if r["event"] == "internal"]
