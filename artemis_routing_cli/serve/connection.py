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
from ..protocols.detect import FALLBACK_PROTOCOL, detect_protocol, is_http, need_more
from ..routing.keys import java_socket_address
from . import amqp_session, core_session, mqtt_session, openwire_session
from .conn import ConnIO, Env, HandshakeTimeout, Oversize
from .listeners import ListenerSpec

Session = Callable[[ConnIO, bytes, Env], Awaitable[None]]

SESSIONS: dict[str, Session] = {
    "AMQP": amqp_session.run,
    "CORE": core_session.run,
    "MQTT": mqtt_session.run,
    "OPENWIRE": openwire_session.run,
}


@dataclass
class Limits:
    handshake_timeout: float  # seconds
    max_frame_size: int  # bytes a client may send before the routing answer
    max_connections: int
    linger: float  # seconds a socket may stay open after the answer


def peer_address(name: object) -> str:
    """The transport's ``peername`` as Java prints a socket address (``/10.0.0.1:5000``)."""
    if isinstance(name, tuple) and len(name) >= 2:
        host = name[0]
        if len(name) == 2:  # AF_INET: the kernel's dotted quad is already what Java prints
            return f"/{host}:{name[1]}"
        return java_socket_address(str(host), int(name[1]))
    return str(name)


async def serve_connection(io: ConnIO, env: Env, spec: ListenerSpec) -> None:
    """One connection's life after the accept, run by :mod:`.driver`: detect the protocol, hand
    over to its session, and turn every way it can end badly into a log line and a metric. The
    driver closes the socket when this returns."""
    protocol = "unknown"
    metrics = env.metrics
    try:
        head = b""
        while need_more(head):
            data = await io.read()
            if not data:
                return  # closed before saying anything a protocol could be detected from
            head += data
        detected = detect_protocol(head)
        if detected is None:
            if is_http(head):
                _drop(env, spec, "http", "HTTP is not served on a redirecting acceptor", protocol)
                return
            detected = FALLBACK_PROTOCOL  # the broker serves unknown bytes as CORE
        protocol = detected
        metrics.inc("arouter_connections_total", listener=spec.name, protocol=protocol)
        if not spec.allows(protocol):
            shown = ",".join(spec.protocols or ())
            _drop(env, spec, "protocol_not_allowed", f"{protocol} is not in the acceptor's protocols={shown}",
                  protocol)
            return
        session = SESSIONS.get(protocol)
        if session is None:
            _drop(env, spec, "no_redirect", f"{protocol} has no connection-router redirect in the broker", protocol)
            return
        await session(io, head, env)  # returns when the broker would close (CORE: when the client does)
    except HandshakeTimeout:
        if not io.answered:
            _drop(env, spec, "timeout", "no routing decision before the handshake timeout", protocol)
    except asyncio.CancelledError:
        if not io.expired:
            raise
        if not io.answered:  # the deadline passed while the session waited (quorum, cache commit)
            _drop(env, spec, "timeout", "no routing decision before the handshake timeout", protocol)
    except Oversize as exc:
        _drop(env, spec, "oversize", str(exc), protocol)
    except ProtocolError as exc:
        _drop(env, spec, "malformed", str(exc), protocol)
    except (ConnectionError, ssl.SSLError, OSError):
        if not io.answered:
            metrics.inc("arouter_handshake_errors_total", listener=spec.name, reason="connection_lost")


def _drop(env: Env, spec: ListenerSpec, reason: str, text: str, protocol: str) -> None:
    env.metrics.inc("arouter_handshake_errors_total", listener=spec.name, reason=reason)
    env.log.warning("closed", f"{env.peer.remote_address} [{protocol}, {spec.name}]: {text}: connection closed",
                    remote=env.peer.remote_address, listener=spec.name, protocol=protocol, reason=reason)
