"""A socket of a plain listener (no TLS, no PROXY header) until its first bytes: the common redirect
with the least Python per connection, and the full :class:`.driver.RedirectProtocol` for the rest.

Most connections are one hello that arrives whole, one answer, then the client closes. For them
:class:`FreshConnection` is the socket's protocol from start to end: made without an ``__init__``
(the listener is its class's attribute: one class per listener), its handshake deadline in the
listener's queue, the hello answered within the read that delivered it by the listener's :func:`.fast.answerer`
- which routes, counts and logs exactly as the session would - then the session's discipline after an
answer: FIN, the client's further bytes read and dropped until it closes, within ``linger``.

Anything else - first bytes that the fast path declines, the end of the stream, a lost
connection or the handshake deadline before any byte, or the fast path switched off
(``Listener.fast``) - hands the socket over to a :class:`.driver.RedirectProtocol` (``set_protocol``)
that starts its session at once and gets that very event: it then sees what it would have seen from
the start. The deadline is not set again: the hand-over keeps this object in the handshake queue and
passes its expiry on (:meth:`FreshConnection.expire`), so every connection stays bounded by the
deadline its socket got when it was made.
"""

from __future__ import annotations

import asyncio
import ssl

from .conn import peer_address
from .deadlines import Deadlines
from .decide import Peer
from .driver import Listener, RedirectProtocol
from .fast import DROPPED, answerer

#: tuple.__new__: a Peer from its four fields without the Python-level __new__ of a NamedTuple
_new_peer = tuple.__new__

# FreshConnection._state
FRESH = 0  # made, nothing read yet
DRAINING = 1  # answered at once: only waiting for the client to close (or linger)
HANDED = 2  # handed over to a RedirectProtocol (_next)
CLOSED = 3


class FreshConnection(asyncio.Protocol):
    """One socket of a plain listener until it needs a session (see the module). Subclassed once per
    listener (:func:`fresh_factory`), which sets :attr:`listener` and the event loop's callbacks."""

    __slots__ = ("transport", "name", "_peer", "_state", "_next", "_deadlines")

    listener: Listener  # set on the listener's subclass
    transport: asyncio.Transport
    #: the transport's peername, as it gave it: the fast path writes an IPv4 pair into the route line itself;
    #: :attr:`address` and :attr:`peer` work out the rest when asked
    name: object
    _peer: Peer | None  # made when asked for (peer): the usual redirect needs only name
    _state: int
    _next: RedirectProtocol | None
    _deadlines: Deadlines | None

    # -- the listener's deadlines ---------------------------------------------------------------------
    def expire(self) -> None:
        """The deadline has passed (called by the listener's :class:`.deadlines.Deadlines`)."""
        state = self._state
        self._deadlines = None
        if state == DRAINING:
            self._finish()  # linger is over
        elif state == FRESH:
            self._hand_over().expire()
        elif state == HANDED:  # the session still waits under the deadline it took over
            assert self._next is not None
            self._next.deadline_passed_for(self)

    @property
    def peer(self) -> Peer:
        """Where the connection comes from, as the session's ConnIO.peer (no TLS, no PROXY header)."""
        peer = self._peer
        if peer is None:
            listener = self.listener
            peer = self._peer = _new_peer(Peer, (listener.name, peer_address(self.name, listener.native,
                                                                             listener.broker),
                                                 None, None))  # Peer(listener, remote address)
        return peer

    @property
    def address(self) -> str:
        """Where the connection comes from as the route line shows it (the broker's getRemoteAddress(),
        without its "/")."""
        remote = self.peer.remote_address
        return remote[1:] if remote[:1] == "/" else remote

    @property
    def received(self) -> int:
        """Bytes read so far (before the answer; the session's count once handed over)."""
        return self._next.received if self._next is not None else 0

    # -- hand-over and closing ------------------------------------------------------------------------
    def _hand_over(self) -> RedirectProtocol:
        """Give the socket to a :class:`.driver.RedirectProtocol` whose session starts now, under this
        socket's handshake deadline (this object stays in the queue and passes the expiry on)."""
        redirect = RedirectProtocol(self.listener)
        self._state = HANDED
        self._next = redirect
        transport = self.transport
        transport.set_protocol(redirect)
        redirect.taken_over(transport, self.peer, self._deadlines, self)
        return redirect

    def _finish(self) -> None:
        if self._state == CLOSED:
            return
        self._state = CLOSED
        deadlines = self._deadlines
        if deadlines is not None:
            deadlines.discard(self)
            self._deadlines = None
        try:
            self.transport.close()
        except (ConnectionError, OSError, ssl.SSLError, RuntimeError):
            pass
        self.listener.open -= 1


def fresh_factory(listener: Listener) -> type[FreshConnection]:
    """The protocol class of ``listener``'s sockets: :class:`FreshConnection` with the listener set on
    the class, so that making one per socket runs no Python, and the loop's callbacks made here. They
    read what never changes for the listener (its deadline queues, environment, spec and fast paths)
    from this call rather than through ``self.listener``: CPython 3.11 does not specialise a class
    attribute read through an instance with slots (~180 instructions each, three per redirect)."""
    answer_at_once = answerer(listener.env, listener.spec, listener.quick)
    handshake = listener.handshake_deadlines
    handshake_due, handshake_delay, handshake_clock = handshake.due, handshake.delay, handshake.clock
    linger = listener.linger_deadlines
    linger_due, linger_delay, linger_clock = linger.due, linger.delay, linger.clock

    def connection_made(self: FreshConnection, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's transports do not subclass asyncio's
        self._next = None
        self._peer = None
        self.name = transport.get_extra_info("peername")
        listener.open += 1  # Listener.over_limit, without the call when under the limit
        if listener.open > listener.allowed:
            listener.open -= 1
            if listener.over_limit(self.peer.remote_address):
                self._deadlines = None
                self._state = FRESH
                self._finish()
                return
        self._deadlines = handshake
        handshake_due[self] = handshake_clock() + handshake_delay  # handshake.add(self), inline
        if len(handshake_due) == 1 and handshake.timer is None:
            handshake.arm()
        self._state = FRESH
        if not listener.fast:
            self._hand_over()

    def data_received(self: FreshConnection, data: bytes) -> None:
        state = self._state
        if state == FRESH:
            answer = answer_at_once(self, data)  # type: ignore[arg-type]
            if answer is None:
                self._hand_over().data_received(data)
                return
            listener.answered_at_once += 1
            if answer is DROPPED:
                self._finish()
                return
            # what the session's _close_cleanly does: the answer in one write, the deadline moved to
            # linger, a FIN (a TCP transport can always write one). The transport is not closing: only
            # _finish closes it, and a socket the loop closed gets no more reads.
            transport = self.transport
            transport.write(answer)
            self._state = DRAINING
            # the deadline from the handshake's queue to linger's (Deadlines.take, inline)
            handshake_due.pop(self, None)  # in it while FRESH
            self._deadlines = linger
            linger_due[self] = linger_clock() + linger_delay
            if len(linger_due) == 1 and linger.timer is None:
                linger.arm()
            try:
                transport.write_eof()
            except (OSError, RuntimeError):
                self._finish()
        elif state == HANDED:  # not after set_protocol; kept for a transport that calls on regardless
            assert self._next is not None
            self._next.data_received(data)
        # DRAINING: the client's bytes after the answer are discarded; CLOSED: nothing to do

    def eof_received(self: FreshConnection) -> bool:
        state = self._state
        if state == DRAINING:  # the client has closed after the answer: _finish, inline
            self._state = CLOSED
            linger_due.pop(self, None)  # in it while DRAINING
            self._deadlines = None
            listener.open -= 1
            return False  # the transport closes itself (both loops), as _finish's close() would
        if state == FRESH:
            return bool(self._hand_over().eof_received())
        if state == HANDED:
            assert self._next is not None
            return bool(self._next.eof_received())
        return True

    def connection_lost(self: FreshConnection, exc: Exception | None) -> None:
        state = self._state
        if state == CLOSED:
            return  # the usual end: closed after the client's EOF
        if state == FRESH:
            self._hand_over().connection_lost(exc)
        elif state == DRAINING:
            self._finish()
        else:
            assert self._next is not None
            self._next.connection_lost(exc)

    callbacks = {"connection_made": connection_made, "data_received": data_received, "eof_received": eof_received,
                 "connection_lost": connection_lost}
    return type("FreshConnection", (FreshConnection,), {"__slots__": (), "listener": listener, **callbacks})
