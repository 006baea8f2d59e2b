"""AMQP 1.0 on a redirecting acceptor: SASL (PLAIN validated when ``--users-file`` is given),
then Open -> the broker's Open(connection-establishment-failed) + Close(redirect or forced)."""

from __future__ import annotations

from collections import deque

from ..protocols.amqp import AmqpServer, OpenReceived, SaslInit, SaslRejected
from .auth import Identity
from .conn import ConnIO, Env


async def run(io: ConnIO, first: bytes, env: Env) -> None:
    server = AmqpServer()
    pending = deque(server.receive_data(first))
    identity: Identity | None = None
    while True:
        while pending:
            event = pending.popleft()
            await io.write(server.data_to_send())
            if isinstance(event, SaslRejected):
                await io.write(server.data_to_send())
                env.log.info("handshake", f"{env.peer.remote_address} [AMQP]: SASL mechanism {event.mechanism!r} "
                                          "is not offered: outcome sys, closed", remote=env.peer.remote_address)
                return
            if isinstance(event, SaslInit):
                ok = True
                if event.mechanism == "PLAIN":
                    ok, identity = env.identify(event.username, event.password)
                await io.write(server.sasl_outcome(ok))
                if not ok:
                    env.auth_failed("AMQP", event.username)
                    return
                pending.extend(server.receive_data(b""))
            elif isinstance(event, OpenReceived):
                decision = await env.route("AMQP", client_id=event.container_id,
                                           username=identity.user if identity else None,
                                           roles=identity.roles if identity else ())
                if decision.redirect:
                    assert decision.host is not None and decision.port is not None
                    answer = server.redirect(env.router_name, decision.host, decision.port)
                else:
                    answer = server.refuse(env.router_name, decision.status)
                await io.write(answer)
                io.mark_answered(env.linger)
                return  # the broker closes its side after the Close
        await io.write(server.data_to_send())
        data = await io.read()
        if not data:
            return
        pending.extend(server.receive_data(data))
