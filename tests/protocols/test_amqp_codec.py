"""Byte-level tests of the AMQP 1.0 handshake codec; frames are built by hand from the spec."""

from __future__ import annotations

import struct

import pytest

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.amqp import (
    AMQP_HEADER,
    SASL_HEADER,
    AmqpClient,
    AmqpServer,
    CloseReceived,
    ErrorCondition,
    FrameReceived,
    OpenReceived,
    ProtocolHeaderReceived,
    SaslInit,
    SaslMechanisms,
    SaslOutcome,
    SaslRejected,
    parse_plain_response,
)
from artemis_routing_cli.protocols.amqp_types import Int, Symbol

# --- hand-building helpers (part 1 section 1.6, part 2 section 2.3) ------------------------


def frame(frame_type: int, body: bytes, channel: int = 0) -> bytes:
    return struct.pack(">IBBH", 8 + len(body), 2, frame_type, channel) + body


def list8(count: int, payload: bytes) -> bytes:
    return b"\xc0" + bytes([len(payload) + 1, count]) + payload


def map8(count: int, payload: bytes) -> bytes:
    return b"\xc1" + bytes([len(payload) + 1, count]) + payload


def sym8(text: bytes) -> bytes:
    return b"\xa3" + bytes([len(text)]) + text


def str8(text: bytes) -> bytes:
    return b"\xa1" + bytes([len(text)]) + text


def described(code: int, payload: bytes) -> bytes:
    return b"\x00\x53" + bytes([code]) + payload


MECHANISMS_FRAME = frame(
    1, described(0x40, list8(1, b"\xe0\x12\x02\xa3" + b"\x05PLAIN" + b"\x09ANONYMOUS"))
)  # sasl-mechanisms [PLAIN, ANONYMOUS] as an array8 of sym8
OUTCOME_OK = frame(1, described(0x44, list8(1, b"\x50\x00")))
OUTCOME_AUTH = frame(1, described(0x44, list8(1, b"\x50\x01")))
OUTCOME_SYS = frame(1, described(0x44, list8(1, b"\x50\x02")))


def sasl_init(mechanism: bytes, response: bytes | None = None) -> bytes:
    if response is None:
        return frame(1, described(0x41, list8(1, sym8(mechanism))))
    return frame(1, described(0x41, list8(2, sym8(mechanism) + b"\xa0" + bytes([len(response)]) + response)))


# An Open like Qpid JMS sends: container-id, hostname, max-frame-size, channel-max, idle-time-out,
# no locales, no offered capabilities, desired capabilities, properties.
JMS_DESIRED = b"\xe0\x30\x02\xa3" + b"\x1dsole-connection-for-container" + b"\x0fANONYMOUS-RELAY"
JMS_PROPS = map8(4, sym8(b"product") + str8(b"QpidJMS") + sym8(b"platform") + str8(b"JVM: 17"))
JMS_OPEN = frame(
    0,
    described(
        0x10,
        list8(
            10,
            str8(b"ID:client-1")
            + str8(b"broker.example")
            + b"\x70\x00\x01\x00\x00"  # uint 65536
            + b"\x60\x7f\xff"  # ushort 32767
            + b"\x70\x00\x00\x75\x30"  # uint 30000
            + b"\x40\x40\x40"
            + JMS_DESIRED
            + JMS_PROPS,
        ),
    ),
)

FAILED_PROP = b"amqp:connection-establishment-failed"
BROKER_OPEN = frame(
    0,
    described(
        0x10,
        list8(
            10,
            b"\xa1\x00"  # container-id "" (the broker never sets its own on this path)
            + b"\x40"  # hostname null
            + b"\x70\x00\x02\x00\x00"  # max-frame-size 131072
            + b"\x60\xff\xff"  # channel-max 65535
            + b"\x70\x00\x00\x75\x30"  # idle-time-out 30000
            + b"\x40\x40\x40\x40"
            + map8(2, sym8(FAILED_PROP) + b"\x41"),
        ),
    ),
)


def close_frame(condition: bytes, description: bytes, info: bytes | None) -> bytes:
    fields = sym8(condition) + str8(description)
    count = 2
    if info is not None:
        fields += info
        count = 3
    return frame(0, described(0x18, list8(1, described(0x1D, list8(count, fields)))))


REDIRECT_CLOSE = close_frame(
    b"amqp:connection:redirect",
    b"Connection router simple-router redirected this connection to broker2.example:61617",
    # Java HashMap order: port (bucket 5) before network-host (bucket 7); port is an int
    map8(4, sym8(b"port") + b"\x71\x00\x00\xf0\xb1" + sym8(b"network-host") + str8(b"broker2.example")),
)


def feed_bytewise(conn, data: bytes) -> list:
    events = []
    for i in range(len(data)):
        events += conn.receive_data(data[i : i + 1])
    return events


# --- server side -------------------------------------------------------------------------


def test_server_sasl_plain_then_redirect_is_byte_exact():
    server = AmqpServer()
    assert server.receive_data(SASL_HEADER) == [ProtocolHeaderReceived(sasl=True)]
    assert server.data_to_send() == SASL_HEADER + MECHANISMS_FRAME
    [init] = server.receive_data(sasl_init(b"PLAIN", b"\x00alice\x00secret"))
    assert isinstance(init, SaslInit)
    assert (init.mechanism, init.username, init.password) == ("PLAIN", "alice", b"secret")
    assert "secret" not in repr(init)
    # proton-j's SASL layer is done once the outcome is out: its AMQP header follows unasked
    assert server.sasl_outcome(True) == OUTCOME_OK + AMQP_HEADER
    assert server.receive_data(AMQP_HEADER) == [ProtocolHeaderReceived(sasl=False)]
    assert server.data_to_send() == b""  # ... and is not written twice
    [opened] = server.receive_data(JMS_OPEN)
    assert isinstance(opened, OpenReceived)
    assert server.redirect("simple-router", "broker2.example", 61617) == BROKER_OPEN + REDIRECT_CLOSE


def test_server_decodes_a_qpid_jms_open():
    server = AmqpServer()
    server.receive_data(AMQP_HEADER)
    [event] = server.receive_data(JMS_OPEN)
    open_ = event.open
    assert event.container_id == "ID:client-1"
    assert event.hostname == "broker.example"
    assert (open_.max_frame_size, open_.channel_max, open_.idle_timeout) == (65536, 32767, 30000)
    assert open_.desired_capabilities == ("sole-connection-for-container", "ANONYMOUS-RELAY")
    assert open_.offered_capabilities == ()
    assert event.properties == {"product": "QpidJMS", "platform": "JVM: 17"}
    assert all(type(k) is Symbol for k in event.properties)


def test_server_accepts_minimal_open_with_symbolic_descriptor_and_single_symbol_capability():
    body = b"\x00" + sym8(b"amqp:open:list") + list8(8, str8(b"c") + b"\x40" * 6 + sym8(b"cap"))
    server = AmqpServer()
    server.receive_data(AMQP_HEADER)
    [event] = server.receive_data(frame(0, body))
    assert event.open.container_id == "c"
    assert event.open.offered_capabilities == ("cap",)
    assert event.open.max_frame_size == 0xFFFFFFFF


def test_server_handshake_survives_one_byte_at_a_time():
    server = AmqpServer()
    events = feed_bytewise(server, SASL_HEADER + sasl_init(b"ANONYMOUS"))
    assert events == [ProtocolHeaderReceived(sasl=True), SaslInit("ANONYMOUS", None, None, None)]
    server.sasl_outcome(True)
    events = feed_bytewise(server, AMQP_HEADER + frame(0, b"") + JMS_OPEN)
    assert [type(e) for e in events] == [ProtocolHeaderReceived, OpenReceived]


def test_server_keeps_pipelined_bytes_until_the_sasl_decision():
    server = AmqpServer()
    server.receive_data(SASL_HEADER)
    events = server.receive_data(sasl_init(b"PLAIN", b"bob\x00pw") + AMQP_HEADER + JMS_OPEN)
    assert [type(e) for e in events] == [SaslInit]
    assert events[0].username == "bob"
    # bytes still queued by receive_data come first
    assert server.sasl_outcome(True) == SASL_HEADER + MECHANISMS_FRAME + OUTCOME_OK + AMQP_HEADER
    assert [type(e) for e in server.receive_data(b"")] == [ProtocolHeaderReceived, OpenReceived]


def test_server_sasl_auth_failure_and_unknown_mechanism():
    server = AmqpServer()
    server.receive_data(SASL_HEADER)
    server.receive_data(sasl_init(b"PLAIN", b"\x00u\x00wrong"))
    server.data_to_send()
    # whatever the outcome, proton-j writes the AMQP header behind it (checked against proton-j)
    assert server.sasl_outcome(False) == OUTCOME_AUTH + AMQP_HEADER

    server = AmqpServer()
    server.receive_data(SASL_HEADER)
    server.data_to_send()
    assert server.receive_data(sasl_init(b"EXTERNAL")) == [SaslRejected("EXTERNAL")]
    assert server.data_to_send() == OUTCOME_SYS + AMQP_HEADER  # the broker answers PN_SASL_SYS


def test_server_offered_mechanisms_and_ones_it_cannot_carry_out():
    server = AmqpServer(("EXTERNAL", "SCRAM-SHA-256", "PLAIN"))
    server.receive_data(SASL_HEADER)
    offered = b"\xe0\x1f\x03\xa3" + b"\x08EXTERNAL" + b"\x0dSCRAM-SHA-256" + b"\x05PLAIN"  # in the given order
    assert server.data_to_send() == SASL_HEADER + frame(1, described(0x40, list8(1, offered)))
    assert server.receive_data(sasl_init(b"SCRAM-SHA-256")) == [SaslRejected("SCRAM-SHA-256", offered=True)]
    assert server.data_to_send() == OUTCOME_SYS + AMQP_HEADER

    server = AmqpServer(("PLAIN",))
    server.receive_data(SASL_HEADER)
    server.data_to_send()
    assert server.receive_data(sasl_init(b"ANONYMOUS")) == [SaslRejected("ANONYMOUS", offered=False)]
    # a client that carries on after the failed outcome reaches the Open (the broker then
    # validates it without a SASL user)
    server.data_to_send()
    assert [type(e) for e in server.receive_data(AMQP_HEADER + JMS_OPEN)] == [ProtocolHeaderReceived, OpenReceived]
    assert server.data_to_send() == b""


def test_server_frame_limits_follow_the_acceptor():
    server = AmqpServer(max_frame_size=512, sasl_max_frame_size=600)
    server.receive_data(SASL_HEADER)
    with pytest.raises(ProtocolError, match="larger than the 600 allowed"):
        server.receive_data(struct.pack(">IBBH", 601, 2, 1, 0))
    server = AmqpServer(max_frame_size=512)
    with pytest.raises(ProtocolError, match="larger than the 512 allowed"):
        server.receive_data(AMQP_HEADER + struct.pack(">IBBH", 513, 2, 0, 0))
    unlimited = AmqpServer(max_frame_size=0)  # not positive: proton-j sets no limit
    assert unlimited.receive_data(AMQP_HEADER + struct.pack(">IBBH", 1 << 20, 2, 0, 0)) == [
        ProtocolHeaderReceived(sasl=False)]


def test_server_without_sasl_and_refusals():
    for status, description in [
        ("REFUSED_USE_ANOTHER", b"Connection router r1 rejected this connection"),
        ("REFUSED_UNAVAILABLE", b"Connection router r1 is not ready"),
    ]:
        server = AmqpServer()
        server.receive_data(AMQP_HEADER)
        server.receive_data(JMS_OPEN)
        expected_close = close_frame(b"amqp:connection:forced", description, None)
        assert server.refuse("r1", status) == AMQP_HEADER + BROKER_OPEN + expected_close
    with pytest.raises(ValueError):
        server.refuse("r1", "OK")


def test_server_reports_the_clients_close_and_other_frames_after_redirect():
    server = AmqpServer()
    server.receive_data(AMQP_HEADER)
    server.receive_data(JMS_OPEN)
    server.redirect("r", "h", 1)
    begin = frame(0, described(0x11, list8(1, b"\x40")), channel=1)
    close = frame(0, described(0x18, b"\x45"))
    assert server.receive_data(begin + close) == [FrameReceived("begin", 1), CloseReceived(None)]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"GET", "not an AMQP protocol header"),  # rejected before 8 bytes have arrived
        (b"GET / HTTP/1.1\r\n", "unsupported AMQP protocol header"),
        (b"AMQP\x02\x01\x00\x00", "unsupported AMQP protocol header"),
        # proton-j: AMQP frames (the Open too) up to maxFrameSize, SASL frames up to initialRemoteMaxFrameSize
        (AMQP_HEADER + struct.pack(">IBBH", 131073, 2, 0, 0), "larger than the 131072 allowed"),
        (SASL_HEADER + struct.pack(">IBBH", 4097, 2, 1, 0), "larger than the 4096 allowed"),
        (AMQP_HEADER + struct.pack(">IBBH", 8, 1, 0, 0), "malformed AMQP frame header"),
        (AMQP_HEADER + struct.pack(">IBBH", 4, 2, 0, 0), "malformed AMQP frame header"),
        (AMQP_HEADER + frame(1, described(0x41, b"\x45")), "unexpected AMQP frame type"),
        (AMQP_HEADER + frame(0, described(0x11, b"\x45")), "expected open"),
        (AMQP_HEADER + frame(0, described(0x10, b"\x45")), "mandatory container-id"),
        (AMQP_HEADER + frame(0, described(0x10, list8(1, b"\x54\x01"))), "container-id has the wrong type"),
        (AMQP_HEADER + frame(0, described(0x77, b"\x45")), "unknown AMQP performative"),
        (AMQP_HEADER + frame(0, b"\x54\x01"), "not a described list"),
        (SASL_HEADER + frame(1, b""), "empty SASL frame"),
        (SASL_HEADER + frame(1, described(0x44, list8(1, b"\x50\x00"))), "expected sasl-init"),
        (SASL_HEADER + frame(0, described(0x10, b"\x45")), "unexpected AMQP frame type"),
        (SASL_HEADER + frame(1, described(0x41, b"\x45")), "mandatory mechanism"),
        (AMQP_HEADER + JMS_OPEN + JMS_OPEN, "second AMQP open"),
    ],
)
def test_server_rejects_misbehaving_peers(data, message):
    server = AmqpServer()
    with pytest.raises(ProtocolError, match=message):
        server.receive_data(data)


def test_server_api_misuse_is_a_programming_error():
    server = AmqpServer()
    with pytest.raises(RuntimeError):
        server.redirect("r", "h", 1)
    with pytest.raises(RuntimeError):
        server.sasl_outcome(True)


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (b"\x00user\x00pw", ("user", b"pw")),
        (b"authz\x00user\x00pw", ("user", b"pw")),
        (b"user\x00pw", ("user", b"pw")),
        (b"\x00user\x00", ("", b"user")),  # Java String.split drops the trailing empty part
        (b"a\x00b\x00c\x00d", (None, None)),
        (b"\x00\x00", (None, None)),
        (b"", (None, None)),
        (None, (None, None)),
    ],
)
def test_plain_response_is_read_like_the_broker(response, expected):
    assert parse_plain_response(response) == expected


# --- client side -------------------------------------------------------------------------


def test_client_plain_handshake_and_redirect_report():
    client = AmqpClient("probe-1", hostname="broker.example", mechanism="PLAIN", username="u", password="p")
    assert client.initiate() == SASL_HEADER
    events = client.receive_data(SASL_HEADER + MECHANISMS_FRAME)
    assert events == [ProtocolHeaderReceived(sasl=True), SaslMechanisms(("PLAIN", "ANONYMOUS"))]
    init = frame(
        1,
        described(0x41, list8(3, sym8(b"PLAIN") + b"\xa0\x04\x00u\x00p" + str8(b"broker.example"))),
    )
    assert client.data_to_send() == init
    assert client.receive_data(OUTCOME_OK) == [SaslOutcome(0)]
    open_ = frame(
        0, described(0x10, list8(3, str8(b"probe-1") + str8(b"broker.example") + b"\x70\x00\x02\x00\x00"))
    )
    assert client.data_to_send() == AMQP_HEADER + open_
    events = client.receive_data(AMQP_HEADER + BROKER_OPEN + REDIRECT_CLOSE)
    assert [type(e) for e in events] == [ProtocolHeaderReceived, OpenReceived, CloseReceived]
    assert events[1].container_id == ""
    assert events[1].properties == {Symbol("amqp:connection-establishment-failed"): True}
    error = events[2].error
    assert error.condition == "amqp:connection:redirect"
    assert error.description.endswith("to broker2.example:61617")
    assert error.info == {"network-host": "broker2.example", "port": 61617}
    assert type(error.info[Symbol("port")]) is Int
    assert client.close() == frame(0, described(0x18, b"\x45"))


def test_client_reports_a_failed_outcome_and_a_missing_mechanism():
    client = AmqpClient("c", mechanism="ANONYMOUS")
    client.initiate()
    client.receive_data(SASL_HEADER + MECHANISMS_FRAME)
    assert client.data_to_send() == frame(1, described(0x41, list8(1, sym8(b"ANONYMOUS"))))
    assert client.receive_data(OUTCOME_AUTH) == [SaslOutcome(1)]
    assert client.data_to_send() == b""

    only_plain = frame(1, described(0x40, list8(1, sym8(b"PLAIN"))))
    client = AmqpClient("c", mechanism="ANONYMOUS")
    client.initiate()
    with pytest.raises(ProtocolError, match="does not offer SASL ANONYMOUS; it offers PLAIN"):
        client.receive_data(SASL_HEADER + only_plain)


def test_client_without_sasl_sends_header_and_open_at_once():
    client = AmqpClient("c", mechanism=None)
    assert client.initiate() == AMQP_HEADER + frame(
        0, described(0x10, list8(3, str8(b"c") + b"\x40\x70\x00\x02\x00\x00"))
    )
    with pytest.raises(ProtocolError, match="expected b'AMQP"):
        client.receive_data(SASL_HEADER)


def test_client_and_server_talk_to_each_other():
    server = AmqpServer()
    client = AmqpClient("cid", mechanism="PLAIN", username="alice", password="pw")
    to_server = client.initiate()
    server_events: list = []
    client_events: list = []
    for _ in range(10):
        server_events += server.receive_data(to_server)
        to_client = server.data_to_send()
        for event in server_events:
            if isinstance(event, SaslInit) and server.state.name == "SASL_AWAIT_DECISION":
                to_client += server.sasl_outcome(True)
                server_events += server.receive_data(b"")
            if isinstance(event, OpenReceived) and server.state.name == "OPEN_RECEIVED":
                to_client += server.refuse("r", "REFUSED_UNAVAILABLE")
        client_events += client.receive_data(to_client)
        to_server = client.data_to_send()
        if not to_server and not to_client:
            break
    [opened] = [e for e in server_events if isinstance(e, OpenReceived)]
    assert opened.container_id == "cid"
    [close] = [e for e in client_events if isinstance(e, CloseReceived)]
    assert close.error == ErrorCondition("amqp:connection:forced", "Connection router r is not ready", None)


def test_many_heartbeats_in_one_chunk_are_skipped_without_recursion():
    heartbeats = frame(0, b"") * 20_000  # far more than Python's recursion limit
    server = AmqpServer()
    server.receive_data(AMQP_HEADER)
    assert [type(e) for e in server.receive_data(heartbeats + JMS_OPEN)] == [OpenReceived]
    client = AmqpClient("c", mechanism=None)
    client.initiate()
    client.receive_data(AMQP_HEADER + BROKER_OPEN)
    assert client.receive_data(heartbeats + REDIRECT_CLOSE)[0].error.condition == "amqp:connection:redirect"
