"""(3) ``arouter serve`` equals the broker: the same client with the same key, against ``arouter serve``
(the broker's own broker.xml, the node ids ``arouter probe --save`` read) and against the real broker's
redirecting acceptor, gets the same redirect, byte for byte where the bytes are ours to compare; the
CORE client follows serve's redirect to the real target and sends a message there."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.real_clients import import_peer
from tests.realbroker.brokerxml import ROUTER_PORTS
from tests.realbroker.clients import core_redirects, landed, openwire_redirects
from tests.realbroker.cluster import Cluster
from tests.realbroker.serving import Serve, start_serve
from tests.serve.test_core_openwire import create_session, frame, read_frames

ROUTER = "ch"
HANG_GUARD = 60
IDS = [f"m3-{i}" for i in range(12)]


@pytest.fixture(scope="module")
def served(cluster: Cluster, targets: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    running = start_serve(cluster.config(0), ROUTER, tmp_path_factory.mktemp("serve"), "--targets", str(targets),
                          "--no-monitor", "-D", "ordinal=0")
    try:
        yield running
    finally:
        running.stop()


def both(cluster: Cluster, served: Serve) -> list[tuple[str, int]]:
    return [(cluster.host(0), cluster.layout.port(ROUTER_PORTS[ROUTER])), ("127.0.0.1", served.port)]


def core_exchange(address: tuple[str, int], hello: bytes) -> list[bytes]:
    """Send ``hello``; the first three CORE frames the server answers."""
    with socket.create_connection(address, timeout=HANG_GUARD) as sock:
        sock.sendall(hello)
        return read_frames(sock, 3)


def exchange(address: tuple[str, int], hello: bytes, size: int | None = None) -> bytes:
    """Send ``hello``; what the server answers until it closes, or once ``size`` bytes came."""
    with socket.create_connection(address, timeout=HANG_GUARD) as sock:
        sock.sendall(hello)
        got = bytearray()
        sock.settimeout(HANG_GUARD)
        try:
            while (size is None or len(got) < size) and (data := sock.recv(65536)):
                got += data
        except ConnectionResetError:
            pass
        return bytes(got)


@pytest.mark.parametrize("client_id", IDS[:6])
def test_core_disconnect_v3_and_exception_are_the_brokers_bytes(cluster: Cluster, served: Serve,
                                                                 client_id: str) -> None:
    hello = b"ARTEMIS" + frame(10, 0, struct.pack(">q", 60000)) + create_session(client_id)
    broker, ours = (core_exchange(address, hello) for address in both(cluster, served))
    # a ping answered, DISCONNECT_V3 (reason REDIRECT, the node ids, the target connector), the exception
    assert [f[4:5] for f in broker] == [b"\x0a", struct.pack(">b", -19), b"\x14"]
    assert ours == broker


def mqtt5_connect_packet(client_id: str) -> bytes:
    cid = client_id.encode()
    variable = b"\x00\x04MQTT\x05\x02\x00\x3c\x00"  # MQTT 5, clean start, keep alive 60, no properties
    payload = struct.pack(">H", len(cid)) + cid
    body = variable + payload
    return b"\x10" + bytes([len(body)]) + body


@pytest.mark.parametrize("client_id", IDS[:6])
def test_mqtt5_connack_is_the_brokers_bytes(cluster: Cluster, served: Serve, client_id: str) -> None:
    broker, ours = (exchange(address, mqtt5_connect_packet(client_id)) for address in both(cluster, served))
    assert broker[:1] == b"\x20" and broker[3] == 0x9C
    assert ours == broker


@pytest.mark.parametrize("client_id", IDS[:6])
def test_amqp_open_and_close_are_the_brokers_bytes(cluster: Cluster, served: Serve, client_id: str) -> None:
    from artemis_routing_cli.protocols.amqp import AmqpClient

    hello = AmqpClient(client_id, mechanism=None).initiate()
    at_broker, at_serve = both(cluster, served)
    # serve ends its side once its Close is written; the broker keeps the socket until the client's Close
    # or its idle timeout (60 s): compare what came, not when the socket ends
    ours = exchange(at_serve, hello)
    broker = exchange(at_broker, hello, size=len(ours))
    assert b"amqp:connection:redirect" in broker
    assert ours == broker


def test_paho_gets_the_same_answer(cluster: Cluster, served: Serve) -> None:
    import_peer("paho.mqtt.client", "paho-mqtt")
    from tests.serve.test_mqtt import mqtt5_connect, server_reference

    for client_id in IDS:
        (b_rc, b_props), (o_rc, o_props) = (mqtt5_connect(port, client_id) for _, port in both(cluster, served))
        assert (o_rc.value, server_reference(o_props)) == (b_rc.value, server_reference(b_props))


def test_proton_gets_the_same_redirect(cluster: Cluster, served: Serve) -> None:
    import_peer("proton", "python-qpid-proton")
    from tests.serve.test_amqp import connect_with_links

    for client_id in IDS:
        broker, ours = (connect_with_links(port, client_id) for _, port in both(cluster, served))
        assert (ours.name, ours.description, dict(ours.info)) == (broker.name, broker.description, dict(broker.info))


def test_openwire_client_lands_on_the_same_broker(cluster: Cluster, served: Serve) -> None:
    broker, ours = (openwire_redirects(host, port, "m3ow", 6) for host, port in both(cluster, served))
    assert ours == broker


def test_core_client_follows_serves_redirect_to_the_real_target_and_sends(cluster: Cluster, served: Serve) -> None:
    outcomes = core_redirects("127.0.0.1", served.port, "m3core-", 6, send=True)
    assert [o["received"] for o in outcomes] == [f"hello m3core-{i}" for i in range(6)]
    main = {f"{cluster.host(n)}:{cluster.main_port()}" for n in range(3)}
    assert {landed(o["remote"]) for o in outcomes} <= main
