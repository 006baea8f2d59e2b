"""CORE on a redirecting acceptor: housekeeping packets answered as the broker does (the client
waits for the topology answer before CREATESESSION), then CREATESESSION -> route ->
DISCONNECT_V3 + exception (redirect) or an exception (refusal, the connection stays open).

The HORNETQ protocol is the same manager for HornetQ clients (``HORNETQ`` prologue): a HornetQ
client's version is older than 2.18, so it gets code 108 (or 105 first for a bad user).

ActiveMQPacketHandler.handleCreateSession checks, in order: the client version is one the
broker knows (else code 108), the user (``--users-file``; else the security exception, code 105
AMQ229031, and the connection stays open for another try), the version supports routing (2.18+,
else code 108), then routes.

After any answer the broker leaves the socket for the client to close, and its failure check
(RemotingServiceImpl, every ``connection-ttl-check-interval``) only closes a connection that sent
nothing for a whole connection TTL: 60 s, or the TTL of the client's PINGs, or broker.xml's
``<connection-ttl-override>``. So does serve: a refused client that keeps pinging may retry on the
same connection as long as it likes; a silent one goes after the TTL.
"""

from __future__ import annotations

import time

from ..protocols import core_packets as pk
from ..protocols.core import DEFAULT_CONNECTION_TTL, CoreServer, CreateSessionReceived, PingReceived
from ..protocols.core_buffer import UnencodableParameter
from .amqp_settings import NO_TTL_OVERRIDE
from .conn import ConnIO, Env
from .decide import Decision

HORNETQ_PROLOGUE = b"HORNETQ"  # HornetQProtocolManager.handshake skips it


class _Ttl:
    """The connection's TTL as the broker keeps it (ms): the default, or ``<connection-ttl-override>``;
    without an override each PING's TTL replaces it (CoreProtocolManager.LocalChannelHandler)."""

    __slots__ = ("override", "ms")

    def __init__(self, override: int) -> None:
        self.override = override
        self.ms = DEFAULT_CONNECTION_TTL if override == NO_TTL_OVERRIDE else override

    def ping(self, ttl: int) -> None:
        if self.override == NO_TTL_OVERRIDE:
            self.ms = ttl

    def idle_limit(self, linger: float) -> float:
        """Seconds of silence the broker allows once the client has its answer (-1: no limit in
        the broker; serve keeps ``linger`` then, still renewed by the client's packets)."""
        return self.ms / 1000.0 if self.ms > 0 else linger


async def run(io: ConnIO, first: bytes, env: Env, prologue: bytes = pk.HANDSHAKE, protocol: str = "CORE") -> None:
    server = CoreServer(node_id=env.own_node_id, router=env.router_name, prologue=prologue)
    ttl = _Ttl(env.connection_ttl_override)
    events = server.receive_data(first)
    while True:
        for event in events:
            if isinstance(event, CreateSessionReceived):
                await _session(io, server, event, env, protocol, ttl)
            else:
                if isinstance(event, PingReceived):
                    ttl.ping(event.connection_ttl)
                io.write(server.reply(event, unique_event_id=int(time.time() * 1000)))
        data = await io.read()
        if not data:
            return
        events = server.receive_data(data)


async def run_hornetq(io: ConnIO, first: bytes, env: Env) -> None:
    """The HORNETQ manager: CORE's (HornetQProtocolManager extends CoreProtocolManager, adding
    only message-property interceptors), skipping a ``HORNETQ`` prologue instead of ``ARTEMIS``.
    It also takes the connections no manager claims (it accepts clients without a handshake)."""
    await run(io, first, env, HORNETQ_PROLOGUE, "HORNETQ")


async def _session(io: ConnIO, server: CoreServer, event: CreateSessionReceived, env: Env, protocol: str,
                   ttl: _Ttl) -> None:
    """Answer one CREATESESSION; the connection stays open whatever the answer, for as long as the
    client sends something within the connection TTL (RemotingServiceImpl's failure check)."""
    if event.version not in pk.COMPATIBLE_CLIENT_VERSIONS:
        io.write(server.refuse("REFUSED_USE_ANOTHER"))  # the codec answers code 108 here
        io.mark_answered(env.linger, ttl.idle_limit(env.linger))
        return
    ok, identity = env.identify(event.username, event.password)
    if not ok:
        io.write(server.reject_security(io.peer.broker_address))
        env.auth_failed(io.peer, protocol, event.username)
        io.mark_answered(env.linger, ttl.idle_limit(env.linger))  # it may try again with other credentials
        return
    if not event.supports_routing:
        env.log.info("handshake", f"{io.peer.remote_address} [{protocol}]: client version {event.version} cannot be "
                                  "routed (before 2.18): versions incompatible (AMQ229033)",
                     remote=io.peer.remote_address, client_version=event.version)
        io.write(server.refuse("REFUSED_USE_ANOTHER"))
        io.mark_answered(env.linger, ttl.idle_limit(env.linger))
        return
    if not event.v2 and env.service.router.key_type == "CLIENT_ID":
        env.log.info("handshake", f"{io.peer.remote_address} [{protocol}]: CREATESESSION without a client id "
                                  f"(version {event.version} sent the old packet: it had not read the topology, "
                                  "whose server version selects CREATESESSION_V2): the CLIENT_ID key is NULL, "
                                  "as in the broker",
                     remote=io.peer.remote_address, client_version=event.version, reason="no_client_id")
    decision = await env.route(io.peer, protocol, client_id=event.client_id,
                               username=identity.user if identity else event.username,
                               roles=identity.roles if identity else ())
    if decision.redirect:
        assert decision.host is not None and decision.port is not None and decision.connector is not None
        connector = decision.connector
        _say_guessed_node_ids(io, env, decision, protocol)
        try:
            answer = server.redirect(decision.node_id or "", connector.name, decision.host, decision.port,
                                     connector.params, extra_props=connector.extra_props,
                                     factory_class_name=connector.factory_class_name)
        except UnencodableParameter as exc:
            # The broker's DISCONNECT_V3 encoding throws after the channels are gone; its
            # handleCreateSession answers an internal error and the connection is of no more use.
            env.log.error("redirect", f"{io.peer.remote_address} [{protocol}]: connector {connector.name}: parameter "
                                      f"{exc.key!r} has no value (written without '='), which the broker cannot "
                                      f"send to a CORE client ({exc}): internal error, as the broker answers",
                          remote=io.peer.remote_address, connector=connector.name, parameter=exc.key)
            answer = server.internal_error()
        io.write(answer)
    else:
        io.write(server.refuse(decision.status))
    io.mark_answered(env.linger, ttl.idle_limit(env.linger))


def _say_guessed_node_ids(io: ConnIO, env: Env, decision: Decision, protocol: str) -> None:
    """DISCONNECT_V3 carries this broker's node id and the target's, as the broker sends them
    (``RemotingConnection.disconnect(REDIRECT, target.getNodeID(), connector)``); the client marks
    the first down in its topology. serve uses the ids given (``--node-id``, ``--targets``) or read
    by the readiness check (CORE topology, management API); where it has none it sends the name
    standing in for it, and says so in the log once per id."""
    service = env.service
    local = service.router.local
    guesses = []
    if not local.node_id_known and "\0own" not in service.guesses_logged:
        service.guesses_logged.add("\0own")
        guesses.append(f"this broker's own node id is unknown: {local.node_id!r} stands in (--node-id local=UUID)")
    name = decision.connector_name or "?"
    if not decision.node_id_known and name not in service.guesses_logged:
        service.guesses_logged.add(name)
        guesses.append(f"the node id of target {name} is unknown: {decision.node_id!r} stands in (--node-id "
                       f"{name}=UUID, --targets, or a readiness check that reads it)")
    for guess in guesses:
        env.log.warning("node-id", f"{io.peer.remote_address} [{protocol}]: CORE redirect: {guess}",
                        remote=io.peer.remote_address, router=env.router_name, guess=True)
