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


def peer_address(name: object, native: bool = True) -> str:
    """The transport's ``peername`` as the broker prints the socket address (``/10.0.0.1:5000``;
    IPv6 as its acceptor's transport prints it, ``native`` or NIO: see ``java_socket_address``)."""
    if isinstance(name, tuple) and len(name) >= 2:
        host = name[0]
        if len(name) == 2:  # AF_INET: the kernel's dotted quad is already what Java prints
            return f"/{host}:{name[1]}"
        # AF_INET6: (host, port, flowinfo, scope_id) on both loops; the scope is the tuple's number
        # (Python 3.7+ leaves "%scope" out of the host; never trust it to be there or not)
        scope_id = int(name[3]) if len(name) >= 4 else 0
        return java_socket_address(str(host).partition("%")[0], int(name[1]), scope_id, native=native)
    return str(name)


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
        detected = detect_protocol(head)
        if detected is None:
            if is_http(head):
                _drop(io, env, spec, "http", "HTTP is not served on a redirecting acceptor", protocol)
                return
            detected = FALLBACK_PROTOCOL  # the broker serves unknown bytes as CORE
        protocol = detected
        env.metrics.connections.inc(spec.name, protocol)
        if not spec.allows(protocol):
            shown = ",".join(spec.protocols or ())
            _drop(io, env, spec, "protocol_not_allowed", f"{protocol} is not in the acceptor's protocols={shown}",
                  protocol)
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


def _drop(io: ConnIO, env: Env, spec: ListenerSpec, reason: str, text: str, protocol: str) -> None:
    env.metrics.handshake_errors.inc(spec.name, reason)
    remote = io.peer.remote_address
    env.log.warning("closed", f"{remote} [{protocol}, {spec.name}]: {text}: connection closed",
                    remote=remote, listener=spec.name, protocol=protocol, reason=reason)
