"""serve behind the layers a broker's acceptor puts under the protocol: WebSocket (any acceptor) and
the PROXY protocol header (``proxyProtocolEnabled=true``), with and without TLS.

Peers: paho-mqtt over its WebSocket transport, haproxy (``send-proxy``/``send-proxy-v2``, and TLS
to the backend after the header), and raw sockets writing the bytes a proxy would.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator

import pytest

from artemis_routing_cli.protocols.mqtt import MqttClient
from artemis_routing_cli.protocols.websocket import (
    BINARY,
    build_upgrade_request,
    client_frame,
    parse_frames,
)
from artemis_routing_cli.routing.targets import state_from_options
from tests.peers import HAPROXY, Haproxy, free_port
from tests.real_clients import import_peer

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops, recv_until_closed, tls_connect

mqtt = import_peer("paho.mqtt.client", "paho-mqtt")
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

pytestmark = pytest.mark.network

needs_haproxy = pytest.mark.skipif(HAPROXY is None, reason="haproxy is not installed (apt-get install haproxy)")

BY_IP = """
    <connection-router name="by-ip">
      <key-type>SOURCE_IP</key-type>
      <policy name="FIRST_ELEMENT"/>
      <pool><static-connectors><connector-ref>target1</connector-ref></static-connectors></pool>
    </connection-router>
  </connection-routers>"""


def acceptor_core(url: str) -> str:
    core = ROUTER_CORE.replace("<connection-routers>", f"""<acceptors>
        <acceptor name="a">{url}</acceptor></acceptors><connection-routers>""", 1)
    return core.replace("</connection-routers>", BY_IP, 1)


def paho_connect(port: int, client_id: str, transport: str = "tcp") -> tuple[int, str | None]:
    """One MQTT 5 connect with paho; (reason code, Server Reference)."""
    got: dict = {}
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5,
                         transport=transport)
    if transport == "websockets":
        client.ws_set_options(path="/mqtt")

    def on_connect(c, _userdata, _flags, reason_code, properties):
        got["answer"] = (reason_code.value, getattr(properties, "ServerReference", None))
        c.disconnect()

    client.on_connect = on_connect
    client.connect("127.0.0.1", port, keepalive=10)
    client.loop_forever(timeout=1.0, retry_first_connection=False)
    assert "answer" in got, "paho saw no CONNACK"
    return got["answer"]


def connack_of(data: bytes) -> tuple[int, str | None]:
    client = MqttClient()
    client.connect("reader")  # the codec reads answers to a CONNECT it sent
    [connack] = client.receive_data(data)
    return connack.reason_code, connack.server_reference


def counter(running, name: str, **labels: str) -> float:
    """A counter's value in the /metrics text (0 when the series is absent)."""
    shown = ",".join(f'{k}="{v}"' for k, v in labels.items())
    for line in running.call(running.server.metrics.render).splitlines():
        if line.startswith(f"{name}{{{shown}}} "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


# --- WebSocket ------------------------------------------------------------------------------------


@on_both_loops
def test_paho_over_websocket_is_redirected(serve):
    running = serve(acceptor_core(f"tcp://127.0.0.1:{free_port()}?router=by-client"), listen=[],
                    state=state_from_options(NODE_IDS))
    assert paho_connect(running.port("a"), "FOO1", "websockets") == (0x9C, "10.0.0.2:61618")
    [route] = running.routes()
    assert (route["protocol"], route["key"], route["target"]) == ("MQTT", "FOO1", "target2")
    assert counter(running, "arouter_websocket_upgrades_total", listener="a", subprotocol="mqtt") == 1
    assert counter(running, "arouter_websocket_connections_total", listener="a", protocol="MQTT") == 1


def response_head(sock: socket.socket) -> tuple[bytes, bytes]:
    """The HTTP response head (without its blank line) and the bytes that came after it."""
    head = b""
    while b"\r\n\r\n" not in head:
        data = sock.recv(65536)
        assert data, f"closed during the handshake: {head!r}"
        head += data
    head, _, rest = head.partition(b"\r\n\r\n")
    return head, rest


def websocket_exchange(port: int, request: bytes, payloads: list[bytes]) -> tuple[bytes, bytes]:
    """Send an upgrade request, then each payload as one masked binary frame; (response head, the rest)."""
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        sock.sendall(request)
        head, rest = response_head(sock)
        for payload in payloads:
            sock.sendall(client_frame(BINARY, payload))
        return head, rest + recv_until_closed(sock)


def test_websocket_subprotocol_is_one_the_acceptor_serves_and_answers_go_out_as_frames(serve):
    running = serve(acceptor_core(f"tcp://127.0.0.1:{free_port()}?router=by-client;protocols=MQTT"), listen=[],
                    state=state_from_options(NODE_IDS))
    connect = MqttClient().connect("FOO1")
    request = build_upgrade_request(subprotocols=["v12.stomp", "amqp", "mqttv3.1", "mqtt"])
    # the CONNECT split over two frames: frames are not messages, the inner stream is their payloads
    head, rest = websocket_exchange(running.port("a"), request, [connect[:5], connect[5:]])
    assert head.startswith(b"HTTP/1.1 101 Switching Protocols\r\n")
    assert b"\r\nsec-websocket-protocol: mqttv3.1" in head  # the client's order; AMQP is not served here
    frames, left = parse_frames(rest)
    assert left == b"" and [f.opcode for f in frames] == [BINARY]
    assert connack_of(frames[0].payload) == (0x9C, "10.0.0.2:61618")


def test_websocket_over_tls_keeps_the_sni_host(serve, cert):
    crt, key = cert
    running = serve(ROUTER_CORE, listen=["tls://127.0.0.1:0"], routers=["by-sni"], tls_cert=crt, tls_key=key,
                    state=state_from_options(NODE_IDS))
    with tls_connect(running.port(), "tenant-b.example.com") as sock:
        sock.sendall(build_upgrade_request(subprotocols=["mqtt"]))
        head, rest = response_head(sock)
        sock.sendall(client_frame(BINARY, MqttClient().connect("c1")))
        frames, _ = parse_frames(rest + recv_until_closed(sock))
    assert head.startswith(b"HTTP/1.1 101") and b"sec-websocket-protocol: mqtt\r\n" in head + b"\r\n"
    assert connack_of(frames[0].payload) == (0x9C, "10.0.0.2:61618")
    assert running.routes()[0]["key"] == "tenant-b.example.com"


@pytest.mark.parametrize(("extra", "expected", "reason"), [
    ([("Upgrade", "activemq-remoting")], b"HTTP/1.1 403 Forbidden\r\n\r\n", "http"),
    ([], b"", "http"),  # no upgrade: the broker answers nothing (serve closes)
])
def test_http_requests_that_are_not_websocket_upgrades_are_closed(serve, extra, expected, reason):
    running = serve(acceptor_core(f"tcp://127.0.0.1:{free_port()}?router=by-client"), listen=[])
    request = b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(f"{k}: {v}\r\n".encode() for k, v in extra) + b"\r\n"
    with socket.create_connection(("127.0.0.1", running.port("a")), timeout=HANG_GUARD) as sock:
        sock.sendall(request)
        assert recv_until_closed(sock) == expected
    record = running.wait_for(lambda r: r["event"] == "closed", "the close of the HTTP connection")
    assert record["reason"] == reason and running.routes() == []


def test_websocket_frame_longer_than_the_acceptors_limit_closes_without_answer(serve):
    port = free_port()
    running = serve(acceptor_core(f"tcp://127.0.0.1:{port}?router=by-client;webSocketMaxFramePayloadLength=4"),
                    listen=[], state=state_from_options(NODE_IDS))
    head, rest = websocket_exchange(running.port("a"), build_upgrade_request(subprotocols=["mqtt"]),
                                    [MqttClient().connect("FOO1")])
    assert head.startswith(b"HTTP/1.1 101") and rest == b""
    assert running.wait_for(lambda r: r["event"] == "closed", "the close")["reason"] == "malformed"
    assert running.routes() == []


# --- PROXY protocol -------------------------------------------------------------------------------


def proxy_url(port: int, router: str, query: str = "") -> str:
    return f"tcp://127.0.0.1:{port}?router={router};proxyProtocolEnabled=true{query}"


@on_both_loops
@pytest.mark.parametrize(("header", "key", "remote"), [
    (b"PROXY TCP4 203.0.113.9 127.0.0.1 40000 61616\r\n", "203.0.113.9", "203.0.113.9:40000"),
    # v2, IPv6: written without zero compression, and kept as the broker stores it
    (b"\r\n\r\n\x00\r\nQUIT\n\x21\x21\x00\x24" + bytes.fromhex("20010db8000000000000000000000001") + bytes(16)
     + (40000).to_bytes(2, "big") + (61616).to_bytes(2, "big"), "2001:db8:0:0:0:0:0:1", "2001:db8:0:0:0:0:0:1:40000"),
])
def test_source_ip_is_the_proxy_headers_source(serve, header, key, remote):
    running = serve(acceptor_core(proxy_url(free_port(), "by-ip")), listen=[], state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port("a")), timeout=HANG_GUARD) as sock:
        sock.sendall(header + MqttClient().connect("c1"))  # header and protocol in one segment
        assert connack_of(recv_until_closed(sock)) == (0x9C, "10.0.0.1:61617")
    [route] = running.routes()
    assert route["key"] == key and route["remote"] == remote
    assert route["message"].startswith(f"AMQ221085: Route {remote} to target1")
    assert route["via"].startswith("127.0.0.1:") and "via PROXY from 127.0.0.1:" in route["message"]


def test_a_connection_without_the_header_is_closed(serve):
    running = serve(acceptor_core(proxy_url(free_port(), "by-ip")), listen=[], state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port("a")), timeout=HANG_GUARD) as sock:
        sock.sendall(MqttClient().connect("c1"))
        assert recv_until_closed(sock) == b""
    assert running.wait_for(lambda r: r["event"] == "closed", "the close")["reason"] == "proxy_missing"
    assert running.routes() == []


def test_a_header_where_none_is_expected_is_closed(serve):
    running = serve(acceptor_core(f"tcp://127.0.0.1:{free_port()}?router=by-ip"), listen=[],
                    state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port("a")), timeout=HANG_GUARD) as sock:
        sock.sendall(b"PROXY TCP4 203.0.113.9 127.0.0.1 40000 61616\r\n" + MqttClient().connect("c1"))
        assert recv_until_closed(sock) == b""
    assert running.wait_for(lambda r: r["event"] == "closed", "the close")["reason"] == "proxy_unexpected"


def test_a_malformed_header_is_closed(serve):
    running = serve(acceptor_core(proxy_url(free_port(), "by-ip")), listen=[], state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port("a")), timeout=HANG_GUARD) as sock:
        sock.sendall(b"PROXY TCP4 203.0.113.300 127.0.0.1 40000 61616\r\n")
        assert recv_until_closed(sock) == b""
    assert running.wait_for(lambda r: r["event"] == "closed", "the close")["reason"] == "proxy_malformed"


def test_an_unfinished_header_is_dropped_at_the_handshake_timeout(serve):
    running = serve(acceptor_core(proxy_url(free_port(), "by-ip")), listen=[], handshake_timeout=0.2)
    with socket.create_connection(("127.0.0.1", running.port("a")), timeout=HANG_GUARD) as sock:
        sock.sendall(b"PROXY TCP4 203.0.113.9 ")
        assert recv_until_closed(sock) == b""  # the server closes; the test waits for nothing else
    assert running.wait_for(lambda r: r["event"] == "closed", "the close")["reason"] == "timeout"


def tls_client_after(port: int, header: bytes, sni: str) -> bytes:
    """PROXY ``header`` and the TLS ClientHello in one write (the bytes a proxy sends back to back),
    then an MQTT 5 CONNECT inside TLS; everything the server answered, decrypted."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx.wrap_bio(incoming, outgoing, server_hostname=sni)
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        first = True
        while True:
            try:
                tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                out = outgoing.read()
                sock.sendall(header + out if first else out)
                first = False
                data = sock.recv(65536)
                assert data, "closed during the TLS handshake"
                incoming.write(data)
        tls.write(MqttClient().connect("c1"))
        sock.sendall(outgoing.read())
        answer = b""
        while True:
            try:
                chunk = tls.read(65536)
                if not chunk:  # close_notify
                    return answer
                answer += chunk
            except ssl.SSLWantReadError:
                data = sock.recv(65536)
                if not data:
                    return answer
                incoming.write(data)
            except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
                return answer


@on_both_loops
def test_tls_after_the_header_reads_not_one_byte_past_it(serve, cert):
    crt, key = cert
    running = serve(acceptor_core(proxy_url(free_port(), "by-sni", ";sslEnabled=true")), listen=[],
                    tls_cert=crt, tls_key=key, state=state_from_options(NODE_IDS))
    answer = tls_client_after(running.port("a"), b"PROXY TCP4 203.0.113.9 127.0.0.1 40000 61616\r\n",
                              "tenant-b.example.com")
    assert connack_of(answer) == (0x9C, "10.0.0.2:61618")
    [route] = running.routes()
    assert (route["key"], route["remote"]) == ("tenant-b.example.com", "203.0.113.9:40000")


# --- haproxy in front of serve ----------------------------------------------------------------------


@pytest.fixture
def frontend() -> Iterator[socket.socket]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield sock
    sock.close()


@needs_haproxy
@pytest.mark.parametrize(("send", "version"), [("send-proxy", "V1"), ("send-proxy-v2", "V2")])
def test_paho_through_haproxy_is_routed_by_its_own_address(serve, tmp_path, frontend, send, version):
    running = serve(acceptor_core(proxy_url(free_port(), "by-ip")), listen=[], state=state_from_options(NODE_IDS))
    haproxy = Haproxy(tmp_path, frontend, f"server s1 127.0.0.1:{running.port('a')} {send}")
    try:
        assert paho_connect(frontend.getsockname()[1], "c1") == (0x9C, "10.0.0.1:61617")
    finally:
        haproxy.stop()
    [route] = running.routes()
    assert route["key"] == "127.0.0.1" and route["via"] is not None
    assert counter(running, "arouter_proxy_headers_total", listener="a", version=version) == 1


@needs_haproxy
@on_both_loops
def test_haproxy_speaks_tls_to_serve_after_the_header(serve, tmp_path, frontend, cert):
    crt, key = cert
    running = serve(acceptor_core(proxy_url(free_port(), "by-sni", ";sslEnabled=true")), listen=[],
                    tls_cert=crt, tls_key=key, state=state_from_options(NODE_IDS))
    haproxy = Haproxy(tmp_path, frontend, f"server s1 127.0.0.1:{running.port('a')} send-proxy-v2 ssl verify none "
                                          "sni str(tenant-b.example.com)")
    try:
        assert paho_connect(frontend.getsockname()[1], "c1") == (0x9C, "10.0.0.2:61618")
    finally:
        haproxy.stop()
    [route] = running.routes()
    assert route["key"] == "tenant-b.example.com" and route["remote"].startswith("127.0.0.1:")
