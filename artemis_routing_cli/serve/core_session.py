"""CORE on a redirecting acceptor: housekeeping packets answered as the broker does (the client
waits for the topology answer before CREATESESSION), then CREATESESSION -> route ->
DISCONNECT_V3 + exception (redirect) or an exception (refusal, the connection stays open).

After a redirect the broker leaves the socket for the client to close; so do we, for at most
``linger`` seconds. A user that ``--users-file`` rejects gets the broker's security exception
(code 105, AMQ229031) and the connection is closed.
"""

from __future__ import annotations

import time

from ..protocols import core_packets as pk
from ..protocols.core import CoreServer, CreateSessionReceived
from .conn import ConnIO, Env

SECURITY_EXCEPTION = 105  # ActiveMQExceptionType.SECURITY_EXCEPTION
MSG_UNABLE_TO_VALIDATE = ("AMQ229031: Unable to validate user from {remote}. Username: {user}; "
                          "SSL certificate subject DN: unavailable")


async def run(io: ConnIO, first: bytes, env: Env) -> None:
    server = CoreServer(node_id=env.own_node_id, router=env.router_name)
    events = server.receive_data(first)
    while True:
        for event in events:
            if isinstance(event, CreateSessionReceived):
                if not await _session(io, server, event, env):
                    return
            else:
                await io.write(server.reply(event, unique_event_id=int(time.time() * 1000)))
        data = await io.read()
        if not data:
            return
        events = server.receive_data(data)


async def _session(io: ConnIO, server: CoreServer, event: CreateSessionReceived, env: Env) -> bool:
    """Answer one CREATESESSION; False when the connection must be closed."""
    ok, identity = env.identify(event.username, event.password)
    if not ok:
        await io.write(pk.exception(SECURITY_EXCEPTION, MSG_UNABLE_TO_VALIDATE.format(
            remote=env.peer.remote_address, user=event.username)))
        env.auth_failed("CORE", event.username)
        return False
    if not event.supports_routing:
        env.log.info("handshake", f"{env.peer.remote_address} [CORE]: client version {event.version} cannot be "
                                  "routed (before 2.18): versions incompatible (AMQ229033)",
                     remote=env.peer.remote_address, client_version=event.version)
        await io.write(server.refuse("REFUSED_USE_ANOTHER"))
        io.mark_answered(env.linger)
        return True
    decision = await env.route("CORE", client_id=event.client_id,
                               username=identity.user if identity else event.username,
                               roles=identity.roles if identity else ())
    if decision.redirect:
        assert decision.host is not None and decision.port is not None
        await io.write(server.redirect(decision.node_id or "", decision.connector_name or "", decision.host,
                                       decision.port, decision.params))
    else:
        await io.write(server.refuse(decision.status))
    io.mark_answered(env.linger)
    return True
