"""AMQP 1.0 on a redirecting acceptor: SASL, then Open -> the broker's
Open(connection-establishment-failed) + Close(redirect, forced, or unauthorized-access).

The acceptor's ``saslMechanisms``, ``maxFrameSize``, ``initialRemoteMaxFrameSize`` and
``amqpIdleTimeout`` (and broker.xml's ``<connection-ttl-override>``) shape the answers:
:mod:`.amqp_settings` reads them as the broker does, one :class:`~.amqp_settings.AmqpSettings` per
listener (``env.amqp``).

What the broker does with users (``--users-file`` = security enabled), read from its AMQP module:

* it offers the acceptor's mechanisms, by default ``[PLAIN, ANONYMOUS]`` (MechanismFinder; the
  list does not depend on security). PLAIN credentials are checked at once (PlainSASL): bad ones
  get sasl-outcome ``auth``. ANONYMOUS always gets sasl-outcome ``ok`` (AnonymousServerSASL); a
  mechanism not offered, or one serve has no server side for, gets ``sys``;
* at Open the user is validated before routing (AMQPConnectionContext.validateUser): an
  ANONYMOUS client has no user, so with security on it gets Open + Close
  ``amqp:unauthorized-access`` "AMQ229031: Unable to validate user ..." and is not routed;
* a client that skips SASL (``AMQP 0.1.0.0``) is accepted only when anonymous login works
  (``isSupportsAnonymous``); with security on the broker writes the SASL header
  ``AMQP 3.1.0.0`` and closes.

Without ``--users-file`` everyone is accepted as they claim, as with security disabled.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from ..errors import ProtocolError
from ..protocols.amqp import (
    SASL_HEADER,
    AmqpServer,
    CloseReceived,
    ErrorCondition,
    OpenReceived,
    ProtocolHeaderReceived,
    SaslInit,
    SaslRejected,
    encode_close,
    redirect_error,
    refusal_error,
)
from .auth import Identity
from .conn import ConnIO, Env

UNAUTHORIZED_ACCESS = "amqp:unauthorized-access"
MSG_UNABLE_TO_VALIDATE = ("AMQ229031: Unable to validate user from {remote}. Username: {user}; "
                          "SSL certificate subject DN: unavailable")
#: Distinct (router, host, port) answers kept encoded; a pool has a handful of targets.
ANSWER_CACHE_SIZE = 1024


@lru_cache(maxsize=ANSWER_CACHE_SIZE)
def redirect_close(router: str, host: str, port: int) -> bytes:
    """The redirect Close ``AmqpServer.redirect`` writes after the failure Open, encoded once per
    target instead of once per connection: it depends on nothing else."""
    return encode_close(redirect_error(router, host, port))


@lru_cache(maxsize=ANSWER_CACHE_SIZE)
def refusal_close(router: str, status: str) -> bytes:
    """The refusing Close ``AmqpServer.refuse`` writes, encoded once per router and status."""
    return encode_close(refusal_error(router, status))


async def run(io: ConnIO, first: bytes, env: Env) -> None:
    server = env.amqp.server()
    pending = deque(server.receive_data(first))
    identity: Identity | None = None
    sasl_user: str | None = None  # the SASL user when the SASL login failed (for the broker's text at Open)
    sasl = False
    while True:
        while pending:
            event = pending.popleft()
            if isinstance(event, ProtocolHeaderReceived):
                sasl = sasl or event.sasl
            if isinstance(event, ProtocolHeaderReceived) and not sasl and env.auth.enabled:
                server.data_to_send()  # not the AMQP header: the broker asks for SASL and closes
                io.write(SASL_HEADER)
                env.auth_failed(io.peer, "AMQP", None, "no SASL: anonymous login is not allowed")
                return
            io.write(server.data_to_send())
            if isinstance(event, SaslRejected):
                why = ("is offered, but serve has no server side for it" if event.offered
                       else "is not offered")
                env.log.info("handshake", f"{io.peer.remote_address} [AMQP]: SASL mechanism {event.mechanism!r} "
                                          f"{why}: outcome sys", remote=io.peer.remote_address)
                io.mark_answered(env.linger)  # the client closes now; the broker waits for it
            elif isinstance(event, SaslInit):
                ok = True
                if event.mechanism == "PLAIN":
                    ok, identity = env.identify(event.username, event.password)
                io.write(server.sasl_outcome(ok))
                if not ok:
                    env.auth_failed(io.peer, "AMQP", event.username)
                    sasl_user = event.username
                    io.mark_answered(env.linger)
                pending.extend(server.receive_data(b""))
            elif isinstance(event, OpenReceived):
                await _open(io, server, event, identity, sasl_user, env)
                if not io.shut_write():  # TLS: no half-close, so wait for the client's Close first
                    await _until_client_close(io, server)
                return  # then the connection closes (cleanly: see connection._close_cleanly)
        io.write(server.data_to_send())
        data = await io.read()
        if not data:
            return
        pending.extend(server.receive_data(data))


async def _until_client_close(io: ConnIO, server: AmqpServer) -> None:
    """Read what the client sent behind its Open (Begin, Attach, ...) and its answering Close,
    discarding it: the client's Close ends the AMQP connection, after it the socket can go without
    a reset destroying our Close (see ``connection._close_cleanly``; over TLS this is all there is)."""
    try:
        while True:
            data = await io.read()
            if not data:
                return
            if any(isinstance(event, CloseReceived) for event in server.receive_data(data)):
                return
    except ProtocolError:
        return  # nothing more to understand; the rest is discarded by the clean close


async def _open(io: ConnIO, server: AmqpServer, event: OpenReceived, identity: Identity | None,
                sasl_user: str | None, env: Env) -> None:
    if env.auth.enabled and identity is None:
        # SASL ANONYMOUS got through the SASL layer (or a client carried on after a failed
        # outcome); validateUser with the SASL result's user, if any, now fails.
        text = MSG_UNABLE_TO_VALIDATE.format(remote=io.peer.broker_address,
                                             user="null" if sasl_user is None else sasl_user)
        io.write(server.close_with_error(ErrorCondition(UNAUTHORIZED_ACCESS, text)))
        env.auth_failed(io.peer, "AMQP", sasl_user, "SASL ANONYMOUS" if sasl_user is None else "at Open")
        io.mark_answered(env.linger)
        return
    decision = await env.route(io.peer, "AMQP", client_id=event.container_id,
                               username=identity.user if identity else None,
                               roles=identity.roles if identity else ())
    if decision.redirect:
        assert decision.host is not None and decision.port is not None
        close = redirect_close(env.router_name, decision.host, decision.port)
    else:
        close = refusal_close(env.router_name, decision.status)
    io.write(server.failure_open + close)
    io.mark_answered(env.linger)
