"""One accepted connection: wait for the first bytes, detect the protocol as the broker's
acceptor does, honour the acceptor's ``protocols=``, hand over to the protocol session, and
close this connection only - with a log line - on a timeout, an oversize or malformed frame.
The socket side (accept, deadline, close, a PROXY header) is :mod:`.driver` and :mod:`.proxy_gate`.

An HTTP request is what the broker's ProtocolHandler makes of it: ``Upgrade: websocket`` is
answered with the handshake (:class:`~..protocols.websocket.WebSocketServer`, the acceptor's
WebSocket settings) and the protocol is detected again inside the WebSocket, from the frames'
payload; any other request gets the broker's answer (403, 426 or nothing) and is closed.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..errors import ProtocolError
from ..protocols.detect import NEEDED, UnexpectedProxyHeader, detect_on_acceptor, need_more
from ..protocols.websocket import HttpRefused, Upgraded, WebSocketServer
from . import amqp_session, core_session, mqtt_session, openwire_session
from .conn import ConnIO, Env, HandshakeTimeout, Oversize, Peered
from .decide import MatchBudgetExceeded
from .listeners import ListenerSpec

Session = Callable[[ConnIO, bytes, Env], Awaitable[None]]

SESSIONS: dict[str, Session] = {
    "AMQP": amqp_session.run,
    "CORE": core_session.run,
    "HORNETQ": core_session.run_hornetq,
    "MQTT": mqtt_session.run,
    "OPENWIRE": openwire_session.run,
}


@dataclass
class Limits:
    handshake_timeout: float  # seconds
    max_frame_size: int  # bytes a client may send before the routing answer
    max_connections: int
    linger: float  # seconds a socket may stay open after the answer


async def serve_connection(io: ConnIO, env: Env, spec: ListenerSpec) -> None:
    """One connection's life after the accept, run by :mod:`.driver`: detect the protocol, hand
    over to its session, and turn every way it can end badly into a log line and a metric. The
    driver closes the socket when this returns."""
    protocol = "unknown"
    try:
        head = await io.read()
        if head and len(head) < NEEDED:  # a whole hello mostly comes in one read: no coroutine more for it
            head = await _first_bytes(io, head)
        if not head:
            return  # closed before saying anything a protocol could be detected from
        detected = detect_on_acceptor(head, spec.protocols)
        if detected is None:  # HTTP: a WebSocket upgrade, or closed with the broker's answer
            protocol = "http"
            if not await _upgrade(io, env, spec, head):
                await _close_cleanly(io)  # a refused request: its answer must not be lost to a reset
                return
            protocol = "websocket"
            head = await _first_bytes(io, b"")
            if not head:
                return
            detected = detect_on_acceptor(head, spec.protocols, http=False)
            assert detected is not None
            env.metrics.websocket_connections.inc(spec.name, detected)
        protocol = detected
        env.metrics.connections.inc(spec.name, protocol)
        if not spec.allows(protocol):
            await _unserved(io, env, spec, protocol)
            return
        session = SESSIONS.get(protocol)
        if session is None:
            drop(io, env, spec, "no_redirect", f"{protocol} has no connection-router redirect in the broker",
                  protocol)
            return
        await session(io, head, env)  # returns when the broker would close (CORE: when the client does)
        await _close_cleanly(io)
    except HandshakeTimeout:
        if not io.answered:
            drop(io, env, spec, "timeout", "no routing decision before the handshake timeout", protocol)
    except asyncio.CancelledError:
        if not io.expired:
            raise
        if not io.answered:  # the deadline passed while the session waited (quorum, cache commit)
            drop(io, env, spec, "timeout", "no routing decision before the handshake timeout", protocol)
    except Oversize as exc:
        drop(io, env, spec, "oversize", str(exc), protocol)
    except UnexpectedProxyHeader:
        # AMQ224152 (proxyProtocolViolation): the acceptor does not expect a PROXY header
        drop(io, env, spec, "proxy_unexpected", "a PROXY protocol header on an acceptor with "
              "proxyProtocolEnabled=false (AMQ224152)", protocol)
    except ProtocolError as exc:
        drop(io, env, spec, "malformed", str(exc), protocol)
    except MatchBudgetExceeded as exc:
        drop(io, env, spec, "regex_budget", str(exc), protocol)
    except (ConnectionError, ssl.SSLError, OSError):
        if not io.answered:
            env.metrics.handshake_errors.inc(spec.name, "connection_lost")


async def _close_cleanly(io: ConnIO) -> None:
    """After the last answer (redirect or refusal): end our side of the stream and read, discarding,
    until the client closes its side or the deadline passes (after an answer ``linger``), then the
    driver closes the socket. Closing at once while the client's own frames (an AMQP Begin and
    Attach sent behind the Open, an MQTT SUBSCRIBE behind the CONNECT) sit unread makes the kernel
    answer with a reset, and the client may lose the answer it had not read yet. Over TLS, where a
    half-close cannot be sent, closing the transport sends close_notify and asyncio's TLS layer
    reads on until the peer answers it."""
    if io.peer_closed:
        return  # the client has closed already: nothing can be left unread
    if not io.shut_write():
        return
    try:
        await io.discard_until_eof()
    except (HandshakeTimeout, ConnectionError, OSError):
        pass


async def _first_bytes(io: ConnIO, head: bytes) -> bytes:
    """What protocol detection needs (``detect.NEEDED`` bytes), after ``head``, or b"" when the client
    closes first."""
    if not head:
        head = await io.read()
    while head and need_more(head):
        data = await io.read()
        if not data:
            return b""
        head += data
    return head


async def _upgrade(io: ConnIO, env: Env, spec: ListenerSpec, head: bytes) -> bool:
    """Read the HTTP request and answer it as the acceptor does: True once upgraded to WebSocket
    (then ``io`` reads and writes through it), False when the connection is to be closed (logged)."""
    settings = spec.websocket
    if settings.encoder_type is None:
        drop(io, env, spec, "websocket", "webSocketEncoderType is not one the broker knows (AMQ229248): "
                                          "the upgrade fails", "http")
        return False
    ws = WebSocketServer(settings.subprotocols, max_frame_payload_length=settings.max_frame_payload_length,
                         encoder_type=settings.encoder_type)
    events = ws.receive_data(head)
    while not events:
        data = await io.read()
        if not data:
            return False
        events = ws.receive_data(data)
    answer = events[0]
    if isinstance(answer, HttpRefused):
        io.write_raw(answer.response)
        status = f"answered {answer.status}" if answer.status is not None else "no answer"
        drop(io, env, spec, "http", f"{answer.reason} ({status})", "http")
        return False
    assert isinstance(answer, Upgraded)
    io.write_raw(answer.response)
    env.metrics.websocket_upgrades.inc(spec.name, answer.subprotocol or "none")
    io.start_websocket(ws, events[1:])
    return True


async def _unserved(io: ConnIO, env: Env, spec: ListenerSpec, protocol: str) -> None:
    """No manager of the acceptor claims the bytes and it does not serve the CORE fallback: the
    broker logs "failed to find a protocol manager" and leaves the connection open, unanswered
    (its handshake timeout ended with the first 8 bytes). So does serve, until the client closes or
    the handshake deadline passes."""
    env.metrics.handshake_errors.inc(spec.name, "protocol_not_allowed")
    remote = io.peer.remote_address
    shown = ",".join(spec.protocols or ())
    env.log.warning("unserved", f"{remote} [{spec.name}]: no manager of protocols={shown} claims the connection "
                                f"and {protocol} is not among them: left open unanswered, as the broker does",
                    remote=remote, listener=spec.name, protocol=protocol, reason="protocol_not_allowed")
    try:
        while await io.read():
            pass
    except HandshakeTimeout:
        pass


def drop(io: Peered, env: Env, spec: ListenerSpec, reason: str, text: str, protocol: str) -> None:
    env.metrics.handshake_errors.inc(spec.name, reason)
    remote = io.peer.remote_address
    env.log.warning("closed", f"{remote} [{protocol}, {spec.name}]: {text}: connection closed",
                    remote=remote, listener=spec.name, protocol=protocol, reason=reason)
