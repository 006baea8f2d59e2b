"""Sans-IO codec for the Artemis CORE protocol: the server side of a redirecting acceptor and a
minimal client for probes.

What a CORE client does on a new connection (ActiveMQClientProtocolManager,
ClientSessionFactoryImpl, ServerLocatorImpl), and what a broker answers (CoreProtocolManager,
ActiveMQPacketHandler, ActiveMQRoutingHandler):

1. client writes ASCII ``ARTEMIS``; the broker skips those 7 bytes (a client without them is
   still served as CORE when nothing else matched);
2. PING (type 10, channel 0, int64 connection TTL): the broker echoes the same ping;
3. only when reconnecting: CHECK_FOR_FAILOVER (-4, channel 1) -> CHECK_FOR_FAILOVER_REPLY(true);
4. SUBSCRIBE_TOPOLOGY_V2 (113, channel 0, cluster flag, client version): the client *waits* for
   the last topology message before it goes on. A non-clustered broker answers one
   CLUSTER_TOPOLOGY_V4 (-17) "node up" with its node id, no connectors and ``last=true``; the
   client version becomes the connection's channel version;
5. CREATESESSION_V2 (-18, channel 1) carries name, session channel, version, user, password, ...,
   client id. With a router on the acceptor the broker now either
   * redirects: DISCONNECT_V3 (-19, channel 0: own node id, reason REDIRECT=0, target node id,
     target connector) then EXCEPTION (20, channel 1) code 222 ROUTING_EXCEPTION, text
     ``AMQ229237: Connection router R redirected the connection to <connector>``;
   * refuses: EXCEPTION code 222 ``AMQ229238: Connection router R not ready``
     (REFUSED_UNAVAILABLE) or code 119 ``AMQ229240: Connection router R rejected the
     connection`` (REFUSED_USE_ANOTHER); the connection stays open;
   * or, for a client older than 2.18 (channel version < 131) or an incompatible version,
     answers EXCEPTION code 108 ``AMQ229033: Server and client versions incompatible``;
   * or, when the user cannot be validated (security enabled), answers EXCEPTION code 105
     SECURITY_EXCEPTION ``AMQ229031: Unable to validate user from ip:port. Username: U; SSL
     certificate subject DN: unavailable`` (``reject_security``); the connection stays open.
     ActiveMQPacketHandler checks the version list first, then the user, then routes.

The broker never closes the socket itself after a redirect; the client closes it.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols import core_packets as pk
from artemis_routing_cli.protocols.core_buffer import NETTY_CONNECTOR_FACTORY, ParamValue, Reader, TransportConfig

__all__ = [
    "MAX_FRAME_SIZE",
    "CoreClient",
    "CoreServer",
    "CoreState",
    "CreateSessionReceived",
    "DisconnectReceived",
    "Event",
    "ExceptionReceived",
    "FailoverCheckReceived",
    "FailoverCheckReplied",
    "HandshakeReceived",
    "PingReceived",
    "PongReceived",
    "ReattachSessionReceived",
    "SessionCreated",
    "TopologyReceived",
    "TopologySubscribed",
    "TransportConfig",
    "UnhandledPacket",
]

# The broker's ActiveMQFrameDecoder2 accepts frames up to Integer.MAX_VALUE. Everything a client
# sends before its session exists (PING, SUBSCRIBE_TOPOLOGY, CHECK_FOR_FAILOVER, REATTACH_SESSION,
# CREATESESSION) and everything a broker answers is a few hundred bytes, so we cap at 1 MiB to
# bound memory; a bigger frame is treated as a misbehaving peer.
MAX_FRAME_SIZE = 1 << 20

DEFAULT_CONNECTION_TTL = 60_000  # ActiveMQClient.DEFAULT_CONNECTION_TTL (ms)

MSG_REDIRECTED = "AMQ229237: Connection router {router} redirected the connection to {connector}"
MSG_NOT_READY = "AMQ229238: Connection router {router} not ready"
MSG_REJECTED = "AMQ229240: Connection router {router} rejected the connection"
MSG_INCOMPATIBLE = "AMQ229033: Server and client versions incompatible"
# SecurityStoreImpl.authenticationFailed; the DN is "unavailable" without a client certificate.
MSG_UNABLE_TO_VALIDATE = ("AMQ229031: Unable to validate user from {remote}. Username: {user}; "
                          "SSL certificate subject DN: {dn}")
CERT_DN_UNAVAILABLE = "unavailable"
EXC_SECURITY_EXCEPTION = 105  # ActiveMQExceptionType.SECURITY_EXCEPTION
EXC_INTERNAL_ERROR = 0  # ActiveMQExceptionType.INTERNAL_ERROR


class Event:
    """Base class of everything ``receive_data`` returns."""


@dataclass(frozen=True)
class HandshakeReceived(Event):
    """The 7-byte ``ARTEMIS`` prologue (absent for headerless legacy clients)."""


@dataclass(frozen=True)
class PingReceived(Event):
    connection_ttl: int


@dataclass(frozen=True)
class TopologySubscribed(Event):
    cluster_connection: bool
    client_version: int | None  # None for the old SUBSCRIBE_TOPOLOGY (112)


@dataclass(frozen=True)
class FailoverCheckReceived(Event):
    node_id: str | None


@dataclass(frozen=True)
class ReattachSessionReceived(Event):
    name: str
    last_confirmed_command_id: int


@dataclass(frozen=True)
class CreateSessionReceived(Event):
    """A decoded CREATESESSION / CREATESESSION_V2. ``password`` is never shown in ``repr``."""

    name: str
    session_channel_id: int
    version: int
    username: str | None
    password: str | None = field(repr=False)
    min_large_message_size: int
    xa: bool
    auto_commit_sends: bool
    auto_commit_acks: bool
    window_size: int
    pre_acknowledge: bool
    default_address: str | None
    client_id: str | None  # only CREATESESSION_V2 carries it
    v2: bool
    supports_routing: bool  # False: the broker answers "versions incompatible" (code 108)


@dataclass(frozen=True)
class UnhandledPacket(Event):
    """A valid packet the broker ignores (or drops) at this stage."""

    packet_type: int
    channel_id: int


@dataclass(frozen=True)
class PongReceived(Event):
    connection_ttl: int


@dataclass(frozen=True)
class TopologyReceived(Event):
    node_id: str
    exit: bool
    unique_event_id: int | None
    live: TransportConfig | None
    backup: TransportConfig | None
    last: bool
    backup_group_name: str | None
    scale_down_group_name: str | None
    server_version: int | None


@dataclass(frozen=True)
class DisconnectReceived(Event):
    node_id: str | None
    reason: str | None  # DisconnectReason name; None for DISCONNECT (v1) or an unknown byte
    target_node_id: str | None
    target: TransportConfig | None


@dataclass(frozen=True)
class ExceptionReceived(Event):
    channel_id: int
    code: int
    message: str | None


@dataclass(frozen=True)
class SessionCreated(Event):
    server_version: int


@dataclass(frozen=True)
class FailoverCheckReplied(Event):
    ok_to_failover: bool


class CoreState(Enum):
    AWAIT_HANDSHAKE = "AWAIT_HANDSHAKE"  # server: deciding whether "ARTEMIS" comes first
    OPEN = "OPEN"  # frames flow
    SESSION_REQUESTED = "SESSION_REQUESTED"  # server: CREATESESSION waits for redirect()/refuse()
    CLOSED = "CLOSED"  # server: redirected, channels gone, input is dropped


class _Framer:
    """Splits a byte stream into (type, channel, body) frames, buffering partial input."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[tuple[int, int, bytes]]:
        self._buf += data
        out: list[tuple[int, int, bytes]] = []
        while len(self._buf) >= 4:
            (length,) = struct.unpack_from(">i", self._buf)
            if length < pk.FRAME_HEADER_AFTER_LENGTH:
                raise ProtocolError(f"CORE frame length {length} is shorter than a packet header")
            if length > MAX_FRAME_SIZE:
                raise ProtocolError(f"CORE frame of {length} bytes exceeds the {MAX_FRAME_SIZE}-byte limit")
            if len(self._buf) < 4 + length:
                break
            packet_type, channel_id = struct.unpack_from(">bq", self._buf, 4)
            body = bytes(self._buf[4 + pk.FRAME_HEADER_AFTER_LENGTH : 4 + length])
            del self._buf[: 4 + length]
            if packet_type not in pk.KNOWN_PACKET_TYPES:
                raise ProtocolError(f"unknown CORE packet type {packet_type}")
            out.append((packet_type, channel_id, body))
        return out


def _decode_create_session(packet_type: int, body: bytes, channel_version: int) -> CreateSessionReceived:
    r = Reader(body)
    name = r.string()
    session_channel_id = r.long()
    version = r.int()
    username = r.nullable_string()
    password = r.nullable_string()
    min_large = r.int()
    xa = r.boolean()
    auto_commit_sends = r.boolean()
    auto_commit_acks = r.boolean()
    window_size = r.int()
    pre_ack = r.boolean()
    default_address = r.nullable_string()
    v2 = packet_type == pk.CREATESESSION_V2
    client_id = r.nullable_string() if v2 else None
    effective = channel_version if channel_version else version
    routable = version in pk.COMPATIBLE_CLIENT_VERSIONS and effective >= pk.ARTEMIS_2_18_0_VERSION
    return CreateSessionReceived(
        name=name,
        session_channel_id=session_channel_id,
        version=version,
        username=username,
        password=password,
        min_large_message_size=min_large,
        xa=xa,
        auto_commit_sends=auto_commit_sends,
        auto_commit_acks=auto_commit_acks,
        window_size=window_size,
        pre_acknowledge=pre_ack,
        default_address=default_address,
        client_id=client_id,
        v2=v2,
        supports_routing=routable,
    )


class CoreServer:
    """The broker side of one CORE connection on a redirecting acceptor.

    ``node_id`` is this listener's own node id (sent in topology and DISCONNECT_V3), ``router``
    the connection-router name used in the broker's exception texts.
    """

    def __init__(self, *, node_id: str, router: str, prologue: bytes = pk.HANDSHAKE) -> None:
        """``prologue`` is what the broker's manager skips when a client starts with it: ``ARTEMIS``
        for CORE, ``HORNETQ`` for the HORNETQ manager (CORE's, for HornetQ clients)."""
        self.node_id = node_id
        self.router = router
        self.prologue = prologue
        self.state = CoreState.AWAIT_HANDSHAKE
        self.channel_version = 0  # RemotingConnectionImpl.channelVersion
        self._prologue = bytearray()
        self._framer = _Framer()
        self._session: CreateSessionReceived | None = None

    # -- input -------------------------------------------------------------------------------
    def receive_data(self, data: bytes) -> list[Event]:
        events: list[Event] = []
        if self.state is CoreState.CLOSED:
            return events
        if self.state is CoreState.AWAIT_HANDSHAKE:
            self._prologue += data
            prologue = self.prologue
            if len(self._prologue) < len(prologue) and prologue.startswith(bytes(self._prologue)):
                return events
            data = bytes(self._prologue)
            self._prologue.clear()
            if data.startswith(prologue):
                data = data[len(prologue) :]
                events.append(HandshakeReceived())
            self.state = CoreState.OPEN
        for packet_type, channel_id, body in self._framer.feed(data):
            if self.state is CoreState.CLOSED:
                break
            event = self._handle(packet_type, channel_id, body)
            if event is not None:
                events.append(event)
        return events

    def _handle(self, packet_type: int, channel_id: int, body: bytes) -> Event | None:
        r = Reader(body)
        if channel_id == pk.CHANNEL_PING:
            if packet_type == pk.PING:
                return PingReceived(r.long())
            if packet_type in (pk.SUBSCRIBE_TOPOLOGY, pk.SUBSCRIBE_TOPOLOGY_V2):
                cluster = r.boolean()
                client_version = None
                if packet_type == pk.SUBSCRIBE_TOPOLOGY_V2:
                    client_version = r.int()
                    self.channel_version = client_version
                return TopologySubscribed(cluster, client_version)
        elif channel_id == pk.CHANNEL_SESSION:
            if packet_type in (pk.CREATESESSION, pk.CREATESESSION_V2):
                if self.state is CoreState.SESSION_REQUESTED:
                    raise ProtocolError("second CREATESESSION before the first was answered")
                event = _decode_create_session(packet_type, body, self.channel_version)
                if self.channel_version == 0 and event.version in pk.COMPATIBLE_CLIENT_VERSIONS:
                    self.channel_version = event.version
                self._session = event
                self.state = CoreState.SESSION_REQUESTED
                return event
            if packet_type == pk.CHECK_FOR_FAILOVER:
                return FailoverCheckReceived(r.nullable_string())
            if packet_type == pk.REATTACH_SESSION:
                return ReattachSessionReceived(r.string(), r.int())
        return UnhandledPacket(packet_type, channel_id)

    # -- output ------------------------------------------------------------------------------
    def reply(self, event: Event, *, unique_event_id: int = 0) -> bytes:
        """The broker's standard answer to a housekeeping event (b"" when it sends none).

        ``unique_event_id`` is the topology event id; the broker uses its clock
        (``System.currentTimeMillis()``), so the caller passes the current time in ms.
        """
        if isinstance(event, PingReceived):
            return pk.ping(event.connection_ttl)
        if isinstance(event, TopologySubscribed):
            return pk.cluster_topology_single_node(self.node_id, unique_event_id, self.channel_version)
        if isinstance(event, FailoverCheckReceived):
            # ActiveMQPacketHandler: ok unless an HA scale-down policy says otherwise.
            return pk.check_failover_reply(True)
        if isinstance(event, ReattachSessionReceived):
            # No such session here: "not found", the client then creates a new session.
            return pk.reattach_session_response(-1, False)
        return b""

    def redirect(
        self,
        node_id: str,
        connector_name: str,
        host: str,
        port: int,
        params: Mapping[str, ParamValue] | None = None,
        *,
        extra_props: Mapping[str, ParamValue] | None = None,
        factory_class_name: str = NETTY_CONNECTOR_FACTORY,
    ) -> bytes:
        """Answer the pending CREATESESSION by redirecting to target ``node_id``.

        ``params`` and ``extra_props`` are the target connector's (``TransportConfiguration``);
        by default ``host`` and ``port`` as the strings a ``tcp://host:port`` connector URL yields.
        A parameter the broker cannot encode (a ``null`` value) raises
        :class:`~.core_buffer.UnencodableParameter`; the session is then gone: answer it with
        :meth:`internal_error`, as the broker does.
        """
        session = self._take_session()
        if not session.supports_routing:
            self.state = CoreState.OPEN
            return pk.exception(pk.EXC_INCOMPATIBLE_CLIENT_SERVER_VERSIONS, MSG_INCOMPATIBLE)
        connector = TransportConfig(
            connector_name,
            factory_class_name,
            dict(params) if params is not None else {"host": host, "port": str(port)},
            dict(extra_props) if extra_props is not None else {},
        )
        # RemotingConnectionImpl.disconnect removes every channel before it encodes the packet
        self.state = CoreState.CLOSED
        text = MSG_REDIRECTED.format(router=self.router, connector=connector.java_to_string())
        return pk.disconnect_v3(self.node_id, pk.REASON_REDIRECT, node_id, connector) + pk.exception(
            pk.EXC_ROUTING_EXCEPTION, text
        )

    @staticmethod
    def internal_error() -> bytes:
        """What the client gets when the broker's redirect fails to encode the connector:
        handleCreateSession catches the exception and answers ``ActiveMQInternalErrorException``
        (code 0; its message is the empty string ``ActiveMQException(type)`` gives) on channel 1."""
        return pk.exception(EXC_INTERNAL_ERROR, "")

    def refuse(self, status: str) -> bytes:
        """Answer the pending CREATESESSION with a refusal (``REFUSED_USE_ANOTHER`` or
        ``REFUSED_UNAVAILABLE``); the connection stays open and the client may try again."""
        session = self._take_session()
        self.state = CoreState.OPEN
        if not session.supports_routing:
            return pk.exception(pk.EXC_INCOMPATIBLE_CLIENT_SERVER_VERSIONS, MSG_INCOMPATIBLE)
        if status == "REFUSED_UNAVAILABLE":
            return pk.exception(pk.EXC_ROUTING_EXCEPTION, MSG_NOT_READY.format(router=self.router))
        if status == "REFUSED_USE_ANOTHER":
            return pk.exception(pk.EXC_REMOTE_DISCONNECT, MSG_REJECTED.format(router=self.router))
        raise ValueError(f"unknown refusal status {status!r}")

    def reject_security(self, remote_address: str, cert_subject_dn: str = CERT_DN_UNAVAILABLE) -> bytes:
        """Answer the pending CREATESESSION as the broker does when the user is not valid:
        EXCEPTION code 105 (AMQ229031); the connection stays open and the client may retry.

        ``remote_address`` is ``connection.getRemoteAddress()``: the socket address without the
        leading ``/`` (``10.0.0.1:5000``; SocketAddressUtil, Artemis 2.43 and later). The
        user named is the one the client sent (``null`` when it sent none), never the password.
        """
        session = self._take_session()
        self.state = CoreState.OPEN
        user = "null" if session.username is None else session.username
        text = MSG_UNABLE_TO_VALIDATE.format(remote=remote_address, user=user, dn=cert_subject_dn)
        return pk.exception(EXC_SECURITY_EXCEPTION, text)

    def _take_session(self) -> CreateSessionReceived:
        if self.state is not CoreState.SESSION_REQUESTED or self._session is None:
            raise RuntimeError("no CREATESESSION is waiting for an answer")
        session, self._session = self._session, None
        return session


_TOPOLOGY_TYPES = (
    pk.CLUSTER_TOPOLOGY,
    pk.CLUSTER_TOPOLOGY_V2,
    pk.CLUSTER_TOPOLOGY_V3,
    pk.CLUSTER_TOPOLOGY_V4,
)


class CoreClient:
    """A minimal CORE client for probes: handshake, ping, topology, session creation."""

    def __init__(self) -> None:
        self.state = CoreState.OPEN
        self._framer = _Framer()

    @staticmethod
    def handshake_bytes(connection_ttl: int = DEFAULT_CONNECTION_TTL) -> bytes:
        """``ARTEMIS`` followed by the first ping, as a real client starts."""
        return pk.HANDSHAKE + pk.ping(connection_ttl)

    @staticmethod
    def ping_bytes(connection_ttl: int = DEFAULT_CONNECTION_TTL) -> bytes:
        return pk.ping(connection_ttl)

    @staticmethod
    def subscribe_topology_bytes(
        client_version: int = pk.SERVER_VERSION, cluster_connection: bool = False
    ) -> bytes:
        return pk.subscribe_topology_v2(cluster_connection, client_version)

    @staticmethod
    def create_session_bytes(
        name: str,
        *,
        username: str | None = None,
        password: str | None = None,
        client_id: str | None = None,
        version: int = pk.SERVER_VERSION,
        session_channel_id: int = pk.FIRST_USER_CHANNEL,
        min_large_message_size: int = 100 * 1024,
        window_size: int = -1,
    ) -> bytes:
        """CREATESESSION_V2 when ``version`` >= 131 (what a 2.18+ client sends once it knows the
        server version), else the old CREATESESSION without client id."""
        return pk.create_session(
            name=name,
            session_channel_id=session_channel_id,
            version=version,
            username=username,
            password=password,
            min_large_message_size=min_large_message_size,
            xa=False,
            auto_commit_sends=True,
            auto_commit_acks=True,
            window_size=window_size,
            pre_acknowledge=False,
            default_address=None,
            client_id=client_id,
            v2=version >= pk.ARTEMIS_2_18_0_VERSION,
        )

    def receive_data(self, data: bytes) -> list[Event]:
        events: list[Event] = []
        for packet_type, channel_id, body in self._framer.feed(data):
            events.append(self._handle(packet_type, channel_id, body))
        return events

    def _handle(self, packet_type: int, channel_id: int, body: bytes) -> Event:
        r = Reader(body)
        if packet_type == pk.PING:
            return PongReceived(r.long())
        if packet_type in (
            pk.CLUSTER_TOPOLOGY,
            pk.CLUSTER_TOPOLOGY_V2,
            pk.CLUSTER_TOPOLOGY_V3,
            pk.CLUSTER_TOPOLOGY_V4,
        ):
            return _decode_topology(packet_type, r)
        if packet_type in (pk.DISCONNECT, pk.DISCONNECT_V2, pk.DISCONNECT_V3):
            node_id = r.nullable_simple_string()
            if packet_type == pk.DISCONNECT:
                return DisconnectReceived(node_id, None, None, None)
            if packet_type == pk.DISCONNECT_V2:
                return DisconnectReceived(node_id, "SCALE_DOWN", r.nullable_simple_string(), None)
            reason = pk.DISCONNECT_REASONS.get(r.byte())
            target_node = r.nullable_simple_string()
            target = r.transport_config() if r.boolean() else None
            return DisconnectReceived(node_id, reason, target_node, target)
        if packet_type == pk.EXCEPTION:
            return ExceptionReceived(channel_id, r.int(), r.nullable_string())
        if packet_type == pk.CREATESESSION_RESP:
            return SessionCreated(r.int())
        if packet_type == pk.CHECK_FOR_FAILOVER_REPLY:
            return FailoverCheckReplied(r.boolean())
        return UnhandledPacket(packet_type, channel_id)


def _decode_topology(packet_type: int, r: Reader) -> TopologyReceived:
    exit_ = r.boolean()
    node_id = r.string()
    unique_event_id = None if packet_type == pk.CLUSTER_TOPOLOGY else r.long()
    live = backup = None
    last = False
    if not exit_:
        live = r.transport_config() if r.boolean() else None
        backup = r.transport_config() if r.boolean() else None
        last = r.boolean()
    backup_group = scale_down_group = None
    server_version = None
    if packet_type != pk.CLUSTER_TOPOLOGY:
        if r.remaining > 0:  # ClusterTopologyChangeMessage_V2 treats it as optional
            backup_group = r.nullable_string()
        if packet_type in (pk.CLUSTER_TOPOLOGY_V3, pk.CLUSTER_TOPOLOGY_V4):
            scale_down_group = r.nullable_string()
        if packet_type == pk.CLUSTER_TOPOLOGY_V4:
            server_version = r.int()
    return TopologyReceived(
        node_id, exit_, unique_event_id, live, backup, last, backup_group, scale_down_group, server_version
    )
