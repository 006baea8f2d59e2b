"""Step 2 of a probe: a protocol handshake over an open connection, using the sans-IO codecs.

* CORE: ``ARTEMIS``, PING and SUBSCRIBE_TOPOLOGY_V2, as a real client starts; the PING echo is
  the handshake, and a single-node topology answer names the broker's node id.
* AMQP: SASL (PLAIN with the pool's username/password, else ANONYMOUS), then Open; the peer's
  Open gives its container id. A router that redirects answers Open with
  ``connection-establishment-failed`` and a Close: that is reported, and is not a success.
* MQTT 5: CONNECT (with the pool's credentials) -> CONNACK; reason 0 is a success. A broker that
  speaks only MQTT 3.1.1 (ActiveMQ Classic) answers 0x01 "unacceptable protocol version": the
  handshake is tried again as MQTT 3.1.1 on a fresh connection (:class:`RetryAs`).
* OpenWire: both sides send a WireFormatInfo at once; the peer's (magic ``ActiveMQ``) is the
  handshake (ActiveMQ Classic and Artemis both send theirs unasked).

Our client id / container id starts with ``$.artemis.internal.router.client.``, the prefix the
broker's own router uses, so a redirecting acceptor keeps the probe on the broker it reached.
The password never appears in a result: failures are described by what the peer answered.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

from ..errors import ProtocolError
from ..protocols import amqp as amqp_codec
from ..protocols import core as core_codec
from ..protocols import mqtt as mqtt_codec
from ..protocols import openwire as openwire_codec
from .connect import Connection
from .model import Credentials, Handshake

#: ConnectionRouter.CLIENT_ID_PREFIX: connections with this client id stay on the local broker.
ROUTER_CLIENT_ID_PREFIX = "$.artemis.internal.router.client."
#: After the PING echo, how long a CORE probe waits for the topology answer (a broker sends it
#: at once; a CORE peer that never does should not cost a whole timeout).
TOPOLOGY_GRACE_SECONDS = 0.5
READ_SIZE = 65536


class HandshakeTimeout(Exception):
    """The peer said nothing more before the deadline."""


class NotThisProtocol(Exception):
    """The peer hung up before saying anything in this protocol: ``auto`` tries the next one."""


class RetryAs(Exception):
    """The peer speaks the protocol, but another version of it: try ``protocol`` on a fresh
    connection (the peer closes this one after its answer)."""

    def __init__(self, protocol: str, why: str) -> None:
        super().__init__(why)
        self.protocol = protocol


HandshakeFn = Callable[[Connection, Credentials, float, str], Awaitable[Handshake]]


def probe_client_id() -> str:
    return ROUTER_CLIENT_ID_PREFIX + str(uuid.uuid4())


async def _read(conn: Connection, deadline: float) -> bytes:
    remaining = deadline - asyncio.get_running_loop().time()
    if remaining <= 0:
        raise HandshakeTimeout
    try:
        return await asyncio.wait_for(conn.reader.read(READ_SIZE), remaining)
    except asyncio.TimeoutError:
        raise HandshakeTimeout from None


async def _write(conn: Connection, data: bytes) -> None:
    if data:
        conn.writer.write(data)
        await conn.writer.drain()


async def core(conn: Connection, creds: Credentials, deadline: float, host: str) -> Handshake:
    client = core_codec.CoreClient()
    await _write(conn, client.handshake_bytes() + client.subscribe_topology_bytes())
    ponged = topology_done = False
    nodes: list[str] = []
    loop = asyncio.get_running_loop()
    while not (ponged and topology_done):
        try:
            data = await _read(conn, deadline)
        except HandshakeTimeout:
            if ponged:
                break
            raise
        if not data:
            if ponged:
                break
            raise NotThisProtocol("peer closed the connection without answering the CORE ping")
        for event in client.receive_data(data):
            if isinstance(event, core_codec.PongReceived) and not ponged:
                ponged = True
                deadline = min(deadline, loop.time() + TOPOLOGY_GRACE_SECONDS)
            elif isinstance(event, core_codec.TopologyReceived) and not event.exit:
                nodes.append(event.node_id)
                topology_done = topology_done or event.last
            elif isinstance(event, core_codec.DisconnectReceived):
                return Handshake("core", False, f"peer disconnected (reason {event.reason or 'unknown'})")
            elif isinstance(event, core_codec.ExceptionReceived):
                return Handshake("core", False, f"peer answered with error {event.code}: {event.message or ''}")
    node_id = nodes[0] if len(set(nodes)) == 1 else None
    detail = f"ping answered; node id {node_id}" if node_id else "ping answered"
    if len(set(nodes)) > 1:
        detail += f"; topology has {len(set(nodes))} nodes"
    return Handshake("core", True, detail, node_id)


def _describe_close(error: amqp_codec.ErrorCondition | None) -> str:
    if error is None:
        return "peer closed the AMQP connection"
    if error.condition == str(amqp_codec.REDIRECT):
        info = error.info or {}
        host = info.get("network-host")
        port = info.get("port")
        shown_port = int(port) if isinstance(port, int) else port
        return f"redirected to {host}:{shown_port} ({error.description or 'no description'})"
    text = error.condition
    if error.description:
        text += f": {error.description}"
    return text


async def amqp(conn: Connection, creds: Credentials, deadline: float, host: str) -> Handshake:
    mechanism = "PLAIN" if creds.username is not None else "ANONYMOUS"
    client = amqp_codec.AmqpClient(
        probe_client_id(), hostname=host, mechanism=mechanism,
        username=creds.username, password=(creds.password or "") if mechanism == "PLAIN" else None,
    )
    await _write(conn, client.initiate())
    refused_open = False
    while True:
        data = await _read(conn, deadline)
        if not data:
            if client.state in (amqp_codec.ClientState.EXPECT_SASL_HEADER, amqp_codec.ClientState.EXPECT_AMQP_HEADER):
                raise NotThisProtocol("peer closed the connection without an AMQP header")
            return Handshake("amqp", False, "peer closed the connection during the AMQP handshake")
        events = client.receive_data(data)
        await _write(conn, client.data_to_send())
        for event in events:
            if isinstance(event, amqp_codec.SaslOutcome) and not event.ok:
                what = "authentication failed" if event.code == amqp_codec.SASL_AUTH else "SASL failed"
                return Handshake("amqp", False, f"{what} (sasl-outcome code {event.code}, {mechanism})")
            if isinstance(event, amqp_codec.OpenReceived):
                props = {str(k): v for k, v in event.properties.items()}
                if props.get(str(amqp_codec.CONNECTION_ESTABLISHMENT_FAILED)) is True:
                    refused_open = True
                    continue
                await _write(conn, client.close())
                return Handshake("amqp", True, f"open; container id {event.container_id!r}", event.container_id)
            if isinstance(event, amqp_codec.CloseReceived):
                detail = _describe_close(event.error)
                if refused_open:
                    detail = "the peer turned the connection away: " + detail
                return Handshake("amqp", False, detail)


#: CONNACK return code of MQTT 3.x: "connection refused, unacceptable protocol version".
UNACCEPTABLE_PROTOCOL_VERSION = 0x01


async def mqtt(conn: Connection, creds: Credentials, deadline: float, host: str) -> Handshake:
    return await _mqtt(conn, creds, deadline, mqtt_codec.PROTOCOL_LEVEL_5)


async def mqtt311(conn: Connection, creds: Credentials, deadline: float, host: str) -> Handshake:
    return await _mqtt(conn, creds, deadline, mqtt_codec.PROTOCOL_LEVEL_311)


async def _mqtt(conn: Connection, creds: Credentials, deadline: float, level: int) -> Handshake:
    shown = "MQTT 5" if level == mqtt_codec.PROTOCOL_LEVEL_5 else "MQTT 3.1.1"
    client = mqtt_codec.MqttClient(level)
    await _write(conn, client.connect(probe_client_id(), username=creds.username,
                                      password=creds.password if creds.username is not None else None))
    while True:
        data = await _read(conn, deadline)
        if not data:
            raise NotThisProtocol("peer closed the connection without a CONNACK")
        for event in client.receive_data(data):
            if isinstance(event, mqtt_codec.Connack):
                if event.reason_code == mqtt_codec.SUCCESS:
                    await _write(conn, client.disconnect())
                    return Handshake("mqtt", True, f"CONNACK success ({shown})")
                if event.reason_code == UNACCEPTABLE_PROTOCOL_VERSION and level == mqtt_codec.PROTOCOL_LEVEL_5:
                    raise RetryAs("mqtt311", "CONNACK 0x01 unacceptable protocol version to MQTT 5")
                reason = event.reason_name if level == mqtt_codec.PROTOCOL_LEVEL_5 else "refused"
                detail = f"CONNACK {event.reason_code:#04x} {reason} ({shown})"
                if event.server_reference:
                    detail += f" -> {event.server_reference}"
                return Handshake("mqtt", False, detail)


async def openwire(conn: Connection, creds: Credentials, deadline: float, host: str) -> Handshake:
    client = openwire_codec.OpenWireClient()
    await _write(conn, client.handshake_bytes())
    while True:
        data = await _read(conn, deadline)
        if not data:
            raise NotThisProtocol("peer closed the connection without an OpenWire WireFormatInfo")
        peer = client.receive_data(data)
        if peer is not None:
            provider = peer.properties.get("ProviderName")
            version = peer.properties.get("ProviderVersion")
            who = f"; {provider} {version}" if isinstance(provider, str) and isinstance(version, str) else ""
            return Handshake("openwire", True, f"WireFormatInfo version {peer.version}{who}")


HANDSHAKES: dict[str, HandshakeFn] = {"core": core, "amqp": amqp, "mqtt": mqtt, "openwire": openwire,
                                      "mqtt311": mqtt311}


#: What ``auto`` does after one handshake: stop (the answer is the verdict) or try the next protocol.
STOP = "stop"
NEXT = "next"


async def run_handshake(
    fn: HandshakeFn, protocol: str, conn: Connection, creds: Credentials, deadline: float, host: str
) -> tuple[Handshake, str]:
    """One handshake, never raising: the outcome, and what ``auto`` does next: :data:`STOP` (the
    peer spoke this protocol: it answered or refused), :data:`NEXT` (it hung up, sent something
    else, or stayed silent: it may speak another), or the name of a protocol to retry on a fresh
    connection (:class:`RetryAs`)."""
    name = protocol.upper()
    try:
        return await fn(conn, creds, deadline, host), STOP
    except RetryAs as exc:
        return Handshake(protocol, False, str(exc)), exc.protocol
    except HandshakeTimeout:
        return Handshake(protocol, False, f"no {name} answer before the timeout"), NEXT
    except NotThisProtocol as exc:
        return Handshake(protocol, False, str(exc)), NEXT
    except ProtocolError as exc:
        return Handshake(protocol, False, f"peer does not speak {name}: {exc}"), NEXT
    except (ConnectionError, OSError) as exc:
        return Handshake(protocol, False, f"connection lost during the {name} handshake ({exc})"), NEXT
