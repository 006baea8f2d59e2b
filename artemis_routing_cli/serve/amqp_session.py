"""AMQP 1.0 on a redirecting acceptor: SASL, then Open -> the broker's
Open(connection-establishment-failed) + Close(redirect, forced, or unauthorized-access).

What the broker does with users (``--users-file`` = security enabled), read from its AMQP module:

* it always offers its default mechanisms ``[PLAIN, ANONYMOUS]`` (MechanismFinder; the list does
  not depend on security). PLAIN credentials are checked at once (PlainSASL): bad ones get
  sasl-outcome ``auth``. ANONYMOUS always gets sasl-outcome ``ok`` (AnonymousServerSASL);
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

from ..protocols.amqp import (
    SASL_HEADER,
    AmqpServer,
    ErrorCondition,
    OpenReceived,
    ProtocolHeaderReceived,
    SaslInit,
    SaslRejected,
    broker_failure_open,
    encode_close,
    encode_open,
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
def redirect_bytes(router: str, host: str, port: int) -> bytes:
    """What ``AmqpServer.redirect`` writes (failure Open + redirect Close), encoded once per
    target instead of once per connection: the answer depends on nothing else."""
    return encode_open(broker_failure_open()) + encode_close(redirect_error(router, host, port))


@lru_cache(maxsize=ANSWER_CACHE_SIZE)
def refusal_bytes(router: str, status: str) -> bytes:
    """What ``AmqpServer.refuse`` writes, encoded once per router and status."""
    return encode_open(broker_failure_open()) + encode_close(refusal_error(router, status))


async def run(io: ConnIO, first: bytes, env: Env) -> None:
    server = AmqpServer()
    pending = deque(server.receive_data(first))
    identity: Identity | None = None
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
                io.write(server.data_to_send())
                env.log.info("handshake", f"{io.peer.remote_address} [AMQP]: SASL mechanism {event.mechanism!r} "
                                          "is not offered: outcome sys, closed", remote=io.peer.remote_address)
                return
            if isinstance(event, SaslInit):
                ok = True
                if event.mechanism == "PLAIN":
                    ok, identity = env.identify(event.username, event.password)
                io.write(server.sasl_outcome(ok))
                if not ok:
                    env.auth_failed(io.peer, "AMQP", event.username)
                    return
                pending.extend(server.receive_data(b""))
            elif isinstance(event, OpenReceived):
                await _open(io, server, event, identity, env)
                return  # the broker closes its side after the Close
        io.write(server.data_to_send())
        data = await io.read()
        if not data:
            return
        pending.extend(server.receive_data(data))


async def _open(io: ConnIO, server: AmqpServer, event: OpenReceived, identity: Identity | None, env: Env) -> None:
    if env.auth.enabled and identity is None:
        # SASL ANONYMOUS got through the SASL layer; validateUser(null, null) now fails.
        text = MSG_UNABLE_TO_VALIDATE.format(remote=io.peer.remote_address, user="null")
        io.write(server.close_with_error(ErrorCondition(UNAUTHORIZED_ACCESS, text)))
        env.auth_failed(io.peer, "AMQP", None, "SASL ANONYMOUS")
        io.mark_answered(env.linger)
        return
    decision = await env.route(io.peer, "AMQP", client_id=event.container_id,
                               username=identity.user if identity else None,
                               roles=identity.roles if identity else ())
    if decision.redirect:
        assert decision.host is not None and decision.port is not None
        answer = redirect_bytes(env.router_name, decision.host, decision.port)
    else:
        answer = refusal_bytes(env.router_name, decision.status)
    io.write(answer)
    io.mark_answered(env.linger)
