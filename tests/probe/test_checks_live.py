"""One target at a time against real peers on 127.0.0.1: connect, TLS, handshakes, Jolokia, discovery."""

from __future__ import annotations

import asyncio
import threading

import pytest

from artemis_routing_cli.probe import discovery
from artemis_routing_cli.probe.broadcast import Broadcast
from artemis_routing_cli.probe.model import Credentials, Endpoint, ProbeOptions
from artemis_routing_cli.probe.runner import check_endpoint
from artemis_routing_cli.protocols.core_buffer import TransportConfig
from tests.real_clients import import_peer

from .peers import HANG_GUARD_SECONDS, AmqpRouterDouble, Broadcaster, CoreDouble, closed_port, free_port

pytestmark = pytest.mark.network

NO_CREDS = Credentials()


def run_check(endpoint: Endpoint, creds: Credentials = NO_CREDS, **options: object):
    return asyncio.run(check_endpoint(endpoint, creds, ProbeOptions(**options)))  # type: ignore[arg-type]


def test_mqtt_handshake_with_mosquitto(mosquitto):
    check = run_check(Endpoint("m", "127.0.0.1", mosquitto.port), Credentials("router", "pw"), protocol="mqtt")
    assert check.reachable and check.error is None
    assert check.handshake is not None and check.handshake.ok and check.handshake.protocol == "mqtt"
    assert check.latency_ms is not None


def test_auto_tries_core_then_amqp_then_mqtt(mosquitto):
    check = run_check(Endpoint("m", "127.0.0.1", mosquitto.port), protocol="auto")
    assert check.handshake is not None
    assert (check.handshake.protocol, check.handshake.ok) == ("mqtt", True)


def test_amqp_against_mosquitto_says_it_does_not_speak_amqp(mosquitto):
    check = run_check(Endpoint("m", "127.0.0.1", mosquitto.port), protocol="amqp")
    assert check.reachable
    assert check.handshake is not None and not check.handshake.ok
    assert "AMQP" in check.handshake.detail


def test_core_handshake_gives_the_node_id_from_the_topology():
    double = CoreDouble("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee")
    try:
        check = run_check(Endpoint("c", "127.0.0.1", double.port), protocol="core")
    finally:
        double.close()
    assert check.handshake is not None and check.handshake.ok
    assert check.handshake.peer_id == "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"


def test_amqp_handshake_with_a_real_proton_server():
    proton = import_peer("proton", "python-qpid-proton")
    from proton.handlers import MessagingHandler
    from proton.reactor import Container

    port, ready = free_port(), threading.Event()

    class Server(MessagingHandler):
        def on_start(self, event):
            self.acceptor = event.container.listen(f"127.0.0.1:{port}")
            ready.set()

        def on_connection_init(self, event):
            event.connection.container = "proton-broker-7"

        def on_connection_closed(self, event):
            self.acceptor.close()

    container = Container(Server())
    thread = threading.Thread(target=container.run, daemon=True)
    thread.start()
    assert ready.wait(HANG_GUARD_SECONDS)
    check = run_check(Endpoint("a", "127.0.0.1", port), protocol="amqp")
    thread.join(HANG_GUARD_SECONDS)
    assert check.handshake is not None and check.handshake.ok, check.handshake
    assert check.handshake.peer_id == "proton-broker-7"
    assert proton is not None


def test_tls_handshake_sends_sni_and_trusts_the_given_ca(tls_server):
    server, cert = tls_server
    check = run_check(Endpoint("t", "localhost", server.port, tls=True), protocol="none", cafile=str(cert))
    assert check.reachable, check.error
    assert check.tls is not None and check.tls.startswith("TLS")
    assert check.sni == "localhost"
    assert server.sni_seen == ["localhost"]


def test_tls_sends_the_connectors_sni_host(tls_server):
    server, cert = tls_server
    check = run_check(Endpoint("t", "127.0.0.1", server.port, tls=True, sni_host="broker.example"),
                      protocol="none", cafile=str(cert))
    assert check.reachable, check.error
    assert server.sni_seen == ["broker.example"]


def test_tls_untrusted_certificate_fails_unless_insecure(tls_server):
    server, _ = tls_server
    bad = run_check(Endpoint("t", "localhost", server.port, tls=True), protocol="none")
    assert not bad.reachable
    assert bad.error is not None and "certificate" in bad.error
    ok = run_check(Endpoint("t", "localhost", server.port, tls=True), protocol="none", insecure=True)
    assert ok.reachable


def test_silent_listener_times_out_in_the_handshake(silent):
    check = run_check(Endpoint("s", "127.0.0.1", silent.port), protocol="auto", timeout=0.5)
    assert check.reachable
    assert check.handshake is not None and not check.handshake.ok
    assert "timeout" in check.handshake.detail


def test_closed_port_is_refused():
    check = run_check(Endpoint("x", "127.0.0.1", closed_port()), timeout=2)
    assert not check.reachable
    assert check.error is not None and "refused" in check.error


def test_unresolvable_host():
    check = run_check(Endpoint("x", "nonexistent.invalid", 61616), timeout=2)
    assert not check.reachable
    assert check.error is not None and check.error.startswith("DNS:")


def test_jolokia_read_with_basic_auth_and_origin(mosquitto, jolokia):
    template = f"http://{{host}}:{jolokia.port}/console/jolokia"
    check = run_check(Endpoint("m", "127.0.0.1", mosquitto.port), Credentials("router", "secret"),
                      protocol="mqtt", jolokia=template)
    m = check.management
    assert m is not None and m.error is None
    assert (m.active, m.node_id, m.connection_count, m.broker_name) == (
        True, "11111111-2222-3333-4444-555555555555", 7, "b1")
    [req] = jolokia.requests
    assert req["path"] == "/console/jolokia"
    assert req["headers"]["Origin"] == f"http://127.0.0.1:{jolokia.port}"


def test_jolokia_wrong_password_is_a_management_error(jolokia):
    template = f"http://127.0.0.1:{jolokia.port}/console/jolokia"
    check = run_check(Endpoint("x", "127.0.0.1", closed_port()), Credentials("router", "wrong"),
                      protocol="none", jolokia=template)
    assert check.management is not None and "401" in (check.management.error or "")


def test_discovery_listens_on_the_group_over_loopback():
    group, port = "239.255.77.11", free_port()
    netty = "org.apache.activemq.artemis.core.remoting.impl.netty.NettyConnectorFactory"
    first = Broadcast("node-1", "u1", (TransportConfig("c1", netty, {"host": "127.0.0.1", "port": "61001"}),
                                       TransportConfig("c2", netty, {"host": "127.0.0.1", "port": 61002})))
    second = Broadcast("node-2", "u2", (TransportConfig("c3", netty, {"host": "b2", "port": "61003"}),))
    sender = Broadcaster.of(group, port, [first, second])
    sender.datagrams.append(b"\x00\x00\x00\x09garbage")
    try:
        result = asyncio.run(discovery.listen(group, port, 1.0, local_bind_address="127.0.0.1"))
    finally:
        sender.stop()
    # the listener may join mid-cycle, so which node is heard first is not fixed: compare by node
    heard = {n.node_id: n.connector.name for n in result.nodes}
    assert heard == {"node-1": "c2", "node-2": "c3"}  # last connector of a datagram wins
    assert result.malformed and "127.0.0.1" in result.malformed[0]


@pytest.mark.parametrize(("password", "fragment"), [
    ("wrong-one", "authentication failed"),
    ("right-one", "redirected to b2.example:61617"),
])
def test_amqp_sasl_plain_with_the_pool_credentials(password, fragment):
    double = AmqpRouterDouble("right-one", ("b2.example", 61617))
    try:
        check = run_check(Endpoint("a", "127.0.0.1", double.port), Credentials("router", password),
                          protocol="amqp")
    finally:
        double.close()
    assert double.users == ["router"]
    assert check.handshake is not None and not check.handshake.ok
    assert fragment in check.handshake.detail
    assert password not in check.handshake.detail
