"""One accepted connection: wait for the first bytes, detect the protocol as the broker's
acceptor does, honour the acceptor's ``protocols=``, hand over to the protocol session, and
close this connection only - with a log line - on a timeout, an oversize or malformed frame.
The socket side (accept, deadline, close) is :mod:`.driver`.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..errors import ProtocolError
from ..protocols.detect import detect_on_acceptor, need_more
from . import amqp_session, core_session, mqtt_session, openwire_session
from .conn import ConnIO, Env, HandshakeTimeout, Oversize
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
        if not head:
            return  # closed before saying anything a protocol could be detected from
        while need_more(head):
            data = await io.read()
            if not data:
                return
            head += data
        detected = detect_on_acceptor(head, spec.protocols)
        if detected is None:
            _drop(io, env, spec, "http", "HTTP is not served on a redirecting acceptor", protocol)
            return
        protocol = detected
        env.metrics.connections.inc(spec.name, protocol)
        if not spec.allows(protocol):
            await _unserved(io, env, spec, protocol)
            return
        session = SESSIONS.get(protocol)
        if session is None:
            _drop(io, env, spec, "no_redirect", f"{protocol} has no connection-router redirect in the broker",
                  protocol)
            return
        await session(io, head, env)  # returns when the broker would close (CORE: when the client does)
    except HandshakeTimeout:
        if not io.answered:
            _drop(io, env, spec, "timeout", "no routing decision before the handshake timeout", protocol)
    except asyncio.CancelledError:
        if not io.expired:
            raise
        if not io.answered:  # the deadline passed while the session waited (quorum, cache commit)
            _drop(io, env, spec, "timeout", "no routing decision before the handshake timeout", protocol)
    except Oversize as exc:
        _drop(io, env, spec, "oversize", str(exc), protocol)
    except ProtocolError as exc:
        _drop(io, env, spec, "malformed", str(exc), protocol)
    except (ConnectionError, ssl.SSLError, OSError):
        if not io.answered:
            env.metrics.handshake_errors.inc(spec.name, "connection_lost")


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


def _drop(io: ConnIO, env: Env, spec: ListenerSpec, reason: str, text: str, protocol: str) -> None:
    env.metrics.handshake_errors.inc(spec.name, reason)
    remote = io.peer.remote_address
    env.log.warning("closed", f"{remote} [{protocol}, {spec.name}]: {text}: connection closed",
                    remote=remote, listener=spec.name, protocol=protocol, reason=reason)
