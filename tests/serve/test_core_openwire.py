"""CORE and OpenWire answered byte-exact through real sockets.

No Artemis CORE client or ActiveMQ 5 client (Java) runs here, so the client is a *protocol
double*: its frames are written below with ``struct`` from the broker's packet layouts
(PacketImpl, CreateSessionMessage_V2, DisconnectMessage_V3; the activemq-client 5.19 v12
marshallers), independently of the codecs' encoders.
"""

from __future__ import annotations

import socket
import struct

import pytest

from artemis_routing_cli.routing.targets import state_from_options

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops, recv_until_closed

pytestmark = pytest.mark.network

NETTY = "org.apache.activemq.artemis.core.remoting.impl.netty.NettyConnectorFactory"
LOCAL_NODE = "00000000-0000-0000-0000-000000000000"
TARGET2 = "22222222-2222-2222-2222-222222222222"


# --- CORE double ---------------------------------------------------------------------------------
def jstring(s: str) -> bytes:
    """UTF8Util.writeString for ASCII: < 9 chars as UTF-16 units, else int length, short length, bytes."""
    n = len(s)
    if n < 9:
        return struct.pack(">i", n) + b"".join(struct.pack(">H", ord(c)) for c in s)
    return struct.pack(">iH", n, n) + s.encode("ascii")


def nstring(s: str | None) -> bytes:
    return b"\x00" if s is None else b"\x01" + jstring(s)


def simple(s: str) -> bytes:
    data = s.encode("utf-16-le")
    return struct.pack(">i", len(data)) + data


def frame(ptype: int, channel: int, body: bytes) -> bytes:
    return struct.pack(">ibq", 9 + len(body), ptype, channel) + body


def create_session(client_id: str, user: str | None = None) -> bytes:
    body = (jstring("5e2a9c1d-0000-1111-2222-333344445555") + struct.pack(">q", 10) + struct.pack(">i", 136)
            + nstring(user) + nstring(None) + struct.pack(">i", 102400) + b"\x00\xff\xff"
            + struct.pack(">i", -1) + b"\x00" + b"\x00" + nstring(client_id))
    return frame(-18, 1, body)


def read_frames(sock: socket.socket, count: int) -> list[bytes]:
    sock.settimeout(HANG_GUARD)
    buf = b""
    frames: list[bytes] = []
    while len(frames) < count:
        while len(buf) >= 4 and len(buf) >= 4 + struct.unpack_from(">i", buf)[0]:
            size = struct.unpack_from(">i", buf)[0]
            frames.append(buf[: 4 + size])
            buf = buf[4 + size:]
        if len(frames) >= count:
            break
        data = sock.recv(65536)
        assert data, f"closed after {len(frames)} frames"
        buf += data
    return frames


@on_both_loops
def test_core_client_is_redirected_byte_exact(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        subscribe = frame(113, 0, b"\x00" + struct.pack(">i", 136))
        sock.sendall(b"ARTEMIS" + frame(10, 0, struct.pack(">q", 60000)) + subscribe)
        ping, topology = read_frames(sock, 2)
        assert ping == frame(10, 0, struct.pack(">q", 60000))
        # CLUSTER_TOPOLOGY_V4, node up, this listener's node id, no connectors, last=true
        assert topology[4:5] == struct.pack(">b", -17)
        body = topology[13:]
        assert body[:1 + len(jstring(LOCAL_NODE))] == b"\x00" + jstring(LOCAL_NODE)
        assert body[-(2 + 1 + 2 + 4):] == b"\x00\x00\xff\x00\x00" + struct.pack(">i", 136)

        sock.sendall(create_session("FOO1"))
        disconnect, exception = read_frames(sock, 2)
    connector = (jstring("target2") + jstring(NETTY) + struct.pack(">i", 2)
                 + jstring("port") + b"\x03" + jstring("61618") + jstring("host") + b"\x03" + jstring("10.0.0.2"))
    assert disconnect == frame(-19, 0, b"\x01" + simple(LOCAL_NODE) + b"\x00" + b"\x01" + simple(TARGET2)
                               + b"\xff" + connector)
    message = ("AMQ229237: Connection router by-client redirected the connection to TransportConfiguration("
               "name=target2, factory=org-apache-activemq-artemis-core-remoting-impl-netty-NettyConnectorFactory)"
               "?port=61618&host=10-0-0-2")
    assert exception == frame(20, 1, struct.pack(">i", 222) + nstring(message))


@on_both_loops
def test_core_refusal_keeps_the_connection_open(serve):
    running = serve(ROUTER_CORE, routers=["refuser"])
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(b"ARTEMIS" + create_session("c1"))
        refusal = frame(20, 1, struct.pack(">i", 119)
                        + nstring("AMQ229240: Connection router refuser rejected the connection"))
        assert read_frames(sock, 1) == [refusal]
        sock.sendall(create_session("c2"))  # the client may try again on the same connection
        assert read_frames(sock, 1) == [refusal]
    assert [r["key"] for r in running.routes()] == ["c1", "c2"]


# --- OpenWire double -----------------------------------------------------------------------------
def utf(s: str) -> bytes:
    return struct.pack(">H", len(s)) + s.encode("ascii")


def bits(*flags: bool) -> bytes:
    data = bytearray((len(flags) + 7) // 8)
    for i, flag in enumerate(flags):
        if flag:
            data[i // 8] |= 1 << (i % 8)
    return bytes((len(data),)) + bytes(data)


def prefixed(command: bytes) -> bytes:
    return struct.pack(">i", len(command)) + command


def wireformat_info() -> bytes:
    props = [("TightEncodingEnabled", b"\x01\x01"), ("CacheEnabled", b"\x01\x00"),
             ("StackTraceEnabled", b"\x01\x01"), ("SizePrefixDisabled", b"\x01\x00")]
    blob = struct.pack(">i", len(props)) + b"".join(utf(k) + v for k, v in props)
    return prefixed(b"\x01" + b"ActiveMQ" + struct.pack(">i", 12) + b"\x01" + struct.pack(">i", len(blob)) + blob)


def connection_info(client_id: str) -> bytes:
    """Tight ConnectionInfo of a failover: client (fault tolerant), no user."""
    conn_id = "ID:host-1-1"
    flags = (True, True, True, True, True, True, False, False, False, False, True, True, True, False, False)
    data = (struct.pack(">i", 1) + b"\x78" + struct.pack(">h", len(conn_id)) + conn_id.encode()
            + struct.pack(">h", len(client_id)) + client_id.encode())
    return prefixed(b"\x03" + bits(*flags) + data)


@on_both_loops
def test_openwire_failover_client_gets_connection_control_byte_exact(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(wireformat_info() + connection_info("FOO1"))
        data = recv_until_closed(sock)
    frames = []
    while data:
        size = struct.unpack_from(">i", data)[0]
        frames.append(data[: 4 + size])
        data = data[4 + size:]
    assert [f[4] for f in frames] == [1, 2, 18]  # WireFormatInfo, BrokerInfo, ConnectionControl
    # ConnectionControl: booleans close..suspend false, connectedBrokers set, reconnectTo null,
    # rebalanceConnection true, token null
    flags = bits(False, False, False, False, False, False, True, True, False, True, False)
    assert frames[2] == prefixed(b"\x12" + flags + struct.pack(">i", 0) + struct.pack(">h", 20)
                                 + b"tcp://10.0.0.2:61618")
    assert running.routes()[0]["key"] == "FOO1"
