"""The asyncio shell of one redirecting listener: a :class:`asyncio.Protocol` per socket that runs
the connection's session coroutine itself, without an asyncio Task.

A redirect is a few hundred bytes in and out: with a Task and stream objects per socket, the
event loop spends more on its own bookkeeping than on the answer. Here the session coroutine
(:func:`.connection.serve_connection`) is stepped straight from ``data_received``: when it needs
bytes it yields :data:`.conn.WAIT_FOR_DATA` and is resumed by the next ``data_received``, so an
MQTT CONNECT is answered within the callback that delivered it. A session that awaits something
else (a pool quorum, a cache commit, OpenWire's delayed stop) yields an asyncio future, and the
driver resumes it when that future is done, as a Task would.

One timer per connection enforces the deadline: the handshake timeout until the routing answer,
then ``linger``. When it fires, a session waiting for bytes gets :class:`.conn.HandshakeTimeout`
and one waiting on a future sees it cancelled.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable, Coroutine
from typing import Any, cast

from .conn import WAIT_FOR_DATA, ConnIO, Env, HandshakeTimeout
from .connection import Limits, peer_address, serve_connection
from .decide import Peer
from .listeners import ListenerSpec
from .tls import sni_host


class Listener:
    """What every connection of one listener shares."""

    __slots__ = ("spec", "make_env", "limits", "open", "allowed", "timeout", "loop")

    def __init__(self, spec: ListenerSpec, make_env: Callable[[Peer], Env], limits: Limits,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.spec = spec
        self.make_env = make_env
        self.limits = limits
        self.open = 0
        self.allowed = min(limits.max_connections, spec.connections_allowed or limits.max_connections)
        self.timeout = spec.handshake_timeout or limits.handshake_timeout
        self.loop = loop

    def open_now(self) -> float:
        """Connections open on this listener (the ``arouter_connections_open`` gauge)."""
        return self.open

    def protocol(self) -> RedirectProtocol:
        return RedirectProtocol(self)


class RedirectProtocol(asyncio.Protocol):
    __slots__ = ("listener", "transport", "io", "env", "_coro", "_waiting", "_future", "_timer", "_lingering",
                 "_running", "_closed")

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self.transport: asyncio.Transport | None = None
        self.io: ConnIO | None = None
        self._coro: Coroutine[Any, Any, None] | None = None
        self._waiting = False  # the session waits for bytes
        self._future: asyncio.Future[Any] | None = None  # ... or for this future
        self._timer: asyncio.TimerHandle | None = None
        self._lingering = False
        self._running = False
        self._closed = False

    # -- asyncio.Protocol -------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport = cast(asyncio.Transport, transport)  # uvloop's transports do not subclass asyncio's
        listener = self.listener
        spec = listener.spec
        self.transport = transport
        peer = Peer(spec.name, peer_address(transport.get_extra_info("peername")),
                    sni_host(transport.get_extra_info("ssl_object")))
        env = self.env = listener.make_env(peer)
        listener.open += 1
        if listener.open > listener.allowed:
            env.metrics.inc("arouter_handshake_errors_total", listener=spec.name, reason="too_many_connections")
            env.log.warning("limit", f"{peer.remote_address} [{spec.name}]: {listener.open - 1} connections already "
                                     f"open (limit {listener.allowed}): closed",
                            remote=peer.remote_address, listener=spec.name)
            self._finish()
            return
        io = self.io = ConnIO(transport, listener.limits.max_frame_size)
        self._timer = listener.loop.call_later(listener.timeout, self._expire)
        self._coro = serve_connection(io, env, spec)
        self._step(None)

    def data_received(self, data: bytes) -> None:
        io = self.io
        if io is None:
            return
        io.feed(data)
        if self._waiting:
            self._step(None)

    def eof_received(self) -> bool:
        io = self.io
        if io is not None:
            io.feed_eof()
            if self._waiting:
                self._step(None)
        # Keep the write side open: the session closes the socket when it is done. Over TLS a
        # half-close cannot be kept (asyncio warns when asked to), so the transport closes.
        transport = self.transport
        return transport is None or transport.get_extra_info("sslcontext") is None

    def connection_lost(self, exc: Exception | None) -> None:
        io = self.io
        if io is not None:
            io.feed_eof()
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
            self.env.log.error("internal", f"{self.env.peer.remote_address}: connection handling failed: "
                                           f"{type(error).__name__}: {error}", remote=self.env.peer.remote_address)
            if not isinstance(error, Exception):
                raise
            return
        finally:
            self._running = False
        io = self.io
        assert io is not None
        if io.answered and not self._lingering:
            self._linger(io)
        if yielded is WAIT_FOR_DATA:
            if io.readable:  # bytes arrived while the session ran
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
            self.env.log.error("internal", f"{self.env.peer.remote_address}: session yielded {yielded!r}",
                               remote=self.env.peer.remote_address)

    def _wakeup(self, _future: asyncio.Future[Any]) -> None:
        self._future = None
        self._step(None)

    def _linger(self, io: ConnIO) -> None:
        """After the answer the socket stays at most ``linger`` seconds more."""
        self._lingering = True
        if self._timer is not None:
            self._timer.cancel()
        self._timer = None if io.expired else self.listener.loop.call_later(self.listener.limits.linger,
                                                                            self._expire)

    def _expire(self) -> None:
        self._timer = None
        io = self.io
        if io is None:
            return
        io.expired = True
        if self._waiting:
            self._step(None, HandshakeTimeout())
        elif self._future is not None:
            self._future.cancel()

    def _finish(self) -> None:
        """The session is over: stop the timer, send what is queued, close, count."""
        if self._closed:
            return
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        io = self.io
        if io is not None:
            try:
                io.flush()
            except (ConnectionError, OSError, RuntimeError):
                pass  # the peer is gone; nothing left to tell it
        transport = self.transport
        if transport is not None:
            try:
                transport.close()
            except (ConnectionError, OSError, ssl.SSLError, RuntimeError):
                pass
        self.listener.open -= 1
