"""The asyncio shell of one redirecting listener: a :class:`asyncio.Protocol` per socket that runs
the connection's session coroutine itself, without an asyncio Task.

A redirect is a few hundred bytes in and out: with a Task and stream objects per socket, the
event loop spends more on its own bookkeeping than on the answer. Here the session coroutine
(:func:`.connection.serve_connection`) is stepped straight from ``data_received``: when it needs
bytes it yields :data:`.conn.WAIT_FOR_DATA` and is resumed by the next ``data_received``, so an
MQTT CONNECT is answered within the callback that delivered it. A session that awaits something
else (a pool quorum, a cache commit, OpenWire's delayed stop) yields an asyncio future, and the
driver resumes it when that future is done, as a Task would.

A deadline per connection (kept by the listener's :class:`.deadlines.Deadlines`, one timer for
all) enforces the handshake timeout until the routing answer, then ``linger``. When it passes, a
session waiting for bytes gets :class:`.conn.HandshakeTimeout` and one waiting on a future sees it
cancelled.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Coroutine
from typing import Any

from .conn import WAIT_FOR_DATA, ConnIO, Env, HandshakeTimeout, peer_address
from .connection import Limits, serve_connection
from .deadlines import Deadlines
from .decide import Peer
from .fast import Quick
from .listeners import ListenerSpec
from .tls import sni_host

#: tuple.__new__: a Peer from its four fields without the Python-level __new__ of a NamedTuple
_new_peer = tuple.__new__


class Listener:
    """What every connection of one listener shares."""

    __slots__ = ("spec", "name", "tls", "ssl_context", "native", "broker", "env", "limits", "open", "allowed", "loop",
                 "handshake_timeout", "handshake_deadlines", "linger_deadlines", "idle_deadlines", "scratch", "fast",
                 "answered_at_once", "quick")

    def __init__(self, spec: ListenerSpec, env: Env, limits: Limits, loop: asyncio.AbstractEventLoop,
                 ssl_context: ssl.SSLContext | None = None) -> None:
        self.spec = spec
        self.name = spec.name
        self.tls = spec.tls
        self.ssl_context = ssl_context  # for TLS after a PROXY header (else the server's own TLS)
        self.native = env.service.router.native_transport  # how the broker would print IPv6 peers
        self.broker = env.service.router.broker_version  # ... in this Artemis version
        self.env = env
        self.limits = limits
        self.open = 0
        allowed = spec.connections_allowed  # None: the acceptor sets no limit; 0: it takes none
        self.allowed = limits.max_connections if allowed is None else min(limits.max_connections, allowed)
        self.loop = loop
        self.handshake_timeout = spec.handshake_timeout or limits.handshake_timeout
        self.handshake_deadlines = Deadlines(loop, self.handshake_timeout)
        self.linger_deadlines = Deadlines(loop, limits.linger)
        self.idle_deadlines: dict[float, Deadlines] = {}  # by idle limit (CORE: its connection TTLs)
        self.scratch: bytearray | None = None  # the read buffer all of its PROXY header gates share (proxy_gate)
        # a plain hello that comes whole is answered without a session coroutine (.fast, .fresh); not
        # through TLS (the session reads the handshake's result) nor behind a PROXY header
        self.fast = not spec.tls
        self.answered_at_once = 0  # connections answered that way (tests read it; not a metric)
        self.quick = Quick(spec, env.metrics)  # what the fast path keeps per protocol

    def deadlines_after_answer(self, idle_limit: float | None) -> Deadlines:
        """The queue for a connection's deadline after its answer: ``linger``, or its idle limit."""
        if idle_limit is None:
            return self.linger_deadlines
        deadlines = self.idle_deadlines.get(idle_limit)
        if deadlines is None:
            deadlines = self.idle_deadlines[idle_limit] = Deadlines(self.loop, idle_limit)
        return deadlines

    def open_now(self) -> float:
        """Connections open on this listener (the ``arouter_connections_open`` gauge)."""
        return self.open

    def over_limit(self, remote: str) -> bool:
        """Count a new socket as open; True (logged) when that passes the limit and it must be closed."""
        self.open += 1
        if self.open <= self.allowed:
            return False
        env = self.env
        env.metrics.handshake_errors.inc(self.name, "too_many_connections")
        env.log.warning("limit", f"{remote} [{self.name}]: {self.open - 1} connections already open "
                                 f"(limit {self.allowed}): closed", remote=remote, listener=self.name)
        return True


class RedirectProtocol(ConnIO, asyncio.Protocol):
    """One socket: asyncio's protocol and, for its session, the :class:`.conn.ConnIO` it reads
    and writes through (one object per connection, not two)."""

    __slots__ = ("listener", "proxied", "_coro", "_waiting", "_future", "_deadlines", "_key", "_lingering",
                 "_running", "_made", "_closed")

    def __init__(self, listener: Listener, proxied: tuple[str, str] | None = None) -> None:
        ConnIO.__init__(self, listener.limits.max_frame_size)
        self.listener = listener
        # after a PROXY header (:mod:`.proxy_gate`): the remote address the broker takes from it, and
        # the socket's own peer (the proxy) as Java prints it
        self.proxied = proxied
        self._made = False  # connection_made has run (TLS after a PROXY header may deliver bytes before)
        self._coro: Coroutine[Any, Any, None] | None = None
        self._waiting = False  # the session waits for bytes
        self._future: asyncio.Future[Any] | None = None  # ... or for this future
        self._deadlines: Deadlines | None = None  # the queue that holds this connection's deadline
        self._key: object = self  # what that queue holds it by: itself, or the .fresh socket it took over from
        self._lingering = False
        self._running = False
        self._closed = False

    # -- asyncio.Protocol -------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        listener = self.listener
        self.transport = transport  # type: ignore[assignment]  # uvloop's transports do not subclass asyncio's
        self._made = True
        sni = sni_host(transport.get_extra_info("ssl_object")) if listener.tls else None
        if self.proxied is None:
            name = transport.get_extra_info("peername")
            if type(name) is tuple and len(name) == 2:  # IPv4: peer_address's first case, without the call
                address = f"/{name[0]}:{name[1]}"
            else:
                address = peer_address(name, listener.native, listener.broker)
            peer = _new_peer(Peer, (listener.name, address, sni, None))  # Peer(listener.name, address, sni)
        else:
            peer = Peer(listener.name, self.proxied[0], sni, self.proxied[1])
        self.peer = peer
        listener.open += 1  # Listener.over_limit, without the call when under the limit
        if listener.open > listener.allowed:
            listener.open -= 1
            if listener.over_limit(peer.remote_address):
                self._finish()
                return
        self._deadlines = deadlines = listener.handshake_deadlines
        deadlines.add(self)
        self._start()

    def taken_over(self, transport: asyncio.BaseTransport, peer: Peer, deadlines: Deadlines | None,
                   key: object) -> None:
        """:meth:`connection_made` for a socket a :class:`.fresh.FreshConnection` hands over before its
        first bytes are handled: counted already, its deadline in ``deadlines`` under ``key`` (None:
        passed), and its session starts now."""
        self.transport = transport  # type: ignore[assignment]
        self._made = True
        self.peer = peer
        self._deadlines = deadlines
        self._key = key
        self._start()

    def _start(self) -> None:
        """Start the session coroutine; it runs until it waits for the first bytes."""
        self._coro = serve_connection(self, self.listener.env, self.listener.spec)
        self._step(None)

    def data_received(self, data: bytes) -> None:
        if self._coro is None:
            if not self._made:  # TLS after a PROXY header: bytes before connection_made, kept for the session
                self.feed(data)
            return  # closed
        self.feed(data)
        if self.idle_limit is not None and self._lingering and self._deadlines is not None:
            self._deadlines.discard(self)  # the client is alive: its silence starts again
            self._deadlines.add(self)
        if self._waiting:
            self._step(None)

    def eof_received(self) -> bool:
        if self._coro is not None or not self._made:
            self.feed_eof()
            if self._waiting:
                self._step(None)
        # Keep the write side open: the session closes the socket when it is done. Over TLS a
        # half-close cannot be kept (asyncio warns when asked to), so the transport closes.
        return not self.listener.tls

    def connection_lost(self, exc: Exception | None) -> None:
        if self._closed:
            return  # the session is over (or was answered at once): nothing waits for the stream
        if not self._made:  # lost during the TLS handshake after a PROXY header: the gate reports it
            self._closed = True
            return
        self.feed_eof()
        if self._waiting:
            self._step(None, exc if isinstance(exc, (OSError, ssl.SSLError)) else None)
        if self._coro is None:
            self._finish()

    # -- driving the session ----------------------------------------------------------------------
    def _step(self, _arg: object = None, exc: BaseException | None = None) -> None:
        coro = self._coro
        if coro is None:
            return
        if self._running:  # never re-enter a running coroutine
            self.listener.loop.call_soon(self._step, None, exc)
            return
        self._waiting = False
        self._running = True
        try:
            yielded = coro.send(None) if exc is None else coro.throw(exc)
        except StopIteration:
            self._coro = None
            self._finish()
            return
        except BaseException as error:  # serve_connection handles what it expects
            self._coro = None
            self._finish()
            remote = self.peer.remote_address
            self.listener.env.log.error("internal", f"{remote}: connection handling failed: "
                                                    f"{type(error).__name__}: {error}", remote=remote)
            if not isinstance(error, Exception):
                raise
            return
        finally:
            self._running = False
        if self.answered and not self._lingering:
            self._linger()
        if yielded is WAIT_FOR_DATA:
            if self.readable:  # bytes arrived while the session ran
                self.listener.loop.call_soon(self._step, None)
            else:
                self._waiting = True
        elif yielded is None:  # a bare yield (asyncio.sleep(0)): run again on the next loop turn
            self.listener.loop.call_soon(self._step, None)
        elif getattr(yielded, "_asyncio_future_blocking", None):
            future: asyncio.Future[Any] = yielded  # type: ignore[assignment]
            future._asyncio_future_blocking = False
            self._future = future
            future.add_done_callback(self._wakeup)
        else:
            self._coro = None
            coro.close()
            self._finish()
            remote = self.peer.remote_address
            self.listener.env.log.error("internal", f"{remote}: session yielded {yielded!r}", remote=remote)

    def _wakeup(self, _future: asyncio.Future[Any]) -> None:
        self._future = None
        self._step(None)

    def _linger(self) -> None:
        """After the answer the socket stays at most ``linger`` seconds more, or - with an idle
        limit - while the client sends something within that limit."""
        self._lingering = True
        if self._deadlines is not None:
            self._deadlines.discard(self._key)
            self._deadlines = None
        self._key = self
        if not self.expired:
            self._deadlines = self.listener.deadlines_after_answer(self.idle_limit)
            self._deadlines.add(self)

    def deadline_passed_for(self, key: object) -> None:
        """The deadline this connection holds under ``key`` (see :meth:`taken_over`) has passed."""
        if key is self._key:
            self.expire()

    def expire(self) -> None:
        """The deadline has passed (called by the listener's :class:`.deadlines.Deadlines`)."""
        self._deadlines = None
        self.expired = True
        if self._waiting:
            self._step(None, HandshakeTimeout())
        elif self._future is not None:
            self._future.cancel()

    def _finish(self) -> None:
        """The session is over: stop the timer, send what is queued, close, count."""
        if self._closed:
            return
        self._closed = True
        if self._deadlines is not None:
            self._deadlines.discard(self._key)
            self._deadlines = None
        if self._out:  # what the session queued (ConnIO.flush)
            try:
                self.flush()
            except (ConnectionError, OSError, RuntimeError):
                pass  # the peer is gone; nothing left to tell it
        try:
            self.transport.close()
        except (ConnectionError, OSError, ssl.SSLError, RuntimeError):
            pass
        self.listener.open -= 1
