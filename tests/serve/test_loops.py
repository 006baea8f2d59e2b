"""What could differ between asyncio's event loop and uvloop, and must not: which loop runs, the
peer address of IPv6 clients, rebinding a port that still has connections in TIME_WAIT
(SO_REUSEADDR), and a TLS client that ends the session with close_notify. Each runs on both
loops; the protocol tests run their representative cases on both as well (``@on_both_loops``)."""

from __future__ import annotations

import asyncio
import socket

import pytest

from artemis_routing_cli.protocols.mqtt import MqttClient
from artemis_routing_cli.routing.targets import state_from_options
from artemis_routing_cli.serve.conn import peer_address
from artemis_routing_cli.serve.loops import describe
from tests.peers import ipv6_loopback

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops, recv_until_closed, tls_connect

pytestmark = pytest.mark.network


def open_connections(running) -> float:
    return running.call(lambda: running.server.metrics.get("arouter_connections_open", listener="listen-1"))


@on_both_loops
def test_the_server_runs_on_the_loop_it_was_given(serve, loop_name):
    running = serve(ROUTER_CORE, routers=["by-client"])
    assert running.call(lambda: describe(asyncio.get_running_loop())).split()[0] == loop_name


@on_both_loops
@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback here")
@pytest.mark.parametrize(("broker", "scope"), [((2, 41), ""), ((2, 35), "%0")])
def test_an_ipv6_peer_is_printed_as_java_prints_it(serve, broker, scope):
    running = serve(ROUTER_CORE, listen=["[::1]:0"], routers=["by-client"], state=state_from_options(NODE_IDS),
                    broker_version=broker)
    client = MqttClient()
    with socket.create_connection(("::1", running.port()), timeout=HANG_GUARD) as sock:
        own_port = sock.getsockname()[1]
        sock.sendall(client.connect("FOO1"))
        [connack] = client.receive_data(recv_until_closed(sock))
    assert connack.server_reference == "10.0.0.2:61618"
    # as the broker's native transport prints it: no zero compression, brackets, the scope id up to
    # Artemis 2.35 (Netty 4.1.111), none from 2.36 on (not link-local, scope 0)
    assert running.routes()[0]["remote"] == f"/[0:0:0:0:0:0:0:1{scope}]:{own_port}"


@pytest.mark.parametrize("peername", [
    ("fe80::1", 5000, 0, 2),  # what both loops give (Python 3.7+ and libuv leave "%scope" out)
    ("fe80::1%eth1", 5000, 0, 2),  # what getnameinfo() would give: the scope is taken from the number
])
def test_the_scope_of_an_ipv6_peer_comes_from_the_peername_tuple(peername):
    assert peer_address(peername) == "/[fe80:0:0:0:0:0:0:1%2]:5000"
    assert peer_address(peername, native=False) == "/[fe80:0:0:0:0:0:0:1%2]:5000"
    assert peer_address(("::1", 5000, 0, 0), native=False) == "/[0:0:0:0:0:0:0:1]:5000"
    assert peer_address(("10.0.0.1", 5000)) == "/10.0.0.1:5000"


@on_both_loops
def test_a_restarted_listener_rebinds_a_port_whose_connections_are_in_time_wait(serve):
    """The listener closes first after its answer, so its side of every redirected connection
    waits in TIME_WAIT; a restart on the same port must still bind (SO_REUSEADDR)."""
    first = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    port = first.port()
    for client_id in ("FOO1", "BAR2", "BAZ3"):
        client = MqttClient()
        with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
            sock.sendall(client.connect(client_id))
            assert client.receive_data(recv_until_closed(sock))[0].server_reference is not None
    first.stop()
    second = serve(ROUTER_CORE, listen=[f"127.0.0.1:{port}"], routers=["by-client"],
                   state=state_from_options(NODE_IDS))
    assert second.port() == port
    client = MqttClient()
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        sock.sendall(client.connect("FOO1"))
        assert client.receive_data(recv_until_closed(sock))[0].server_reference == "10.0.0.2:61618"


@on_both_loops
def test_a_tls_close_notify_before_the_connect_is_complete_closes_the_connection(serve, cert, caplog):
    crt, key = cert
    running = serve(ROUTER_CORE, listen=["tls://127.0.0.1:0"], routers=["by-sni"], tls_cert=crt, tls_key=key,
                    state=state_from_options(NODE_IDS))
    with caplog.at_level("WARNING", logger="asyncio"), tls_connect(running.port(), "tenant-b.example.com") as sock:
        sock.sendall(MqttClient().connect("c1")[:5])
        raw = sock.unwrap()  # close_notify, then wait for the server's
        assert recv_until_closed(raw) == b""
        raw.close()
    assert running.routes() == []
    assert open_connections(running) == 0
    assert not [r for r in caplog.records if r.levelname in ("WARNING", "ERROR")]


@on_both_loops
def test_a_tls_client_answered_before_it_closes_gets_its_connack(serve, cert):
    crt, key = cert
    running = serve(ROUTER_CORE, listen=["tls://127.0.0.1:0"], routers=["by-sni"], tls_cert=crt, tls_key=key,
                    state=state_from_options(NODE_IDS))
    client = MqttClient()
    with tls_connect(running.port(), "tenant-b.example.com") as sock:
        sock.sendall(client.connect("c1"))
        [connack] = client.receive_data(recv_until_closed(sock))
    assert (connack.reason_code, connack.server_reference) == (0x9C, "10.0.0.2:61618")
    assert open_connections(running) == 0
