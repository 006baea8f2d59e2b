"""CORE codec tests against frames written by hand from the broker's packet layouts.

No Artemis CORE client (Java) can be installed here, so the client side is a *protocol double*:
the frames a 2.4x JMS client sends (``ARTEMIS``, PING, SUBSCRIBE_TOPOLOGY_V2, CREATESESSION_V2)
are built below with ``struct`` straight from PacketImpl / CreateSessionMessage(_V2) /
UTF8Util, independently of the codec's encoder.
"""

from __future__ import annotations

import struct

import pytest

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.core import (
    CoreClient,
    CoreServer,
    CoreState,
    CreateSessionReceived,
    DisconnectReceived,
    ExceptionReceived,
    FailoverCheckReceived,
    HandshakeReceived,
    PingReceived,
    PongReceived,
    ReattachSessionReceived,
    TopologyReceived,
    TopologySubscribed,
    TransportConfig,
    UnhandledPacket,
)
from artemis_routing_cli.protocols.core_buffer import Reader, UnencodableParameter, Writer
from artemis_routing_cli.protocols.core_java import java_hashmap_order, java_string_hash

NETTY = "org.apache.activemq.artemis.core.remoting.impl.netty.NettyConnectorFactory"


# --- hand-written encodings (the protocol double) ---------------------------------------------
def jstring(s: str) -> bytes:
    """UTF8Util.writeString for ASCII text."""
    n = len(s)
    if n < 9:
        return struct.pack(">i", n) + b"".join(struct.pack(">H", ord(c)) for c in s)
    if n < 0xFFF:
        return struct.pack(">iH", n, n) + s.encode("ascii")
    return struct.pack(">ii", n, 2 * n) + s.encode("utf-16-le")


def nstring(s: str | None) -> bytes:
    return b"\x00" if s is None else b"\x01" + jstring(s)


def simple(s: str) -> bytes:
    data = s.encode("utf-16-le")
    return struct.pack(">i", len(data)) + data


def frame(ptype: int, channel: int, body: bytes) -> bytes:
    return struct.pack(">ibq", 9 + len(body), ptype, channel) + body


def client_ping(ttl: int = 60000) -> bytes:
    return frame(10, 0, struct.pack(">q", ttl))


def client_subscribe(version: int = 136) -> bytes:
    return frame(113, 0, b"\x00" + struct.pack(">i", version))


def client_create_session(
    *,
    version: int = 136,
    user: str | None = "alice",
    password: str | None = "s3cret-pw",
    client_id: str | None = "client-7",
    v2: bool = True,
) -> bytes:
    body = (
        jstring("1e8a5c2d-1111-2222-3333-444455556666")
        + struct.pack(">q", 10)
        + struct.pack(">i", version)
        + nstring(user)
        + nstring(password)
        + struct.pack(">i", 102400)
        + b"\x00\xff\xff"  # xa=false, autoCommitSends, autoCommitAcks
        + struct.pack(">i", -1)  # confirmation window
        + b"\x00"  # preAcknowledge
        + b"\x00"  # default address: null
    )
    if v2:
        body += nstring(client_id)
    return frame(-18 if v2 else 30, 1, body)


def connect(server: CoreServer, *, version: int = 136) -> list:
    data = b"ARTEMIS" + client_ping() + client_subscribe(version) + client_create_session(version=version)
    return server.receive_data(data)


# --- string encodings -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "encoded"),
    [
        ("", b"\x00\x00\x00\x00"),
        ("ab", b"\x00\x00\x00\x02\x00a\x00b"),
        ("é€", b"\x00\x00\x00\x02\x00\xe9\x20\xac"),
        # 9 units -> Artemis UTF: NUL is one byte, é two, € three
        ("abcdefg\x00é", b"\x00\x00\x00\x09\x00\x0aabcdefg\x00\xc3\xa9"),
        ("abcdefgh€", b"\x00\x00\x00\x09\x00\x0babcdefgh\xe2\x82\xac"),
        # an emoji is two UTF-16 units, each surrogate written on its own
        ("abcdefgh😀", b"\x00\x00\x00\x0a\x00\x0eabcdefgh\xed\xa0\xbd\xed\xb8\x80"),
    ],
)
def test_string_encoding_is_byte_exact(text: str, encoded: bytes) -> None:
    assert Writer().string(text).getvalue() == encoded
    assert Reader(encoded).string() == text


def test_long_string_goes_out_as_simple_string() -> None:
    text = "x" * 0xFFF
    encoded = Writer().string(text).getvalue()
    assert encoded == struct.pack(">ii", 0xFFF, 0x1FFE) + text.encode("utf-16-le")
    assert Reader(encoded).string() == text


def test_nullable_and_simple_strings() -> None:
    assert Writer().nullable_string(None).getvalue() == b"\x00"
    assert Writer().nullable_simple_string("ab").getvalue() == b"\x01\x00\x00\x00\x04a\x00b\x00"
    assert Reader(b"\x01\x00\x00\x00\x04a\x00b\x00").nullable_simple_string() == "ab"


def test_java_hash_and_hashmap_order_match_java() -> None:
    assert java_string_hash("host") == 3208616
    assert java_string_hash("port") == 3446913
    assert java_string_hash("") == 0
    # Artemis logs show connectors as "?port=61616&host=localhost": HashMap puts port first.
    assert java_hashmap_order(["host", "port"]) == ["port", "host"]


def test_transport_configuration_to_string() -> None:
    tc = TransportConfig("target1", NETTY, {"host": "10.0.0.2", "port": "61617", "trustStorePassword": "x"})
    text = tc.java_to_string()
    assert text.startswith(
        "TransportConfiguration(name=target1, "
        "factory=org-apache-activemq-artemis-core-remoting-impl-netty-NettyConnectorFactory)?"
    )
    assert "port=61617" in text and "host=10-0-0-2" in text and "trustStorePassword=****" in text


def test_transport_configuration_encode_appends_prefixed_extra_props_and_decode_splits_them() -> None:
    tc = TransportConfig("c", NETTY, {"host": "h", "port": "1", "sslEnabled": True},
                         {"amqpCredits": "1000", "flag": False})
    encoded = Writer().transport_config(tc).getvalue()
    # a JVM's HashMap puts port, sslEnabled, host; and amqpCredits, flag
    assert encoded == (jstring("c") + jstring(NETTY) + struct.pack(">i", 5)
                       + jstring("port") + b"\x03" + jstring("1")
                       + jstring("sslEnabled") + b"\x00\xff"
                       + jstring("host") + b"\x03" + jstring("h")
                       + jstring("$.EP.amqpCredits") + b"\x03" + jstring("1000")
                       + jstring("$.EP.flag") + b"\x00\x00")
    assert Reader(encoded).transport_config() == tc


def test_transport_configuration_with_a_null_value_cannot_be_encoded() -> None:
    with pytest.raises(UnencodableParameter, match="AMQ219033: Invalid type: null") as caught:
        Writer().transport_config(TransportConfig("c", NETTY, {"host": "h"}, {"novalue": None}))
    assert caught.value.key == "novalue"


def test_transport_configuration_to_string_shows_extra_props_unmasked() -> None:
    tc = TransportConfig("c", NETTY, {"host": "h.x", "keyStorePassword": "k"}, {"my.password": "p.q"})
    assert tc.java_to_string() == ("TransportConfiguration(name=c, factory=org-apache-activemq-artemis-core-remoting-"
                                   "impl-netty-NettyConnectorFactory)?keyStorePassword=****&host=h-x&my-password=p-q")
    only_extra = TransportConfig("c", "f", {}, {"a": "1", "b": None})
    assert only_extra.java_to_string() == "TransportConfiguration(name=c, factory=f)a=1&b=null"  # no "?"


def test_redirect_with_an_unencodable_connector_raises_and_internal_error_is_code_0() -> None:
    server = CoreServer(node_id="n", router="r")
    connect(server)
    with pytest.raises(UnencodableParameter):
        server.redirect("t", "c", "h", 1, {"host": "h", "port": "1"}, extra_props={"x": None})
    assert server.state is CoreState.CLOSED  # the broker removed every channel before encoding
    assert CoreServer.internal_error() == frame(20, 1, struct.pack(">i", 0) + nstring(""))


# --- server: handshake and housekeeping ----------------------------------------------------------
def test_full_client_opening_is_decoded() -> None:
    server = CoreServer(node_id="local-node", router="simple-router")
    events = connect(server)
    assert events[:3] == [HandshakeReceived(), PingReceived(60000), TopologySubscribed(False, 136)]
    session = events[3]
    assert isinstance(session, CreateSessionReceived)
    assert session.username == "alice" and session.client_id == "client-7"
    assert session.password == "s3cret-pw"
    assert "s3cret-pw" not in repr(session)
    assert session.version == 136 and session.session_channel_id == 10 and session.v2
    assert session.auto_commit_sends and session.auto_commit_acks and not session.xa
    assert session.window_size == -1 and session.min_large_message_size == 102400
    assert session.supports_routing
    assert server.state is CoreState.SESSION_REQUESTED


def test_byte_by_byte_feeding_gives_the_same_events() -> None:
    data = b"ARTEMIS" + client_ping() + client_subscribe() + client_create_session()
    whole = CoreServer(node_id="n", router="r").receive_data(data)
    server = CoreServer(node_id="n", router="r")
    events = []
    for i in range(len(data)):
        events += server.receive_data(data[i : i + 1])
    assert events == whole


def test_headerless_client_is_served_as_core() -> None:
    server = CoreServer(node_id="n", router="r")
    assert server.receive_data(client_ping(1234)) == [PingReceived(1234)]


def test_ping_is_echoed() -> None:
    server = CoreServer(node_id="n", router="r")
    (event,) = server.receive_data(b"ARTEMIS" + client_ping(30000))[1:]
    assert server.reply(event) == client_ping(30000)


def test_topology_answer_is_a_single_node_v4_message() -> None:
    server = CoreServer(node_id="node-A", router="r")
    events = server.receive_data(b"ARTEMIS" + client_subscribe(136))
    expected_body = (
        b"\x00"  # exit = false
        + jstring("node-A")
        + struct.pack(">q", 1700000000000)  # unique event id (the broker's clock)
        + b"\x00\x00"  # no live, no backup connector
        + b"\xff"  # last = true
        + b"\x00\x00"  # backupGroupName, scaleDownGroupName: null
        + struct.pack(">i", 136)
    )
    assert server.reply(events[-1], unique_event_id=1700000000000) == frame(-17, 0, expected_body)


def test_topology_for_old_subscribe_uses_v1_message() -> None:
    server = CoreServer(node_id="node-A", router="r")
    events = server.receive_data(frame(112, 0, b"\x00"))
    assert events == [TopologySubscribed(False, None)]
    assert server.reply(events[0]) == frame(110, 0, b"\x00" + jstring("node-A") + b"\x00\x00\xff")


def test_failover_check_and_reattach_answers() -> None:
    server = CoreServer(node_id="n", router="r")
    events = server.receive_data(
        frame(-4, 1, nstring("old-node")) + frame(32, 1, jstring("sess") + b"\x00\x00\x00\x05")
    )
    assert events == [FailoverCheckReceived("old-node"), ReattachSessionReceived("sess", 5)]
    assert server.reply(events[0]) == frame(-5, 1, b"\xff")
    assert server.reply(events[1]) == frame(33, 1, struct.pack(">i", -1) + b"\x00")


def test_other_known_packets_are_reported_unhandled() -> None:
    server = CoreServer(node_id="n", router="r")
    assert server.receive_data(frame(69, 10, b"")) == [UnhandledPacket(69, 10)]
    assert server.reply(UnhandledPacket(69, 10)) == b""


# --- server: the routing answer --------------------------------------------------------------------
def test_redirect_bytes_are_exact() -> None:
    server = CoreServer(node_id="local-node", router="simple-router")
    connect(server)
    out = server.redirect("target-node", "target1", "10.0.0.2", 61617)
    connector = (
        jstring("target1")
        + jstring(NETTY)
        + struct.pack(">i", 2)
        + jstring("port")  # HashMap order: port before host
        + b"\x03"
        + jstring("61617")
        + jstring("host")
        + b"\x03"
        + jstring("10.0.0.2")
    )
    disconnect = frame(
        -19, 0, b"\x01" + simple("local-node") + b"\x00" + b"\x01" + simple("target-node") + b"\xff" + connector
    )
    message = (
        "AMQ229237: Connection router simple-router redirected the connection to "
        "TransportConfiguration(name=target1, "
        "factory=org-apache-activemq-artemis-core-remoting-impl-netty-NettyConnectorFactory)"
        "?port=61617&host=10-0-0-2"
    )
    exception = frame(20, 1, struct.pack(">i", 222) + nstring(message))
    assert out == disconnect + exception
    assert server.state is CoreState.CLOSED
    assert server.receive_data(client_ping()) == []


@pytest.mark.parametrize(
    ("status", "code", "message"),
    [
        ("REFUSED_UNAVAILABLE", 222, "AMQ229238: Connection router r1 not ready"),
        ("REFUSED_USE_ANOTHER", 119, "AMQ229240: Connection router r1 rejected the connection"),
    ],
)
def test_refusals(status: str, code: int, message: str) -> None:
    server = CoreServer(node_id="n", router="r1")
    connect(server)
    assert server.refuse(status) == frame(20, 1, struct.pack(">i", code) + nstring(message))
    # the connection stays open and the client may try again
    assert isinstance(server.receive_data(client_create_session())[0], CreateSessionReceived)


def test_pre_2_18_client_gets_versions_incompatible() -> None:
    server = CoreServer(node_id="n", router="r")
    events = server.receive_data(b"ARTEMIS" + client_ping() + client_create_session(version=130, v2=False))
    session = events[-1]
    assert isinstance(session, CreateSessionReceived)
    assert session.client_id is None and not session.v2 and not session.supports_routing
    expected = frame(20, 1, struct.pack(">i", 108) + nstring("AMQ229033: Server and client versions incompatible"))
    assert server.redirect("t", "c", "h", 1) == expected


def test_topology_version_decides_routing_support() -> None:
    server = CoreServer(node_id="n", router="r")
    events = server.receive_data(b"ARTEMIS" + client_subscribe(129) + client_create_session(version=136))
    assert not events[-1].supports_routing


def test_answering_without_a_session_is_a_local_error() -> None:
    with pytest.raises(RuntimeError):
        CoreServer(node_id="n", router="r").redirect("t", "c", "h", 1)


def test_unknown_refusal_status() -> None:
    server = CoreServer(node_id="n", router="r")
    connect(server)
    with pytest.raises(ValueError):
        server.refuse("OK")


# --- misbehaving peers ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "data",
    [
        b"ARTEMIS" + struct.pack(">i", 3) + b"abc",  # shorter than a header
        b"ARTEMIS" + struct.pack(">i", -5),
        b"ARTEMIS" + struct.pack(">i", 1 << 24),  # over MAX_FRAME_SIZE
        b"ARTEMIS" + frame(23, 0, b""),  # no such packet type
        b"ARTEMIS" + frame(10, 0, b"\x00"),  # truncated ping
        b"ARTEMIS" + frame(-18, 1, struct.pack(">i", -2)),  # negative string length
        b"ARTEMIS" + frame(-18, 1, struct.pack(">iH", 10, 2) + b"\xf0\x80"),  # bad UTF lead byte
    ],
)
def test_protocol_errors(data: bytes) -> None:
    with pytest.raises(ProtocolError):
        CoreServer(node_id="n", router="r").receive_data(data)


def test_second_create_session_before_answer_is_an_error() -> None:
    server = CoreServer(node_id="n", router="r")
    connect(server)
    with pytest.raises(ProtocolError):
        server.receive_data(client_create_session())


# --- client (probe) ------------------------------------------------------------------------------
def test_client_handshake_bytes() -> None:
    assert CoreClient.handshake_bytes(60000) == b"ARTEMIS" + client_ping(60000)
    assert CoreClient.subscribe_topology_bytes(136) == client_subscribe(136)


def test_client_create_session_matches_the_hand_built_frame() -> None:
    built = CoreClient.create_session_bytes(
        "1e8a5c2d-1111-2222-3333-444455556666",
        username="alice",
        password="s3cret-pw",
        client_id="client-7",
        min_large_message_size=102400,
    )
    assert built == client_create_session()


def test_client_and_server_round_trip() -> None:
    server = CoreServer(node_id="broker-1", router="r")
    client = CoreClient()
    server_events = server.receive_data(CoreClient.handshake_bytes() + CoreClient.subscribe_topology_bytes())
    answers = b"".join(server.reply(e, unique_event_id=42) for e in server_events)
    client_events = client.receive_data(answers)
    assert client_events[0] == PongReceived(60000)
    topology = client_events[1]
    assert isinstance(topology, TopologyReceived)
    assert (topology.node_id, topology.last, topology.server_version, topology.unique_event_id) == (
        "broker-1",
        True,
        136,
        42,
    )
    server.receive_data(CoreClient.create_session_bytes("s", username="bob", client_id="c-9"))
    params = {"host": "h2", "port": "61618", "sslEnabled": True, "batchDelay": 0, "big": 1 << 40}
    out = server.redirect("node-2", "conn2", "ignored", 0, params)
    disconnect, exception = client.receive_data(out)
    assert disconnect == DisconnectReceived("broker-1", "REDIRECT", "node-2", TransportConfig("conn2", NETTY, params))
    assert isinstance(exception, ExceptionReceived) and exception.code == 222 and exception.channel_id == 1


def test_client_decodes_a_session_response_and_unknown_types() -> None:
    client = CoreClient()
    events = client.receive_data(frame(31, 1, struct.pack(">i", 136)) + frame(-5, 1, b"\x00") + frame(22, 1, b""))
    assert [type(e).__name__ for e in events] == ["SessionCreated", "FailoverCheckReplied", "UnhandledPacket"]


@pytest.mark.parametrize(("user", "shown"), [("alice", "alice"), (None, "null")])
def test_security_rejection_is_code_105_and_keeps_the_connection_open(user: str | None, shown: str) -> None:
    server = CoreServer(node_id="n", router="r")
    server.receive_data(b"ARTEMIS" + client_ping() + client_create_session(user=user))
    answer = server.reject_security("/10.0.0.9:5000")
    message = (f"AMQ229031: Unable to validate user from /10.0.0.9:5000. Username: {shown}; "
               "SSL certificate subject DN: unavailable")
    assert answer == frame(20, 1, struct.pack(">i", 105) + nstring(message))
    assert b"s3cret-pw" not in answer
    assert server.state is CoreState.OPEN
    # the client may try again on the same connection, e.g. with better credentials
    assert isinstance(server.receive_data(client_create_session())[0], CreateSessionReceived)


def test_security_rejection_needs_a_pending_session() -> None:
    with pytest.raises(RuntimeError):
        CoreServer(node_id="n", router="r").reject_security("/10.0.0.9:5000")
