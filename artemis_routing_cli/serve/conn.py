"""One accepted socket as the protocol sessions see it: bounded reads and what they may use.

Limits (each violation closes this connection only):

* ``deadline``: the whole handshake, up to the routing answer, must finish in time (the
  acceptor's ``handshake-timeout``, 10 s by default in the broker) - a slowloris peer is dropped;
  after the answer the socket lingers at most ``linger`` seconds for the client to close it;
* ``budget``: bytes a client may send before the answer (``--max-frame-size``); the codecs cap
  single frames as well.

Inside a WebSocket (:meth:`ConnIO.start_websocket`) reads return the frames' payload bytes and
every write goes out as one message (``WebSocketServer.send_data``); pings are answered and a
client's close frame echoed (then reads see the end of the stream) as the session reads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Generator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..protocols.websocket import CloseReceived, DataReceived, Event, PingReceived, WebSocketServer
from ..routing.keys import NEWEST_BROKER, java_socket_address
from .amqp_settings import DEFAULT_AMQP, AmqpSettings
from .auth import Authenticator, Identity
from .decide import Decision, Peer, RouterService, route
from .log import ServeLog
from .metrics import Metrics
from .monitor import PoolMonitor


def peer_address(name: object, native: bool = True, broker: tuple[int, int] = NEWEST_BROKER) -> str:
    """The transport's ``peername`` as the broker prints the socket address (``/10.0.0.1:5000``;
    IPv6 as its acceptor's transport prints it, ``native`` or NIO, in Artemis ``broker``: see
    ``java_socket_address``)."""
    if isinstance(name, tuple) and len(name) >= 2:
        host = name[0]
        if len(name) == 2:  # AF_INET: the kernel's dotted quad is already what Java prints
            return f"/{host}:{name[1]}"
        # AF_INET6: (host, port, flowinfo, scope_id) on both loops; the scope is the tuple's number
        # (Python 3.7+ leaves "%scope" out of the host; never trust it to be there or not)
        scope_id = int(name[3]) if len(name) >= 4 else 0
        return java_socket_address(str(host).partition("%")[0], int(name[1]), scope_id, native=native,
                                   broker=broker)
    return str(name)


class Peered(Protocol):
    """A connection as the routing answer needs it: where it comes from."""

    peer: Peer


class HandshakeTimeout(Exception):
    """The peer did not finish in time."""


class Oversize(Exception):
    """The peer sent more than the handshake budget."""


class _WaitForData:
    """What :meth:`ConnIO.read` awaits when nothing is buffered: it hands control back to the
    connection's driver (:mod:`.driver`), which resumes the session when bytes, the end of the
    stream or a timeout arrive. Only that driver runs sessions; an asyncio Task would refuse it."""

    __slots__ = ()

    def __await__(self) -> Generator[object, None, None]:
        yield WAIT_FOR_DATA


WAIT_FOR_DATA = object()  # the marker a session yields to its driver
_WAIT = _WaitForData()


class ConnIO:
    """One connection's reads and writes, fed by its protocol (``feed``/``feed_eof``), and where
    it comes from (``peer``). The driver's protocol object *is* this ConnIO (one object per
    socket): it sets ``transport`` and ``peer`` when the connection is made.

    Reads are bounded by ``budget``: more bytes before the routing answer raise
    :class:`Oversize` (and the socket stops being read as soon as the budget is passed, so a
    client cannot pile data up while its session waits for a pool). Writes are queued and sent in
    one ``transport.write`` before the next read and when the session ends: handshake answers are
    a few hundred bytes and the input that causes them is bounded, so nothing waits for the peer
    to drain. The deadline (``expired``) is kept by the driver.
    """

    __slots__ = ("transport", "peer", "budget", "received", "answered", "expired", "idle_limit", "ws", "_out",
                 "_chunks", "_eof", "_paused", "_ws_data", "_ws_closed", "shut")

    transport: asyncio.Transport
    peer: Peer

    def __init__(self, budget: int | None) -> None:
        self.budget = budget
        self.received = 0
        self.answered = False
        self.expired = False
        self.idle_limit: float | None = None  # after the answer: silence allowed, renewed by every read
        self.ws: WebSocketServer | None = None  # set once the connection is upgraded to WebSocket
        self._out: list[bytes] = []
        self._chunks: list[bytes] = []
        self._eof = False
        self._paused = False
        self.shut = False  # our side of the stream is ended (shut_write)

    # -- the protocol side ------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        self._chunks.append(data)
        self.received += len(data)
        if self.budget is not None and self.received > self.budget and not self._paused:
            self._paused = True
            try:
                self.transport.pause_reading()
            except (RuntimeError, AttributeError):
                pass

    def feed_eof(self) -> None:
        self._eof = True

    @property
    def peer_closed(self) -> bool:
        """The client has closed its side and every byte it sent has been read."""
        return self._eof and not self._chunks

    @property
    def readable(self) -> bool:
        """A read would return at once."""
        return bool(self._chunks) or self._eof

    # -- the session side -------------------------------------------------------------------------
    def read(self) -> Coroutine[Any, Any, bytes]:
        """Await it: the bytes received since the last read (b"" once the client has closed); inside a
        WebSocket the payload bytes of the frames received since. (A plain function handing over the
        coroutine that reads: one coroutine per read, not two.)"""
        if self.ws is not None:
            return self._read_websocket()
        return self._read()

    async def _read(self) -> bytes:
        if self._out:
            self.flush()
        if self.expired:
            raise HandshakeTimeout
        chunks = self._chunks
        if not chunks:
            if not self._eof:
                await _WAIT
            if not chunks:
                return b""
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        chunks.clear()
        if self.budget is not None and self.received > self.budget:
            raise Oversize(f"{self.received} bytes before the routing answer (limit {self.budget})")
        return data

    def write(self, data: bytes) -> None:
        """Queue one write of the protocol (inside a WebSocket: one message, framed as the broker does)."""
        if data:
            self._out.append(data if self.ws is None else self.ws.send_data(data))

    def write_raw(self, data: bytes) -> None:
        """Queue bytes as they are, outside any WebSocket framing (HTTP answers, control frames)."""
        if data:
            self._out.append(data)

    # -- layers under the protocol ---------------------------------------------------------------------
    def start_websocket(self, ws: WebSocketServer, events: list[Event]) -> None:
        """From now on the connection speaks through ``ws`` (upgraded); ``events`` came with the upgrade."""
        self.ws = ws
        self._ws_data: list[bytes] = []
        self._ws_closed = False
        self._ws_events(events)

    def _ws_events(self, events: list[Event]) -> None:
        """What ``WebSocketServerHandler`` does with frames: data on to the protocol, a ping's pong and a
        close's echo out at once (not framed as the protocol's writes)."""
        for event in events:
            if isinstance(event, DataReceived):
                self._ws_data.append(event.data)
            elif isinstance(event, PingReceived):
                self._out.append(event.reply)
            elif isinstance(event, CloseReceived):
                self._out.append(event.reply)  # handshaker.close: the echo, then the channel closes
                self._ws_closed = True
                return

    async def _read_websocket(self) -> bytes:
        ws = self.ws
        assert ws is not None
        while not self._ws_data:
            if self._ws_closed:
                self.flush()
                return b""
            raw = await self._read()
            if not raw:
                return b""
            self._ws_events(ws.receive_data(raw))
        data = self._ws_data[0] if len(self._ws_data) == 1 else b"".join(self._ws_data)
        self._ws_data.clear()
        return data

    def flush(self) -> None:
        out = self._out
        if out:
            if not self.transport.is_closing():
                self.transport.write(out[0] if len(out) == 1 else b"".join(out))
            out.clear()

    def shut_write(self) -> bool:
        """The answer is out and the session over: send what is queued and end our side of the stream
        (a TCP half-close, FIN), so the client reads every byte of the answer and then the end; False
        when the transport cannot half-close (TLS: closing it sends close_notify instead)."""
        if self.shut:
            return True
        self.flush()
        self.budget = None  # from now on the client's bytes are read only to be discarded
        transport = self.transport
        if transport.is_closing() or not transport.can_write_eof():
            return False
        try:
            transport.write_eof()
        except (OSError, RuntimeError):
            return False
        self.shut = True
        return True

    async def discard_until_eof(self) -> None:
        """Read and drop whatever the client still sends (raw bytes, past any WebSocket framing)
        until it closes or the deadline passes: a socket closed with unread bytes in its kernel
        buffer is answered with a TCP reset, and a reset may destroy the answer before the client
        has read it."""
        self._ws_data_clear()
        while await self._read():
            pass

    def _ws_data_clear(self) -> None:
        if self.ws is not None:
            self._ws_data.clear()

    def mark_answered(self, linger: float, idle_limit: float | None = None) -> None:
        """The routing answer is out: from now on the session only waits for the client to go
        away (the driver gives it ``linger`` seconds). With ``idle_limit`` the connection stays as
        long as the client sends something at least that often (CORE: the connection TTL)."""
        self.answered = True
        self.budget = None
        if idle_limit is not None:
            self.idle_limit = idle_limit
        self.flush()
        if self._paused:
            self._paused = False
            try:
                self.transport.resume_reading()
            except (RuntimeError, AttributeError):
                pass


@dataclass
class Env:
    """Everything a protocol session needs besides its connection: one per listener."""

    service: RouterService
    monitor: PoolMonitor
    log: ServeLog
    metrics: Metrics
    auth: Authenticator
    broker_name: str
    linger: float
    max_frame_size: int
    amqp: AmqpSettings = DEFAULT_AMQP  # the acceptor's AMQP answers
    connection_ttl_override: int = -1  # ms, broker.xml's <connection-ttl-override> (-1: none)
    router_name: str = field(init=False)

    def __post_init__(self) -> None:
        self.router_name = self.service.router.name

    @property
    def own_node_id(self) -> str:
        """This broker's node id as CORE and OpenWire clients see it: ``--node-id local=ID``, else
        the one the readiness check read from ``--local-target``, else the stand-in ``local``."""
        return self.service.router.local.node_id

    def route(self, peer: Peer, protocol: str, *, client_id: str | None, username: str | None,
              roles: tuple[str, ...] = ()) -> Coroutine[Any, Any, Decision]:
        """Ask the router (await it): :func:`.decide.route` for this listener's router."""
        return route(self.service, self.monitor, self.log, self.metrics, peer, protocol,
                     client_id=client_id, username=username, roles=roles)

    def identify(self, user: str | None, password: str | bytes | None) -> tuple[bool, Identity | None]:
        """(accepted, identity). Without ``--users-file`` every client is accepted as it claims."""
        secret = password.decode("utf-8", "replace") if isinstance(password, bytes) else password
        identity = self.auth.validate(user, secret)
        if self.auth.enabled and identity is None:
            return False, None
        return True, identity

    def auth_failed(self, peer: Peer, protocol: str, user: str | None, how: str = "") -> None:
        self.metrics.inc("arouter_auth_failures_total", router=self.router_name, protocol=protocol)
        via = f" ({how})" if how else ""
        self.log.warning("auth", f"{peer.remote_address} [{protocol}, {peer.listener}]: user "
                                 f"{user!r}{via} not validated against --users-file: refused",
                         remote=peer.remote_address, protocol=protocol, user=user)
