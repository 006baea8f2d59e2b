"""Fuzzing the WebSocket codec: any input raises ProtocolError or nothing, always ends, and never makes
the codec hold more than its limits allow (a line of the request head, or one frame)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.websocket import (
    BINARY,
    CLOSE,
    CONTINUATION,
    MAX_HEADER_SIZE,
    PING,
    PONG,
    TEXT,
    CloseReceived,
    HttpRefused,
    ServerState,
    Upgraded,
    WebSocketServer,
    build_upgrade_request,
    client_frame,
)
from tests.protocols.mutation import mutated

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_PAYLOAD = 300  # small, so that oversized frames are easy to reach
#: Longest incomplete frame the codec may hold: 2 + 8 length bytes + 4 mask bytes + the payload.
MAX_FRAME_HELD = 14 + MAX_PAYLOAD

REQUESTS = [
    build_upgrade_request(subprotocols=["mqtt", "amqp"]),
    build_upgrade_request(version="8", extra_headers=[("Content-Length", "3")]) + b"abc",
    build_upgrade_request(method="PUT"),
    b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
]
FRAMES = b"".join([
    client_frame(BINARY, b"AMQP\x00\x01\x00\x00"),
    client_frame(TEXT, b"a" * 126),
    client_frame(BINARY, b"x", fin=False),
    client_frame(PING, b"ping"),
    client_frame(CONTINUATION, b"y"),
    client_frame(PONG, b""),
    client_frame(CLOSE, b"\x03\xe8bye"),
])
STREAMS = [request + FRAMES for request in REQUESTS]


def drive(server: WebSocketServer, data: bytes, cuts: list[int]) -> None:
    """Feed ``data`` in pieces; check the bounds after every piece; stop at a ProtocolError."""
    bounds = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    try:
        for start, end in zip(bounds, bounds[1:], strict=False):
            events = server.receive_data(data[start:end])
            if server.state in (ServerState.HANDSHAKE, ServerState.BODY):
                assert server.buffered <= MAX_HEADER_SIZE
            else:
                assert server.buffered <= MAX_FRAME_HELD
            for event in events:
                if isinstance(event, (HttpRefused, CloseReceived)):
                    assert server.state is ServerState.CLOSED
                if isinstance(event, Upgraded):
                    server.send_data(b"answer")
    except ProtocolError:
        assert server.state is ServerState.FAILED
        assert server.buffered == 0


def upgraded_server() -> WebSocketServer:
    server = WebSocketServer(max_frame_payload_length=MAX_PAYLOAD)
    server.receive_data(build_upgrade_request())
    assert server.state is ServerState.OPEN
    return server


@FUZZ
@given(st.binary(max_size=400), st.lists(st.integers(0, 400), max_size=4))
def test_random_frames_after_the_handshake(data, cuts):
    drive(upgraded_server(), data, cuts)


@FUZZ
@given(st.binary(max_size=200), st.lists(st.integers(0, 300), max_size=4))
def test_random_masked_looking_frames(data, cuts):
    # second byte with the mask bit set, so that fuzzing gets past the first check more often
    drive(upgraded_server(), b"\x82\xfe" + data, cuts)
    drive(upgraded_server(), b"\x02\xff" + data, cuts)


@FUZZ
@given(mutated(STREAMS), st.lists(st.integers(0, 2000), max_size=5))
def test_mutated_requests_and_frames(data, cuts):
    drive(WebSocketServer(max_frame_payload_length=MAX_PAYLOAD), data, cuts)


@FUZZ
@given(st.binary(max_size=600), st.lists(st.integers(0, 600), max_size=4))
def test_random_request_heads(data, cuts):
    drive(WebSocketServer(max_frame_payload_length=MAX_PAYLOAD), b"GET / HTTP/1.1\r\n" + data, cuts)


@FUZZ
@given(st.integers(1, 3), st.binary(min_size=1, max_size=40))
def test_endless_header_lines_stay_bounded(repeat, line):
    server = WebSocketServer()
    try:
        server.receive_data(b"GET / HTTP/1.1\r\n")
        for _ in range(MAX_HEADER_SIZE):
            server.receive_data((b"A:" + line.replace(b"\n", b"") + b"\r\n") * repeat)
            assert server.buffered <= MAX_HEADER_SIZE
    except ProtocolError:
        return


def test_unmutated_streams_are_valid():
    for stream, expected in zip(STREAMS, [Upgraded, Upgraded, HttpRefused, HttpRefused], strict=True):
        events = WebSocketServer().receive_data(stream)
        assert isinstance(events[0], expected)
