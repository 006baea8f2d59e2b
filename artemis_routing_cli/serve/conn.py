"""One accepted socket as the protocol sessions see it: bounded reads and what they may use.

Limits (each violation closes this connection only):

* ``deadline``: the whole handshake, up to the routing answer, must finish in time (the
  acceptor's ``handshake-timeout``, 10 s by default in the broker) - a slowloris peer is dropped;
  after the answer the socket lingers at most ``linger`` seconds for the client to close it;
* ``budget``: bytes a client may send before the answer (``--max-frame-size``); the codecs cap
  single frames as well.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from .auth import Authenticator, Identity
from .decide import Decision, Peer, RouterService, route
from .log import ServeLog
from .metrics import Metrics
from .monitor import PoolMonitor

READ_SIZE = 65536


class HandshakeTimeout(Exception):
    """The peer did not finish in time."""


class Oversize(Exception):
    """The peer sent more than the handshake budget."""


class ConnIO:
    """Reads under the connection's deadline and writes that go out together.

    One timer per connection enforces the deadline: when it fires the connection's task is
    cancelled and :attr:`expired` is set (a read then raises :class:`HandshakeTimeout`), so no
    read pays for a ``wait_for`` task. Writes are queued and sent in one ``transport.write`` before
    the next read and when the session ends: handshake answers are a few hundred bytes, the
    input that causes them is bounded by ``budget``, so nothing waits for the peer to drain.
    """

    __slots__ = ("reader", "writer", "loop", "budget", "received", "answered", "expired", "_out", "_task",
                 "_timer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, timeout: float,
                 budget: int | None) -> None:
        self.reader = reader
        self.writer = writer
        self.loop = asyncio.get_running_loop()
        self.budget = budget
        self.received = 0
        self.answered = False
        self.expired = False
        self._out: list[bytes] = []
        self._task = asyncio.current_task()
        self._timer: asyncio.TimerHandle | None = self.loop.call_later(timeout, self._expire)

    def _expire(self) -> None:
        self.expired = True
        self._timer = None
        if self._task is not None:
            self._task.cancel()

    async def read(self) -> bytes:
        self.flush()
        try:
            data = await self.reader.read(READ_SIZE)
        except asyncio.CancelledError:
            if self.expired:
                raise HandshakeTimeout from None
            raise
        self.received += len(data)
        if self.budget is not None and self.received > self.budget:
            raise Oversize(f"{self.received} bytes before the routing answer (limit {self.budget})")
        return data

    def write(self, data: bytes) -> None:
        if data:
            self._out.append(data)

    def flush(self) -> None:
        out = self._out
        if out:
            self.writer.write(out[0] if len(out) == 1 else b"".join(out))
            out.clear()

    def mark_answered(self, linger: float) -> None:
        """The routing answer is out: from now on only wait (``linger`` s) for the client to go away."""
        self.answered = True
        self.budget = None
        self.flush()
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.loop.call_later(linger, self._expire) if not self.expired else None

    def finish(self) -> None:
        """Stop the deadline timer and send whatever is queued (the session is over)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        try:
            self.flush()
        except (ConnectionError, OSError, RuntimeError):
            pass  # the peer is gone; nothing left to tell it


@dataclass
class Env:
    """Everything a protocol session needs besides the socket."""

    service: RouterService
    monitor: PoolMonitor
    log: ServeLog
    metrics: Metrics
    auth: Authenticator
    peer: Peer
    own_node_id: str
    broker_name: str
    linger: float
    max_frame_size: int

    @property
    def router_name(self) -> str:
        return self.service.router.name

    async def route(self, protocol: str, *, client_id: str | None, username: str | None,
                    roles: tuple[str, ...] = ()) -> Decision:
        return await route(self.service, self.monitor, self.log, self.metrics, self.peer, protocol,
                           client_id=client_id, username=username, roles=roles)

    def identify(self, user: str | None, password: str | bytes | None) -> tuple[bool, Identity | None]:
        """(accepted, identity). Without ``--users-file`` every client is accepted as it claims."""
        secret = password.decode("utf-8", "replace") if isinstance(password, bytes) else password
        identity = self.auth.validate(user, secret)
        if self.auth.enabled and identity is None:
            return False, None
        return True, identity

    def auth_failed(self, protocol: str, user: str | None, how: str = "") -> None:
        self.metrics.inc("arouter_auth_failures_total", router=self.router_name, protocol=protocol)
        via = f" ({how})" if how else ""
        self.log.warning("auth", f"{self.peer.remote_address} [{protocol}, {self.peer.listener}]: user "
                                 f"{user!r}{via} not validated against --users-file: refused",
                         remote=self.peer.remote_address, protocol=protocol, user=user)
