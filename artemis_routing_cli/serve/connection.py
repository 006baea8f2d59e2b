"""One accepted connection: wait for the first bytes, detect the protocol as the broker's
acceptor does, honour the acceptor's ``protocols=``, hand over to the protocol session, and
close this connection only - with a log line - on a timeout, an oversize or malformed frame.
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
from .decide import Peer
from .listeners import ListenerSpec
from .tls import sni_host

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


def peer_address(writer: asyncio.StreamWriter) -> str:
    name = writer.get_extra_info("peername")
    if isinstance(name, tuple) and len(name) >= 2:
        host = name[0]
        if len(name) == 2:  # AF_INET: the kernel's dotted quad is already what Java prints
            return f"/{host}:{name[1]}"
        return java_socket_address(str(host), int(name[1]))
    return str(name)


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, spec: ListenerSpec,
                 make_env: Callable[[Peer], Env], limits: Limits, open_count: Callable[[int], int]) -> None:
    """Serve one connection; ``open_count(delta)`` tracks connections open on this listener."""
    peer = Peer(spec.name, peer_address(writer), sni_host(writer.get_extra_info("ssl_object")))
    env = make_env(peer)
    log, metrics = env.log, env.metrics
    now_open = open_count(+1)
    metrics.set("arouter_connections_open", now_open, listener=spec.name)
    allowed = min(limits.max_connections, spec.connections_allowed or limits.max_connections)
    io: ConnIO | None = None
    protocol = "unknown"
    try:
        if now_open > allowed:
            metrics.inc("arouter_handshake_errors_total", listener=spec.name, reason="too_many_connections")
            log.warning("limit", f"{peer.remote_address} [{spec.name}]: {now_open - 1} connections already open "
                                 f"(limit {allowed}): closed", remote=peer.remote_address, listener=spec.name)
            return
        timeout = spec.handshake_timeout or limits.handshake_timeout
        io = ConnIO(reader, writer, timeout, limits.max_frame_size)
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
        if io is None or not io.answered:
            _drop(env, spec, "timeout", "no routing decision before the handshake timeout", protocol)
    except asyncio.CancelledError:
        if io is None or not io.expired:
            raise
        if not io.answered:  # the deadline passed while the session waited (quorum, cache commit)
            _drop(env, spec, "timeout", "no routing decision before the handshake timeout", protocol)
    except Oversize as exc:
        _drop(env, spec, "oversize", str(exc), protocol)
    except ProtocolError as exc:
        _drop(env, spec, "malformed", str(exc), protocol)
    except (ConnectionError, ssl.SSLError, OSError):
        if io is None or not io.answered:
            metrics.inc("arouter_handshake_errors_total", listener=spec.name, reason="connection_lost")
    finally:
        if io is not None:
            io.finish()
        now_open = open_count(-1)
        metrics.set("arouter_connections_open", now_open, listener=spec.name)
        _close(writer)


def _drop(env: Env, spec: ListenerSpec, reason: str, text: str, protocol: str) -> None:
    env.metrics.inc("arouter_handshake_errors_total", listener=spec.name, reason=reason)
    env.log.warning("closed", f"{env.peer.remote_address} [{protocol}, {spec.name}]: {text}: connection closed",
                    remote=env.peer.remote_address, listener=spec.name, protocol=protocol, reason=reason)


def _close(writer: asyncio.StreamWriter) -> None:
    """Close once what is queued has been sent; the transport finishes that on its own, so the
    connection's task does not wait for it."""
    try:
        writer.close()
    except (ConnectionError, OSError, ssl.SSLError, RuntimeError):
        pass
