"""OpenWire on a redirecting acceptor: the broker's WireFormatInfo at once, BrokerInfo after the
client's, then ConnectionInfo -> ConnectionControl(redirect) and close, or close (refusal).

OpenWireConnection.processAddConnection validates the user first: one that ``--users-file``
rejects gets the broker's SecurityException ("User name [U] or password is invalid.", caused by
AMQ229031) and the connection is stopped 2 s later. Then a client that is not fault tolerant (no
``failover:`` URL) is refused before any routing, with the broker's "Client not fault tolerant"
exception and a close 2 s later.
"""

from __future__ import annotations

import asyncio

from ..protocols.openwire import ConnectionInfoReceived, OpenWireServer, WireFormatReceived
from .conn import ConnIO, Env, peer_address


async def run(io: ConnIO, first: bytes, env: Env) -> None:
    server = OpenWireServer(broker_id=env.own_node_id, broker_name=env.broker_name,
                            broker_url=local_address(io, env))
    io.write(server.handshake_bytes())
    events = server.receive_data(first)
    while True:
        for event in events:
            if isinstance(event, WireFormatReceived):
                io.write(server.reply(event))
            elif isinstance(event, ConnectionInfoReceived):
                await _connection(io, server, event, env)
                return
        data = await io.read()
        if not data:
            return
        events = server.receive_data(data)


def local_address(io: ConnIO, env: Env) -> str | None:
    """BrokerInfo's brokerURL: ``connection.getLocalAddress()``, the accepted socket's own address as
    Java prints it without the leading ``/`` (``127.0.0.1:61616``)."""
    name = io.transport.get_extra_info("sockname")
    if name is None:
        return None
    address = peer_address(name, env.service.router.native_transport, env.service.router.broker_version)
    return address[1:] if address.startswith("/") else address


async def _connection(io: ConnIO, server: OpenWireServer, event: ConnectionInfoReceived, env: Env) -> None:
    ok, identity = env.identify(event.username, event.password)
    if not ok:
        env.auth_failed(io.peer, "OPENWIRE", event.username)
        answer = server.reject_security(io.peer.broker_address)
    elif not event.fault_tolerant:
        env.log.info("handshake", f"{io.peer.remote_address} [OPENWIRE]: client not fault tolerant: refused "
                                  "before routing", remote=io.peer.remote_address)
        answer = server.refuse("REFUSED_USE_ANOTHER")
    else:
        decision = await env.route(io.peer, "OPENWIRE", client_id=event.client_id,
                                   username=identity.user if identity else event.username,
                                   roles=identity.roles if identity else ())
        if decision.redirect:
            assert decision.host is not None and decision.port is not None
            answer = server.redirect(decision.host, decision.port)
        else:
            answer = server.refuse(decision.status)
    io.write(answer)
    io.mark_answered(env.linger)
    if server.close_delay_ms:
        await asyncio.sleep(server.close_delay_ms / 1000.0)  # OpenWireConnection's delayed stop
