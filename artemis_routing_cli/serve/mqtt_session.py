"""MQTT on a redirecting acceptor: CONNECT -> client id -> authenticate -> route -> one CONNACK,
then close.

``MQTTProtocolHandler.handleConnect`` checks, in this order:

1. the client id (``validateClientID``): an empty one with clean session (3.x) / clean start (5)
   gets a generated id (a random UUID, then the CLIENT_ID key); an empty one *without* it is
   refused by ``handleInvalidClientId`` - CONNACK 0x02 Identifier rejected (3.x) or 0x85 Client
   Identifier not valid (5, with an empty property list) - and the connection is closed: no user
   check, no routing. Nothing else about the id is checked there (netty's decoder has already
   refused an MQTT 3.1 id outside 1..23 characters);
2. the user (``validateUser``): one the broker cannot validate gets CONNACK 0x86 (Bad user name or
   password) under MQTT 5 and 0x05 (Not authorized) under 3.x;
3. link stealing, then routing (``MQTTRoutingHandler``).
"""

from __future__ import annotations

import uuid

from ..protocols.mqtt import ConnectReceived, MqttServer
from .conn import ConnIO, Env

BAD_USER_NAME_OR_PASSWORD = 0x86
NOT_AUTHORIZED_3 = 0x05
CLIENT_IDENTIFIER_NOT_VALID = 0x85  # MQTTReasonCodes.CLIENT_IDENTIFIER_NOT_VALID
IDENTIFIER_REJECTED_3 = 0x02  # MQTTReasonCodes.IDENTIFIER_REJECTED_3


async def run(io: ConnIO, first: bytes, env: Env) -> None:
    server = MqttServer(max_packet_size=env.max_frame_size)
    events = server.receive_data(first)
    while True:
        for event in events:
            if not isinstance(event, ConnectReceived):
                continue
            client_id = event.client_id
            if not client_id:
                if not event.clean_start:
                    _reject_client_id(io, server, event, env)
                    return
                client_id = str(uuid.uuid4())  # setClientIdAssignedByBroker
            ok, identity = env.identify(event.username, event.password)
            if not ok:
                code = BAD_USER_NAME_OR_PASSWORD if event.is_v5 else NOT_AUTHORIZED_3
                io.write(server.connack(code))
                env.auth_failed(io.peer, "MQTT", event.username)
                return
            decision = await env.route(io.peer, "MQTT", client_id=client_id,
                                       username=identity.user if identity else event.username,
                                       roles=identity.roles if identity else ())
            if decision.redirect:
                assert decision.host is not None and decision.port is not None
                answer = server.redirect(decision.host, decision.port)
            else:
                answer = server.refuse(decision.status)
            io.write(answer)
            io.mark_answered(env.linger)
            return  # MQTTRoutingHandler disconnects after the CONNACK
        data = await io.read()
        if not data:
            return
        events = server.receive_data(data)


def _reject_client_id(io: ConnIO, server: MqttServer, event: ConnectReceived, env: Env) -> None:
    """handleInvalidClientId: [MQTT-3.1.3-8] an empty client id needs a clean session."""
    code = CLIENT_IDENTIFIER_NOT_VALID if event.is_v5 else IDENTIFIER_REJECTED_3
    io.write(server.connack(code))
    peer = io.peer
    flag = "clean start" if event.is_v5 else "clean session"
    env.metrics.handshake_errors.inc(peer.listener, "client_id_rejected")
    env.log.info("handshake", f"{peer.remote_address} [MQTT, {peer.listener}]: empty client id without {flag}: "
                              f"CONNACK 0x{code:02X}, closed before the user check and routing",
                 remote=peer.remote_address, protocol="MQTT", reason="client_id_rejected")
