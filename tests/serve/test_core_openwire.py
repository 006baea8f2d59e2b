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


MASKED_CORE = """
  <mask-password>true</mask-password>
  <connectors>
    <connector name="t3">tcp://10.0.0.3:61619?sslEnabled=true;trustStorePassword=secret;foo.bar=baz;amqpCredits=1000</connector>
    <connector name="t4">tcp://10.0.0.4:61620?novalue</connector>
  </connectors>
  <connection-routers>
    <connection-router name="r3"><key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>
      <pool><static-connectors><connector-ref>t3</connector-ref></static-connectors></pool></connection-router>
    <connection-router name="r4"><key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>
      <pool><static-connectors><connector-ref>t4</connector-ref></static-connectors></pool></connection-router>
  </connection-routers>
"""
TARGET3 = "33333333-3333-3333-3333-333333333333"
CODEC = "org.apache.activemq.artemis.utils.DefaultSensitiveStringCodec"


@on_both_loops
def test_core_redirect_carries_the_connectors_params_and_extra_props(serve):
    """TransportConfiguration.encode: count = params + extraProps; params in HashMap order (a JVM puts
    trustStorePassword, port, sslEnabled, host, activemq.passwordcodec, activemq.usemaskedpassword in
    that order), the Boolean <mask-password> adds as type 0, then the extraProps prefixed $.EP.."""
    running = serve(MASKED_CORE, routers=["r3"], state=state_from_options([f"t3={TARGET3}", f"local={LOCAL_NODE}"]))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(b"ARTEMIS" + create_session("FOO1"))
        disconnect, exception = read_frames(sock, 2)
    string = b"\x03"
    connector = (jstring("t3") + jstring(NETTY) + struct.pack(">i", 8)
                 + jstring("trustStorePassword") + string + jstring("secret")
                 + jstring("port") + string + jstring("61619")
                 + jstring("sslEnabled") + string + jstring("true")
                 + jstring("host") + string + jstring("10.0.0.3")
                 + jstring("activemq.passwordcodec") + string + jstring(CODEC)
                 + jstring("activemq.usemaskedpassword") + b"\x00" + b"\xff"
                 + jstring("$.EP.amqpCredits") + string + jstring("1000")
                 + jstring("$.EP.foo.bar") + string + jstring("baz"))
    assert disconnect == frame(-19, 0, b"\x01" + simple(LOCAL_NODE) + b"\x00" + b"\x01" + simple(TARGET3)
                               + b"\xff" + connector)
    message = ("AMQ229237: Connection router r3 redirected the connection to TransportConfiguration("
               "name=t3, factory=org-apache-activemq-artemis-core-remoting-impl-netty-NettyConnectorFactory)"
               "?trustStorePassword=****&port=61619&sslEnabled=true&host=10-0-0-3"
               "&activemq-passwordcodec=****&activemq-usemaskedpassword=****"  # their keys contain "password"
               "&amqpCredits=1000&foo-bar=baz")
    assert exception == frame(20, 1, struct.pack(">i", 222) + nstring(message))


def test_core_redirect_to_a_connector_with_a_value_less_parameter_is_an_internal_error(serve):
    """`?novalue` leaves a null in extraProps; TransportConfiguration.encode throws (AMQ219033) after
    the channels are gone and handleCreateSession answers ActiveMQInternalErrorException."""
    running = serve(MASKED_CORE, routers=["r4"], state=state_from_options(["t4=44444444"]))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(b"ARTEMIS" + create_session("FOO1"))
        [answer] = read_frames(sock, 1)
    assert answer == frame(20, 1, struct.pack(">i", 0) + nstring(""))
    [record] = [r for r in running.records if r["event"] == "redirect"]
    assert record["parameter"] == "novalue" and "AMQ219033: Invalid type: null" in record["message"]


def old_create_session(version: int) -> bytes:
    """CREATESESSION (30) of a client older than 2.18 (a HornetQ 2.4 client says 126): no client id."""
    body = (jstring("5e2a9c1d-0000-1111-2222-333344445555") + struct.pack(">q", 10) + struct.pack(">i", version)
            + nstring(None) + nstring(None) + struct.pack(">i", 102400) + b"\x00\xff\xff"
            + struct.pack(">i", -1) + b"\x00" + b"\x00")
    return frame(30, 1, body)


def test_hornetq_client_is_served_by_the_hornetq_manager_and_told_versions_incompatible(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(b"HORNETQ" + frame(10, 0, struct.pack(">q", 30000)) + old_create_session(126))
        ping, answer = read_frames(sock, 2)
    assert ping == frame(10, 0, struct.pack(">q", 30000))  # the prologue was skipped, CORE frames follow
    incompatible = nstring("AMQ229033: Server and client versions incompatible")
    assert answer == frame(20, 1, struct.pack(">i", 108) + incompatible)
    assert running.server.metrics.get("arouter_connections_total", listener="listen-1", protocol="HORNETQ") == 1
    assert running.routes() == []


def test_headerless_core_client_goes_to_the_hornetq_manager_which_routes_like_core(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(create_session("FOO1"))  # no ARTEMIS prologue: no manager claims it
        disconnect, _exception = read_frames(sock, 2)
    assert disconnect[4:5] == struct.pack(">b", -19)
    assert running.routes()[0]["protocol"] == "HORNETQ"


def ping(ttl: int) -> bytes:
    return frame(10, 0, struct.pack(">q", ttl))


def listener_queues(running) -> dict:
    """How many connections wait in each of the listener's after-answer queues (by idle limit)."""
    listener = running.server._listeners["listen-1"]
    return {"linger": len(listener.linger_deadlines), **{k: len(v) for k, v in listener.idle_deadlines.items() if v}}


def test_a_refused_core_client_stays_while_it_pings_within_its_connection_ttl(serve):
    """RemotingServiceImpl's failure check closes a connection only after a whole TTL without data;
    the TTL is the client's PING's (no <connection-ttl-override>)."""
    running = serve(ROUTER_CORE, routers=["refuser"], linger=0.05)
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(b"ARTEMIS" + ping(45_000) + create_session("c1"))
        read_frames(sock, 2)  # the PING echo, the refusal
        assert running.call(listener_queues, running) == {"linger": 0, 45.0: 1}  # not --linger's 0.05 s
        listener = running.server._listeners["listen-1"]
        before = running.call(lambda: next(iter(listener.idle_deadlines[45.0]._due.values())))
        sock.sendall(ping(45_000))
        read_frames(sock, 1)
        after = running.call(lambda: next(iter(listener.idle_deadlines[45.0]._due.values())))
        assert after > before  # the client's packet starts its silence again


def test_a_silent_core_client_goes_after_its_connection_ttl(serve):
    running = serve(ROUTER_CORE, routers=["refuser"])
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(b"ARTEMIS" + ping(50) + create_session("c1"))  # a 50 ms TTL, then nothing more
        data = recv_until_closed(sock)  # closed by serve: only the TTL (not the 30 s linger) passed
    assert data.endswith(nstring("AMQ229240: Connection router refuser rejected the connection"))


def test_connection_ttl_override_wins_over_the_clients_ttl(serve):
    running = serve("<connection-ttl-override>16000</connection-ttl-override>" + ROUTER_CORE, routers=["refuser"])
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(b"ARTEMIS" + ping(45_000) + create_session("c1"))
        read_frames(sock, 2)
        assert running.call(listener_queues, running) == {"linger": 0, 16.0: 1}


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
    # BrokerInfo.brokerURL is connection.getLocalAddress(): the listener's address without a "/"
    local = f"127.0.0.1:{running.port()}".encode()
    assert struct.pack(">h", len(local)) + local in frames[1] and b"/127.0.0.1" not in frames[1]
    # ConnectionControl: booleans close..suspend false, connectedBrokers set, reconnectTo null,
    # rebalanceConnection true, token null
    flags = bits(False, False, False, False, False, False, True, True, False, True, False)
    assert frames[2] == prefixed(b"\x12" + flags + struct.pack(">i", 0) + struct.pack(">h", 20)
                                 + b"tcp://10.0.0.2:61618")
    assert running.routes()[0]["key"] == "FOO1"
