"""CORE on a redirecting acceptor: housekeeping packets answered as the broker does (the client
waits for the topology answer before CREATESESSION), then CREATESESSION -> route ->
DISCONNECT_V3 + exception (redirect) or an exception (refusal, the connection stays open).

ActiveMQPacketHandler.handleCreateSession checks, in order: the client version is one the
broker knows (else code 108), the user (``--users-file``; else the security exception, code 105
AMQ229031, and the connection stays open for another try), the version supports routing (2.18+,
else code 108), then routes.

After a redirect the broker leaves the socket for the client to close; so do we, for at most
``linger`` seconds.
"""

from __future__ import annotations

import time

from ..protocols import core_packets as pk
from ..protocols.core import CoreServer, CreateSessionReceived
from .conn import ConnIO, Env


async def run(io: ConnIO, first: bytes, env: Env) -> None:
    server = CoreServer(node_id=env.own_node_id, router=env.router_name)
    events = server.receive_data(first)
    while True:
        for event in events:
            if isinstance(event, CreateSessionReceived):
                await _session(io, server, event, env)
            else:
                io.write(server.reply(event, unique_event_id=int(time.time() * 1000)))
        data = await io.read()
        if not data:
            return
        events = server.receive_data(data)


async def _session(io: ConnIO, server: CoreServer, event: CreateSessionReceived, env: Env) -> None:
    """Answer one CREATESESSION; the connection stays open whatever the answer."""
    if event.version not in pk.COMPATIBLE_CLIENT_VERSIONS:
        io.write(server.refuse("REFUSED_USE_ANOTHER"))  # the codec answers code 108 here
        return
    ok, identity = env.identify(event.username, event.password)
    if not ok:
        io.write(server.reject_security(io.peer.remote_address))
        env.auth_failed(io.peer, "CORE", event.username)
        return
    if not event.supports_routing:
        env.log.info("handshake", f"{io.peer.remote_address} [CORE]: client version {event.version} cannot be "
                                  "routed (before 2.18): versions incompatible (AMQ229033)",
                     remote=io.peer.remote_address, client_version=event.version)
        io.write(server.refuse("REFUSED_USE_ANOTHER"))
        io.mark_answered(env.linger)
        return
    decision = await env.route(io.peer, "CORE", client_id=event.client_id,
                               username=identity.user if identity else event.username,
                               roles=identity.roles if identity else ())
    if decision.redirect:
        assert decision.host is not None and decision.port is not None
        io.write(server.redirect(decision.node_id or "", decision.connector_name or "", decision.host,
                                       decision.port, decision.params))
    else:
        io.write(server.refuse(decision.status))
    io.mark_answered(env.linger)
