"""Byte-level tests of the WebSocket codec: RFC 6455's own examples, then the broker's (Netty's) checks."""

from __future__ import annotations

import struct

import pytest

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.websocket import (
    BINARY,
    CLOSE,
    CONTINUATION,
    DEFAULT_MAX_FRAME_PAYLOAD_LENGTH,
    MAX_HEADER_SIZE,
    MAX_REQUEST_LINE,
    PING,
    PONG,
    TEXT,
    CloseReceived,
    DataReceived,
    Frame,
    HttpRefused,
    PingReceived,
    ServerState,
    Upgraded,
    WebSocketServer,
    accept_key,
    broker_subprotocols,
    build_upgrade_request,
    client_frame,
    encode_frame,
    parse_frames,
)

# RFC 6455 section 1.2, the client's handshake, verbatim (header order and spelling kept)
RFC_REQUEST = (
    b"GET /chat HTTP/1.1\r\n"
    b"Host: server.example.com\r\n"
    b"Upgrade: websocket\r\n"
    b"Connection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    b"Origin: http://example.com\r\n"
    b"Sec-WebSocket-Protocol: chat, superchat\r\n"
    b"Sec-WebSocket-Version: 13\r\n"
    b"\r\n"
)
RFC_MASK = bytes.fromhex("37fa213d")  # RFC 6455 section 5.7


def opened(server: WebSocketServer | None = None, request: bytes | None = None) -> WebSocketServer:
    server = server or WebSocketServer()
    [event] = server.receive_data(request or build_upgrade_request())
    assert isinstance(event, Upgraded)
    assert server.state is ServerState.OPEN
    return server


def data_of(events: list) -> bytes:
    return b"".join(e.data for e in events if isinstance(e, DataReceived))


# --- handshake ------------------------------------------------------------------------------


def test_accept_key_is_the_rfc_example():
    assert accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="


def test_rfc_handshake_gets_nettys_exact_101():
    server = WebSocketServer(["chat"])
    [event] = server.receive_data(RFC_REQUEST)
    assert isinstance(event, Upgraded)
    assert event.subprotocol == "chat"
    assert event.request.target == "/chat"
    assert event.request.get("ORIGIN") == "http://example.com"
    # Netty's HttpResponseEncoder: lower-case names, in the order WebSocketServerHandshaker13 sets them
    assert event.response == (
        b"HTTP/1.1 101 Switching Protocols\r\n"
        b"upgrade: websocket\r\n"
        b"connection: upgrade\r\n"
        b"sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
        b"sec-websocket-protocol: chat\r\n"
        b"\r\n"
    )


def test_no_subprotocol_in_common_is_not_an_error():
    [event] = WebSocketServer().receive_data(RFC_REQUEST)  # the broker knows no "chat"
    assert isinstance(event, Upgraded)
    assert event.subprotocol is None
    assert b"sec-websocket-protocol" not in event.response


@pytest.mark.parametrize(
    ("offered", "registered", "chosen"),
    [
        ("v12.stomp, mqtt", broker_subprotocols(["MQTT", "STOMP"]), "v12.stomp"),  # the client's order wins
        ("mqtt,v12.stomp", broker_subprotocols(["MQTT", "STOMP"]), "mqtt"),
        ("foo,  amqp  ", broker_subprotocols(["AMQP"]), "amqp"),  # trimmed
        ("MQTT", broker_subprotocols(["MQTT"]), None),  # case-sensitive
        ("mqtt", broker_subprotocols(["CORE", "OPENWIRE"]), None),  # those register none
        ("anything", ("*",), "anything"),  # Netty's wildcard
        ("mqttv3.1", broker_subprotocols(["mqtt"]), "mqttv3.1"),
    ],
)
def test_subprotocol_selection(offered, registered, chosen):
    request = build_upgrade_request(extra_headers=[("Sec-WebSocket-Protocol", offered)])
    [event] = WebSocketServer(registered).receive_data(request)
    assert isinstance(event, Upgraded)
    assert event.subprotocol == chosen


def test_only_the_first_subprotocol_header_counts():
    request = build_upgrade_request(subprotocols=["foo"], extra_headers=[("Sec-WebSocket-Protocol", "mqtt")])
    [event] = WebSocketServer().receive_data(request)
    assert event.subprotocol is None


def test_broker_subprotocols_per_protocol():
    assert broker_subprotocols(["AMQP", "CORE"]) == ("amqp",)
    assert set(broker_subprotocols(["AMQP", "MQTT", "STOMP", "OPENWIRE", "CORE"])) == {
        "amqp", "mqtt", "mqttv3.1", "v10.stomp", "v11.stomp", "v12.stomp"}


def test_key_with_non_ascii_chars_hashes_them_as_question_marks():
    request = build_upgrade_request(key="k\xe9y")
    [event] = WebSocketServer().receive_data(request)
    assert f"sec-websocket-accept: {accept_key('k?y')}".encode() in event.response


@pytest.mark.parametrize("version", ["8", "7"])
def test_hybi_drafts_8_and_7_need_no_connection_header(version):
    request = build_upgrade_request(version=version).replace(b"Connection: Upgrade\r\n", b"")
    [event] = WebSocketServer().receive_data(request)
    assert isinstance(event, Upgraded)


def test_version_13_needs_the_upgrade_token_in_connection():
    request = build_upgrade_request().replace(b"Connection: Upgrade", b"Connection: keep-alive")
    with pytest.raises(ProtocolError, match="Connection"):
        WebSocketServer().receive_data(request)
    ok = build_upgrade_request().replace(b"Connection: Upgrade", b"Connection: keep-alive, UPGRADE")
    assert isinstance(WebSocketServer().receive_data(ok)[0], Upgraded)


def test_missing_key_closes_without_answer():
    request = build_upgrade_request().replace(b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n", b"")
    with pytest.raises(ProtocolError, match="Key"):
        WebSocketServer().receive_data(request)


def test_upgrade_value_any_case():
    [event] = WebSocketServer().receive_data(build_upgrade_request(upgrade="WebSocket"))
    assert isinstance(event, Upgraded)


# --- what is not a WebSocket ----------------------------------------------------------------


def refused(request: bytes) -> HttpRefused:
    server = WebSocketServer()
    [event] = server.receive_data(request)
    assert isinstance(event, HttpRefused)
    assert server.state is ServerState.CLOSED
    assert server.receive_data(b"more") == []
    return event


def test_activemq_remoting_upgrade_is_forbidden_bare():
    event = refused(build_upgrade_request(upgrade="ActiveMQ-Remoting"))
    assert (event.status, event.response) == (403, b"HTTP/1.1 403 Forbidden\r\n\r\n")


@pytest.mark.parametrize("method", ["PUT", "HEAD", "OPTIONS", "PATCH", "DELETE", "TRACE"])
def test_websocket_upgrade_with_another_method_gets_the_403_page(method):
    event = refused(build_upgrade_request(method=method))
    assert event.status == 403
    assert event.response == b"HTTP/1.1 403 Forbidden\r\ncontent-length: 13\r\n\r\n403 Forbidden"


def test_post_belongs_to_the_http_transport():
    event = refused(build_upgrade_request(method="POST"))
    assert (event.status, event.response) == (None, b"")
    assert "POST" in event.reason


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        build_upgrade_request(upgrade="h2c"),
        b"GET /index.html HTTP/1.0\r\n\r\n",
    ],
)
def test_plain_http_gets_no_answer(request_bytes):
    event = refused(request_bytes)
    assert (event.status, event.response) == (None, b"")


def test_unknown_version_gets_426():
    event = refused(build_upgrade_request(version="12"))
    assert event.status == 426
    assert event.response == (
        b"HTTP/1.1 426 Upgrade Required\r\nsec-websocket-version: 13\r\ncontent-length: 0\r\n\r\n"
    )


def test_no_version_is_draft_76_which_we_do_not_speak():
    event = refused(build_upgrade_request(version=None))
    assert event.response == b""
    assert "draft-76" in event.reason


# --- the request head -----------------------------------------------------------------------


def test_request_fed_byte_by_byte_with_frames_behind_it():
    stream = build_upgrade_request() + client_frame(BINARY, b"AMQP\x00\x01\x00\x00") + client_frame(PING, b"p")
    server = WebSocketServer()
    events = []
    for i in range(len(stream)):
        events += server.receive_data(stream[i : i + 1])
        assert server.buffered <= len(stream)
    assert isinstance(events[0], Upgraded)
    assert data_of(events) == b"AMQP\x00\x01\x00\x00"
    assert isinstance(events[-1], PingReceived)


def test_frames_in_the_same_segment_as_the_request():
    server = WebSocketServer()
    events = server.receive_data(build_upgrade_request() + client_frame(BINARY, b"ARTEMIS"))
    assert isinstance(events[0], Upgraded)
    assert events[1:] == [DataReceived(b"ARTEMIS")]


def test_request_line_limit():
    line = b"GET /" + b"a" * (MAX_REQUEST_LINE - len(b"GET / HTTP/1.1")) + b" HTTP/1.1"
    assert len(line) == MAX_REQUEST_LINE
    ok = line + b"\r\n" + build_upgrade_request().split(b"\r\n", 1)[1]
    assert isinstance(WebSocketServer().receive_data(ok)[0], Upgraded)
    with pytest.raises(ProtocolError, match="request line"):
        WebSocketServer().receive_data(line.replace(b"GET /", b"GET /a") + b"\r\n\r\n")


def test_request_line_limit_without_line_end_bounds_the_buffer():
    server = WebSocketServer()
    server.receive_data(b"GET /" + b"a" * (MAX_REQUEST_LINE - 5))
    assert server.buffered == MAX_REQUEST_LINE
    with pytest.raises(ProtocolError):
        server.receive_data(b"a")


def test_header_size_limit_counts_all_header_lines():
    base = build_upgrade_request()
    head_lines = base.split(b"\r\n")[1:-2]
    used = sum(len(x) for x in head_lines)
    filler = b"X-Pad: " + b"p" * (MAX_HEADER_SIZE - used - len(b"X-Pad: "))
    fits = base[:-2] + filler + b"\r\n\r\n"
    assert isinstance(WebSocketServer().receive_data(fits)[0], Upgraded)
    with pytest.raises(ProtocolError, match="header"):
        WebSocketServer().receive_data(base[:-2] + filler + b"p\r\n\r\n")


def test_many_small_headers_hit_the_same_limit():
    server = WebSocketServer()
    server.receive_data(b"GET / HTTP/1.1\r\n")
    with pytest.raises(ProtocolError):
        for _ in range(MAX_HEADER_SIZE):
            server.receive_data(b"A:b\r\n")
            assert server.buffered <= MAX_HEADER_SIZE


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        (b"GET / HTTP/1.1\nUpgrade: websocket\n\n", "lone LF"),
        (b"GET / HTTP/1.1\r\nNoColonHere\r\n\r\n", "colon"),
        (b"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", "token"),
        (b"GET / HTTP/1.1\r\n: empty\r\n\r\n", "token"),
        (b"GET / HTTP/1.1\r\nX: a\x01b\r\n\r\n", "control"),
        (b"GET /\r\n\r\n", "method, a target and a version"),
        (b"GET / HTTP/x\r\n\r\n", "version"),
        (b"GET / HTTP/1.1 \r\n\r\n", "white-space"),
    ],
)
def test_malformed_heads(bad, match):
    with pytest.raises(ProtocolError, match=match):
        WebSocketServer().receive_data(bad)


def test_leading_line_ends_are_skipped_and_folded_headers_joined():
    request = b"\r\n\r\n" + build_upgrade_request(extra_headers=[("X-Long", "one")])[:-2] + b"\t two\r\n\r\n"
    [event] = WebSocketServer().receive_data(request)
    assert event.request.get("x-long") == "one two"


def test_upgrade_request_body_is_skipped_before_frames():
    request = build_upgrade_request(extra_headers=[("Content-Length", "5")])
    server = WebSocketServer()
    assert server.receive_data(request + b"abc") == []
    assert server.state is ServerState.BODY
    events = server.receive_data(b"de" + client_frame(BINARY, b"MQ"))
    assert isinstance(events[0], Upgraded)
    assert events[1:] == [DataReceived(b"MQ")]


def test_every_answer_waits_for_the_request_body():
    server = WebSocketServer()
    assert server.receive_data(build_upgrade_request(method="PUT", extra_headers=[("Content-Length", "2")])) == []
    [event] = server.receive_data(b"ok")
    assert isinstance(event, HttpRefused)
    assert event.status == 403
    with pytest.raises(RuntimeError):
        server.send_data(b"not a WebSocket")


@pytest.mark.parametrize("headers", [[("Transfer-Encoding", "chunked")], [("Content-Length", "1, 1")],
                                     [("Content-Length", "-1")], [("Content-Length", "1"), ("Content-Length", "1")]])
def test_bodies_we_do_not_read(headers):
    with pytest.raises(ProtocolError):
        WebSocketServer().receive_data(build_upgrade_request(extra_headers=headers))


# --- frames from the client -----------------------------------------------------------------


def test_rfc_masked_hello():
    frame = bytes.fromhex("818537fa213d7f9f4d5158")  # RFC 6455 5.7: masked text "Hello"
    assert client_frame(TEXT, b"Hello", mask=RFC_MASK) == frame
    assert opened().receive_data(frame) == [DataReceived(b"Hello")]


def test_rfc_unmasked_hello_is_refused_from_a_client():
    with pytest.raises(ProtocolError, match="not masked"):
        opened().receive_data(bytes.fromhex("810548656c6c6f"))


def test_rfc_fragmented_hello_masked():
    first = client_frame(TEXT, b"Hel", fin=False)
    last = client_frame(CONTINUATION, b"lo")
    server = opened()
    assert server.receive_data(first + last) == [DataReceived(b"Hello")]  # frames' payloads, in order
    assert server.receive_data(first) == [DataReceived(b"Hel")]  # each frame goes on as it arrives
    assert server.receive_data(last) == [DataReceived(b"lo")]


def test_ping_inside_a_fragmented_message_is_answered():
    server = opened()
    events = server.receive_data(
        client_frame(BINARY, b"a", fin=False) + client_frame(PING, b"Hello") + client_frame(CONTINUATION, b"b")
    )
    assert events[0] == DataReceived(b"a")
    assert isinstance(events[1], PingReceived)
    assert events[1].reply == bytes.fromhex("8a0548656c6c6f")  # RFC 6455 5.7's pong, unmasked
    assert events[2] == DataReceived(b"b")


def test_pong_is_ignored_and_empty_data_frames_add_nothing():
    server = opened()
    assert server.receive_data(client_frame(PONG, b"x") + client_frame(BINARY, b"")) == []


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536])
def test_length_encodings_from_a_client(size):
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    frame = client_frame(BINARY, payload)
    header_len = 2 if size <= 125 else 4 if size <= 65535 else 10
    assert len(frame) == header_len + 4 + size
    events = opened().receive_data(frame)
    assert data_of(events) == payload


def test_larger_max_frame_payload_accepts_64_bit_lengths():
    server = opened(WebSocketServer(max_frame_payload_length=200_000))
    assert data_of(server.receive_data(client_frame(BINARY, b"z" * 70_000))) == b"z" * 70_000


def test_oversized_frame_is_refused_before_its_payload_arrives():
    server = opened()
    head = client_frame(BINARY, b"x" * (DEFAULT_MAX_FRAME_PAYLOAD_LENGTH + 1))[:14]
    with pytest.raises(ProtocolError, match="Max frame length of 65536"):
        server.receive_data(head)
    assert server.state is ServerState.FAILED
    with pytest.raises(ProtocolError):
        server.receive_data(b"")


def masked_raw(b0: int, length_bytes: bytes, payload: bytes = b"") -> bytes:
    """A hand-built masked frame: first byte, the length field as given (with the mask bit set)."""
    return bytes([b0, 0x80 | length_bytes[0]]) + length_bytes[1:] + RFC_MASK + payload


@pytest.mark.parametrize(
    ("frame", "match"),
    [
        (client_frame(BINARY, b"x", rsv=4), "RSV"),  # RSV1 set, e.g. permessage-deflate not negotiated
        (client_frame(BINARY, b"x", rsv=1), "RSV"),
        (client_frame(3, b"x"), "reserved opcode 3"),
        (client_frame(0xB, b"x"), "reserved opcode 11"),
        (client_frame(PING, b"x", fin=False), "fragmented control frame"),
        (masked_raw(0x89, b"\x7e\x00\x7e", b"x" * 126), "payload length > 125"),
        (client_frame(CLOSE, b"\x03"), "payload len 1"),
        (client_frame(CONTINUATION, b"x"), "continuation data frame outside"),
        (client_frame(BINARY, b"x", fin=False) + client_frame(TEXT, b"y"), "non-continuation"),
        (masked_raw(0x82, b"\x7e\x00\x64", b"x" * 100), "minimal length"),
        (masked_raw(0x82, b"\x7f" + struct.pack(">Q", 1000)), "minimal length"),
        (masked_raw(0x82, b"\x7f" + b"\x80" + bytes(7)), "negative length"),
    ],
)
def test_protocol_violations_close_without_a_frame(frame, match):
    with pytest.raises(ProtocolError, match=match):
        opened().receive_data(frame)


def test_violation_is_seen_as_soon_as_two_bytes_are_there():
    with pytest.raises(ProtocolError, match="RSV"):
        opened().receive_data(client_frame(BINARY, b"x" * 300, rsv=2)[:2])


# --- closing --------------------------------------------------------------------------------


def test_close_is_echoed_and_later_bytes_dropped():
    server = opened()
    body = struct.pack(">H", 1000) + b"bye"
    events = server.receive_data(client_frame(CLOSE, body) + client_frame(BINARY, b"late"))
    assert events == [CloseReceived(1000, "bye", encode_frame(CLOSE, body))]
    assert events[0].reply == b"\x88\x05" + body  # unmasked echo of the same code and reason
    assert server.state is ServerState.CLOSED
    assert server.receive_data(client_frame(BINARY, b"later")) == []


def test_empty_close():
    [event] = opened().receive_data(client_frame(CLOSE, b""))
    assert (event.code, event.reason, event.reply) == (None, "", b"\x88\x00")


@pytest.mark.parametrize("code", [1000, 1001, 1002, 1003, 1007, 1014, 3000, 4999, 32767, 32768, 65535])
def test_valid_close_codes(code):
    [event] = opened().receive_data(client_frame(CLOSE, struct.pack(">H", code)))
    assert event.code == code


@pytest.mark.parametrize("code", [0, 999, 1004, 1005, 1006, 1015, 2999])
def test_invalid_close_codes(code):
    with pytest.raises(ProtocolError, match="close frame"):
        opened().receive_data(client_frame(CLOSE, struct.pack(">H", code)))


def test_close_reason_must_be_utf8_but_may_end_unfinished():
    with pytest.raises(ProtocolError, match="UTF-8"):
        opened().receive_data(client_frame(CLOSE, b"\x03\xe8\xff"))
    with pytest.raises(ProtocolError, match="UTF-8"):
        opened().receive_data(client_frame(CLOSE, b"\x03\xe8\xed\xa0\x80"))  # a surrogate
    [event] = opened().receive_data(client_frame(CLOSE, b"\x03\xe8ok\xe2\x82"))  # Utf8Validator without finish()
    assert event.code == 1000


def test_text_frames_are_not_checked_for_utf8():
    assert opened().receive_data(client_frame(TEXT, b"\xff\xfe")) == [DataReceived(b"\xff\xfe")]


# --- frames to the client -------------------------------------------------------------------


def test_rfc_unmasked_examples_from_the_encoder():
    text_server = opened(WebSocketServer(encoder_type="text"))
    assert text_server.send_data(b"Hello") == bytes.fromhex("810548656c6c6f")
    server = opened()
    assert server.send_data(bytes(256))[:4] == bytes.fromhex("827e0100")
    assert server.send_data(bytes(65536))[:10] == bytes.fromhex("827f0000000000010000")
    assert len(server.send_data(bytes(65536))) == 10 + 65536  # exactly the limit: one frame


def test_broker_writes_are_split_at_the_max_payload():
    server = opened(WebSocketServer(max_frame_payload_length=4))
    frames, rest = parse_frames(server.send_data(b"abcdefghij"))
    assert rest == b""
    assert frames == [Frame(BINARY, b"abcd", fin=False), Frame(CONTINUATION, b"efgh", fin=False),
                      Frame(CONTINUATION, b"ij", fin=True)]
    assert parse_frames(server.send_data(b""))[0] == [Frame(BINARY, b"")]


def test_text_encoder_type_starts_messages_as_text():
    server = opened(WebSocketServer(max_frame_payload_length=2, encoder_type="text"))
    frames, _ = parse_frames(server.send_data(b"abc"))
    assert [f.opcode for f in frames] == [TEXT, CONTINUATION]


def test_close_frame_helper_and_guards():
    server = WebSocketServer()
    with pytest.raises(RuntimeError):
        server.send_data(b"x")
    assert server.close(1000, "bye") == b"\x88\x05\x03\xe8bye"
    assert server.close(None) == b"\x88\x00"
    with pytest.raises(ValueError):
        WebSocketServer(encoder_type="Binary")  # valueOfType is case-sensitive


def test_parse_frames_leaves_incomplete_frames():
    data = encode_frame(BINARY, b"abc") + encode_frame(PONG, b"x")[:1]
    frames, rest = parse_frames(data)
    assert frames == [Frame(BINARY, b"abc")]
    assert rest == b"\x8a"
    with pytest.raises(ProtocolError):
        parse_frames(client_frame(BINARY, b"m"))  # a client's frame where a server's was expected
    assert parse_frames(client_frame(PING, b"m"), masked=True)[0] == [Frame(PING, b"m")]
