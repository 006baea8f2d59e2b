"""The WebSocket codec against real RFC 6455 clients over real sockets on 127.0.0.1.

Peers: the ``websockets`` library (asyncio client; it offers permessage-deflate, which the broker
does not negotiate) and paho-mqtt's own WebSocket transport carrying MQTT 5, redirected by
MqttServer inside the WebSocket exactly as the broker does: detect the inner protocol on the frame
payloads, answer with one CONNACK framed by ``send_data()``, then close TCP without a close frame.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Awaitable, Callable

import pytest

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.detect import NEEDED, detect_protocol
from artemis_routing_cli.protocols.mqtt import ConnectReceived, MqttServer
from artemis_routing_cli.protocols.websocket import (
    CloseReceived,
    DataReceived,
    HttpRefused,
    PingReceived,
    Upgraded,
    WebSocketServer,
)
from tests.real_clients import import_peer

websockets = pytest.importorskip("websockets", reason="websockets is not installed (pip install -e '.[test]')")
from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosedError  # noqa: E402

pytestmark = pytest.mark.network

#: Guard against a hung peer, not a synchronisation device: a passing test never waits for it.
HANG_GUARD_SECONDS = 20

#: What on_data returns: bytes to write (already framed), and whether to close TCP afterwards.
Answer = tuple[bytes, bool]


class OneShotWebSocketListener:
    """Serves one connection with WebSocketServer in a thread, as serve/ would: write what each event
    carries, close after HttpRefused/CloseReceived, close without a word on ProtocolError."""

    def __init__(self, ws: WebSocketServer, on_data: Callable[[WebSocketServer, bytes], Answer]) -> None:
        self.ws = ws
        self.on_data = on_data
        self.events: list[object] = []
        self.error: BaseException | None = None
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.sock.settimeout(HANG_GUARD_SECONDS)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            conn, _ = self.sock.accept()
            with conn:
                conn.settimeout(HANG_GUARD_SECONDS)
                self._serve(conn)
        except BaseException as exc:  # reported by the test through join()
            self.error = exc
        finally:
            self.sock.close()

    def _serve(self, conn: socket.socket) -> None:
        while True:
            data = conn.recv(65536)
            if not data:
                return
            try:
                events = self.ws.receive_data(data)
            except ProtocolError as exc:
                self.events.append(exc)
                return  # the broker closes without a close frame
            for event in events:
                self.events.append(event)
                if isinstance(event, (Upgraded, HttpRefused)):
                    conn.sendall(event.response)
                    if isinstance(event, HttpRefused):
                        return
                elif isinstance(event, (PingReceived, CloseReceived)):
                    conn.sendall(event.reply)
                    if isinstance(event, CloseReceived):
                        return
                elif isinstance(event, DataReceived):
                    reply, close = self.on_data(self.ws, event.data)
                    conn.sendall(reply)
                    if close:
                        return

    def join(self) -> None:
        self.thread.join(HANG_GUARD_SECONDS)
        assert not self.thread.is_alive()
        if self.error is not None:
            raise self.error


def echo(ws: WebSocketServer, data: bytes) -> Answer:
    return ws.send_data(data), False


def run_client(listener: OneShotWebSocketListener, body: Callable[..., Awaitable[object]], **options: object) -> object:
    async def main() -> object:
        async with connect(f"ws://127.0.0.1:{listener.port}/", open_timeout=HANG_GUARD_SECONDS,
                           close_timeout=HANG_GUARD_SECONDS, **options) as ws:
            return await asyncio.wait_for(body(ws), HANG_GUARD_SECONDS)

    try:
        return asyncio.run(main())
    finally:
        listener.join()


# --- the websockets library -----------------------------------------------------------------


def test_handshake_subprotocol_and_binary_echo():
    listener = OneShotWebSocketListener(WebSocketServer(), echo)

    async def body(ws):
        await ws.send(b"AMQP\x00\x01\x00\x00")
        return ws.subprotocol, ws.protocol.extensions, await ws.recv()

    subprotocol, extensions, answer = run_client(listener, body, subprotocols=["chat", "amqp", "mqtt"])
    assert subprotocol == "amqp"  # the client's first one the broker knows
    assert extensions == []  # the client offered permessage-deflate; the broker (by default) does not
    assert answer == b"AMQP\x00\x01\x00\x00"
    upgraded = listener.events[0]
    assert isinstance(upgraded, Upgraded)
    assert "permessage-deflate" in (upgraded.request.get("sec-websocket-extensions") or "")


def test_no_common_subprotocol_still_connects():
    listener = OneShotWebSocketListener(WebSocketServer(["mqtt"]), echo)

    async def body(ws):
        await ws.send(b"x")
        return ws.subprotocol, await ws.recv()

    assert run_client(listener, body, subprotocols=["chat"]) == (None, b"x")


def test_fragments_both_ways():
    """The client fragments its message into 1000-byte frames; the broker answers one 5000-byte
    write, which it splits into a binary frame and continuations; the client reassembles both."""
    received = bytearray()

    def collect(ws: WebSocketServer, data: bytes) -> Answer:
        received.extend(data)
        return (ws.send_data(bytes(received[::-1])), False) if len(received) == 5000 else (b"", False)

    listener = OneShotWebSocketListener(WebSocketServer(max_frame_payload_length=1000), collect)
    message = bytes(range(250)) * 20

    async def body(ws):
        await ws.send([message[i : i + 1000] for i in range(0, 5000, 1000)])
        return await ws.recv()

    assert run_client(listener, body) == message[::-1]
    assert bytes(received) == message


def test_ping_is_answered_with_pong():
    listener = OneShotWebSocketListener(WebSocketServer(), echo)

    async def body(ws):
        waiter = await ws.ping(b"are you there")
        await waiter  # resolved by the server's pong
        return True

    assert run_client(listener, body)
    assert any(isinstance(e, PingReceived) and e.payload == b"are you there" for e in listener.events)


def test_close_handshake_echoes_code_and_reason():
    listener = OneShotWebSocketListener(WebSocketServer(), echo)

    async def body(ws):
        await ws.close(1000, "done")
        return ws.close_code, ws.close_reason

    assert run_client(listener, body) == (1000, "done")
    assert listener.events[-1] == CloseReceived(1000, "done", listener.events[-1].reply)


def test_oversized_frame_drops_the_connection_without_close_frame():
    listener = OneShotWebSocketListener(WebSocketServer(), echo)

    async def body(ws):
        await ws.send(bytes(65537))
        with pytest.raises(ConnectionClosedError) as caught:
            await ws.recv()
        return caught.value

    closed = run_client(listener, body)
    assert closed.rcvd is None  # no close frame came back: TCP just closed (code 1006)
    assert isinstance(listener.events[-1], ProtocolError)


def test_text_encoder_type():
    listener = OneShotWebSocketListener(WebSocketServer(encoder_type="text"), echo)

    async def body(ws):
        await ws.send("h\u00e9llo")
        return await ws.recv()

    assert run_client(listener, body) == "h\u00e9llo"  # a text frame comes back, so a str


# --- paho-mqtt over WebSocket, redirected -----------------------------------------------------


def test_paho_mqtt5_over_websocket_is_redirected():
    mqtt = import_peer("paho.mqtt.client", "paho-mqtt")
    from paho.mqtt.enums import CallbackAPIVersion

    stream = bytearray()
    inner: dict[str, object] = {}

    def mqtt_inside(ws: WebSocketServer, data: bytes) -> Answer:
        """The second protocol detection runs on frame payloads, then the MQTT codec takes over."""
        stream.extend(data)
        if "codec" not in inner:
            if len(stream) < NEEDED:
                return b"", False
            inner["protocol"] = detect_protocol(bytes(stream))
            inner["codec"] = MqttServer()
            data = bytes(stream)
        codec = inner["codec"]
        assert isinstance(codec, MqttServer)
        for event in codec.receive_data(data):
            if isinstance(event, ConnectReceived):
                inner["connect"] = event
                return ws.send_data(codec.redirect("broker2.example", 1884)), True
        return b"", False

    listener = OneShotWebSocketListener(WebSocketServer(), mqtt_inside)
    result: list = []
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="paho-ws", protocol=mqtt.MQTTv5,
                         transport="websockets")
    client.ws_set_options(path="/mqtt")

    def on_connect(_client, _userdata, _flags, reason_code, properties):
        result.append((reason_code, properties))

    client.on_connect = on_connect
    client.connect("127.0.0.1", listener.port, keepalive=30)
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while not result and time.monotonic() < deadline:
        client.loop(timeout=0.5)  # returns as soon as the socket has something to read
    client.disconnect()
    listener.join()
    assert result, "paho never saw a CONNACK"
    reason, properties = result[0]
    assert reason.value == 0x9C
    assert properties.ServerReference == "broker2.example:1884"
    upgraded = listener.events[0]
    assert isinstance(upgraded, Upgraded)
    assert (upgraded.subprotocol, upgraded.request.target) == ("mqtt", "/mqtt")
    assert inner["protocol"] == "MQTT"
    connect_event = inner["connect"]
    assert isinstance(connect_event, ConnectReceived)
    assert connect_event.client_id == "paho-ws"
