"""MQTT on a redirecting acceptor: CONNECT -> authenticate -> route -> one CONNACK, then close.

A user the broker cannot validate gets CONNACK 0x86 (Bad user name or password) under MQTT 5 and
0x05 (Not authorized) under 3.x, as ``MQTTProtocolHandler.validateUser`` sends. An empty client
id gets a generated one (the broker assigns a UUID), which is then the CLIENT_ID key.
"""

from __future__ import annotations

import uuid

from ..protocols.mqtt import ConnectReceived, MqttServer
from .conn import ConnIO, Env

BAD_USER_NAME_OR_PASSWORD = 0x86
NOT_AUTHORIZED_3 = 0x05


async def run(io: ConnIO, first: bytes, env: Env) -> None:
    server = MqttServer(max_packet_size=env.max_frame_size)
    events = server.receive_data(first)
    while True:
        for event in events:
            if not isinstance(event, ConnectReceived):
                continue
            ok, identity = env.identify(event.username, event.password)
            if not ok:
                code = BAD_USER_NAME_OR_PASSWORD if event.is_v5 else NOT_AUTHORIZED_3
                io.write(server.connack(code))
                env.auth_failed(io.peer, "MQTT", event.username)
                return
            client_id = event.client_id or str(uuid.uuid4())
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
