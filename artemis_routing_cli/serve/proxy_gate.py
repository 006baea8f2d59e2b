"""The first layer of a listener whose acceptor has ``proxyProtocolEnabled=true``: the PROXY header.

The broker's pipeline reads the header (``HAProxyMessageEnforcer``, ``HAProxyMessageDecoder``) before
anything else - before TLS when ``sslEnabled=true`` - and from then on takes the header's source as the
connection's remote address (SOURCE_IP keys, log lines). :class:`ProxyGate` is that layer, for one
socket: it feeds the sans-IO :class:`~..protocols.proxy.ProxyHeaderDecoder`, then hands the socket to
a :class:`.driver.RedirectProtocol` that knows the header's address - at once, with the bytes that came
after the header, or, on a TLS listener, once the TLS handshake that follows the header is done.

On a TLS listener not one byte past the header may be read here (asyncio's ``start_tls`` cannot be given
bytes already read): the gate is a :class:`asyncio.BufferedProtocol` whose buffer is never larger than
what the header still lacks (``ProxyHeaderDecoder.safe_read_size``).

A connection without a header (AMQ224152 in the broker), a malformed or oversized header, a failed TLS
handshake or the handshake timeout close this connection only, with a log line and a metric. The header
and what follows it share the listener's handshake timeout: the gate's deadline ends with the header,
and the session's starts then.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable
from functools import partial

from ..errors import ProtocolError
from ..protocols.proxy import V2_MAX_LENGTH, ProxyHeaderDecoder, ProxyHeaderMissing, ProxyHeaderReceived
from .conn import peer_address
from .driver import Listener, RedirectProtocol
from .fresh import fresh_factory

_HANDSHAKES: set[asyncio.Task[None]] = set()  # TLS handshakes after a header, under way


def new_protocol(listener: Listener) -> asyncio.BaseProtocol:
    """The protocol object for a new socket of ``listener``: a PROXY header first when its acceptor
    expects one, else the session's own protocol (on a plain listener, first a :class:`.fresh.FreshConnection`)."""
    return protocol_factory(listener)()


def protocol_factory(listener: Listener) -> Callable[[], asyncio.BaseProtocol]:
    """What the listener's server calls for each new socket: :func:`new_protocol`'s choice, made once
    (a listener's spec does not change while it listens)."""
    if listener.spec.proxy_protocol:
        return partial(ProxyGate, listener)
    if not listener.spec.tls:
        return fresh_factory(listener)  # a plain hello answered with the least Python (.fresh)
    return partial(RedirectProtocol, listener)


class ProxyGate(asyncio.BufferedProtocol):
    """One socket until its PROXY header is read (see the module)."""

    __slots__ = ("listener", "transport", "remote", "decoder", "_counted", "_done")

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self.transport: asyncio.Transport | None = None
        self.remote = "?"
        self.decoder = ProxyHeaderDecoder()
        if listener.scratch is None:
            # One buffer for all the listener's gates: each read is copied out in buffer_updated, which the
            # loop calls right after the read that filled it (idle sockets hold no buffer of their own).
            listener.scratch = bytearray(V2_MAX_LENGTH)
        self._counted = False
        self._done = False  # handed over or closed: nothing more for the gate to do

    # -- asyncio.BufferedProtocol ---------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        listener = self.listener
        self.transport = transport  # type: ignore[assignment]  # uvloop's transports do not subclass asyncio's
        self.remote = peer_address(transport.get_extra_info("peername"), listener.native)
        self._counted = True
        if listener.over_limit(self.remote):
            self._close()
            return
        listener.handshake_deadlines.add(self)

    def get_buffer(self, sizehint: int) -> memoryview:
        scratch = self.listener.scratch
        assert scratch is not None
        # without TLS, bytes past the header are handed on: read as much as the buffer holds
        size = self.decoder.safe_read_size() if self.listener.tls else len(scratch)
        return memoryview(scratch)[:size]

    def buffer_updated(self, nbytes: int) -> None:
        if self._done:
            return
        try:
            scratch = self.listener.scratch
            assert scratch is not None
            header = self.decoder.receive_data(bytes(scratch[:nbytes]))
        except ProxyHeaderMissing:
            self._fail("proxy_missing", "no PROXY protocol header on an acceptor with proxyProtocolEnabled=true "
                                        "(AMQ224152)")
            return
        except ProtocolError as exc:
            self._fail("proxy_malformed", f"PROXY protocol header refused: {exc}")
            return
        if header is not None:
            self._hand_over(header)

    def eof_received(self) -> bool:
        if not self._done:
            self._fail("proxy_incomplete", "closed before the end of its PROXY protocol header")
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._done:
            self._done = True
            self.listener.env.metrics.handshake_errors.inc(self.listener.name, "connection_lost")
        self._uncount()

    # -- the listener's deadline ------------------------------------------------------------------------
    def expire(self) -> None:
        if not self._done:
            self._fail("timeout", "no complete PROXY protocol header before the handshake timeout")

    # -- after the header --------------------------------------------------------------------------------
    def _hand_over(self, header: ProxyHeaderReceived) -> None:
        listener = self.listener
        transport = self.transport
        assert transport is not None
        self._done = True
        listener.handshake_deadlines.discard(self)
        self._uncount()  # the session's protocol counts the connection from now on
        listener.env.metrics.proxy_headers.inc(listener.name, header.version)
        redirect = RedirectProtocol(listener, (header.remote_address, self.remote.removeprefix("/")))
        if not listener.tls:
            transport.set_protocol(redirect)
            redirect.connection_made(transport)
            if header.remaining:
                redirect.data_received(header.remaining)
            return
        assert not header.remaining  # safe_read_size: nothing past the header was read
        transport.pause_reading()  # not one byte more until start_tls reads it (uvloop would ask at once)
        task = listener.loop.create_task(self._start_tls(transport, redirect, header))
        _HANDSHAKES.add(task)  # the loop holds tasks weakly
        task.add_done_callback(_HANDSHAKES.discard)

    async def _start_tls(self, transport: asyncio.Transport, redirect: RedirectProtocol,
                         header: ProxyHeaderReceived) -> None:
        listener = self.listener
        ctx = listener.ssl_context
        assert ctx is not None
        try:
            wrapped = await listener.loop.start_tls(transport, redirect, ctx, server_side=True,
                                                    ssl_handshake_timeout=listener.handshake_timeout)
        except (OSError, ssl.SSLError, ConnectionError, asyncio.TimeoutError, RuntimeError) as exc:
            listener.env.metrics.handshake_errors.inc(listener.name, "tls")
            listener.env.log.warning("closed", f"{header.remote_address} [{listener.name}]: TLS handshake after "
                                               f"the PROXY header failed ({type(exc).__name__}): connection closed",
                                     remote=header.remote_address, listener=listener.name, reason="tls")
            transport.close()
            return
        if wrapped is None or wrapped.is_closing():
            transport.close()
            return
        redirect.connection_made(wrapped)

    # -- closing -----------------------------------------------------------------------------------------
    def _fail(self, reason: str, text: str) -> None:
        listener = self.listener
        listener.env.metrics.handshake_errors.inc(listener.name, reason)
        listener.env.log.warning("closed", f"{self.remote.removeprefix('/')} [{listener.name}]: {text}: connection "
                                           "closed", remote=self.remote, listener=listener.name, reason=reason)
        self._close()

    def _close(self) -> None:
        self._done = True
        self.listener.handshake_deadlines.discard(self)
        if self.transport is not None:
            self.transport.close()
        self._uncount()

    def _uncount(self) -> None:
        if self._counted:
            self._counted = False
            self.listener.open -= 1
