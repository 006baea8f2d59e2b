"""Sans-IO codec for the server side of an OpenWire (ActiveMQ 5 client) connection on a
redirecting Artemis acceptor.

What the broker does (OpenWireProtocolManager, OpenWireConnection, OpenWireRoutingHandler):

1. as soon as the protocol is detected it sends its own WireFormatInfo, loose-encoded with a
   size prefix (nothing is negotiated yet): version 12, StackTraceEnabled, TcpNoDelayEnabled,
   TightEncodingEnabled, MaxFrameSizeEnabled true; CacheEnabled, SizePrefixDisabled false;
   inactivity 30000/10000 ms, CacheSize 1024, MaxFrameSize Long.MAX_VALUE, provider ActiveMQ;
2. on the client's WireFormatInfo both sides take the lower version and AND the flags (so the
   marshal cache is always off and the size prefix always on - Artemis' frame parser needs it);
   the broker then sends a BrokerInfo in the negotiated encoding;
3. on ConnectionInfo with a router on the acceptor:
   * a client that is not fault tolerant (no ``failover:`` URL) is refused before any routing:
     ExceptionResponse(java.lang.IllegalStateException "Client not fault tolerant") correlated to
     the ConnectionInfo, and the connection is stopped 2000 ms later;
   * redirect: ConnectionControl(connectedBrokers ``tcp://H:P``, rebalanceConnection=true), then
     the socket is closed at once (the plain Response that follows is lost with the socket);
   * refusal (not ready / use another): nothing is sent, the socket is closed at once;
   * before any of that the user is validated (``OpenWireProtocolManager.validateUser``): an
     invalid user gets ExceptionResponse(java.lang.SecurityException "User name [U] or password
     is invalid.", caused by ActiveMQSecurityException AMQ229031) - a ConnectionError when no
     response was required - and the connection is stopped 2000 ms later, as for any exception
     answering a ConnectionInfo (``reject_security``).

The broker's ExceptionResponse carries the Java stack trace; this codec sends the same exception
class and message with zero stack frames (clients only use class and message).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols import openwire_marshal as ow

__all__ = [
    "MAX_FRAME_SIZE",
    "NOT_FAULT_TOLERANT_STOP_DELAY_MS",
    "ConnectionInfoReceived",
    "OpenWireClient",
    "Event",
    "KeepAliveReceived",
    "OpenWireServer",
    "OpenWireState",
    "UnhandledCommand",
    "WireFormatReceived",
    "server_wireformat",
]

# Artemis' OpenWireFrameParser and the OpenWire default (maxFrameSize Long.MAX_VALUE) accept any
# size; WireFormatInfo and ConnectionInfo are well under a kilobyte, so 1 MiB bounds memory.
MAX_FRAME_SIZE = 1 << 20

# OpenWireConnection.act: delayedStop(2000, ...) after an ExceptionResponse to ConnectionInfo.
NOT_FAULT_TOLERANT_STOP_DELAY_MS = 2000

# OpenWireProtocolManager.validateUser wraps the broker's ActiveMQSecurityException (AMQ229031
# from SecurityStoreImpl.authenticationFailed) in a java.lang.SecurityException.
SECURITY_EXCEPTION_CLASS = "java.lang.SecurityException"
MSG_INVALID_USER = "User name [{user}] or password is invalid."
SECURITY_CAUSE_CLASS = "org.apache.activemq.artemis.api.core.ActiveMQSecurityException"
MSG_UNABLE_TO_VALIDATE = ("AMQ229031: Unable to validate user from {remote}. Username: {user}; "
                          "SSL certificate subject DN: {dn}")
CERT_DN_UNAVAILABLE = "unavailable"

# CommandTypes.PROTOCOL_VERSION of activemq-client 5.19.1 and the versions its marshallers exist
# for. Version 1 (ActiveMQ 4.x) is accepted by the broker but not by this codec.
SERVER_OPENWIRE_VERSION = 12
SUPPORTED_VERSIONS = frozenset((9, 10, 11, 12))

# Long.MAX_VALUE: OpenWireFormat.DEFAULT_MAX_FRAME_SIZE.
_JAVA_LONG_MAX = (1 << 63) - 1


def server_wireformat(provider_version: str | None = "5.19.1") -> ow.WireFormat:
    """The WireFormatInfo an Artemis 2.4x OpenWire acceptor prefers (OpenWireFormatFactory
    defaults with the cache disabled). ``provider_version`` is the bundled activemq-client jar
    version (its Implementation-Version; ``None`` encodes a null)."""
    return ow.WireFormat(
        SERVER_OPENWIRE_VERSION,
        {
            "StackTraceEnabled": True,
            "CacheEnabled": False,
            "TcpNoDelayEnabled": True,
            "TightEncodingEnabled": True,
            "SizePrefixDisabled": False,
            "MaxInactivityDuration": ow.JavaLong(30_000),
            "MaxInactivityDurationInitalDelay": ow.JavaLong(10_000),
            "CacheSize": 1024,
            "MaxFrameSize": ow.JavaLong(_JAVA_LONG_MAX),
            "MaxFrameSizeEnabled": True,
            "ProviderName": "ActiveMQ",
            "ProviderVersion": provider_version,
            "PlatformDetails": "Java",
        },
    )


class Event:
    """Base class of everything ``receive_data`` returns."""


@dataclass(frozen=True)
class WireFormatReceived(Event):
    announced_version: int
    version: int  # negotiated
    tight_encoding: bool  # negotiated
    stack_trace: bool  # negotiated
    properties: dict[str, object] = field(repr=False)


@dataclass(frozen=True)
class ConnectionInfoReceived(Event):
    """A decoded ConnectionInfo. ``password`` is never shown in ``repr``."""

    command_id: int
    response_required: bool
    connection_id: str | None
    client_id: str | None
    username: str | None
    password: str | None = field(repr=False)
    fault_tolerant: bool
    failover_reconnect: bool
    manageable: bool
    client_master: bool
    client_ip: str | None


@dataclass(frozen=True)
class KeepAliveReceived(Event):
    """The broker ignores keep-alives completely (no answer)."""

    command_id: int


@dataclass(frozen=True)
class UnhandledCommand(Event):
    data_type: int


class OpenWireState(Enum):
    AWAIT_WIREFORMAT = "AWAIT_WIREFORMAT"
    OPEN = "OPEN"
    CONNECTION_REQUESTED = "CONNECTION_REQUESTED"  # waiting for redirect()/refuse()
    CLOSED = "CLOSED"  # answered; see close_delay_ms


def _java_min(preferred: int, other: int) -> int:
    """OpenWireFormat.min: a non-positive peer value means "no preference"."""
    return preferred if (preferred < other and preferred > 0) or other <= 0 else other


class OpenWireServer:
    """The broker side of one OpenWire connection on a redirecting acceptor."""

    def __init__(
        self,
        *,
        broker_id: str,
        broker_name: str,
        broker_url: str | None = None,
        provider_version: str | None = "5.19.1",
    ) -> None:
        self.broker_id = broker_id
        self.broker_name = broker_name
        self.broker_url = broker_url
        self.preferred = server_wireformat(provider_version)
        self.state = OpenWireState.AWAIT_WIREFORMAT
        self.version = SERVER_OPENWIRE_VERSION
        self.tight = False  # before negotiation both sides speak loose encoding
        self.stack_trace = False
        self.close_delay_ms: int | None = None  # set by redirect()/refuse(): close after this long
        self._buf = bytearray()
        self._connection: ConnectionInfoReceived | None = None

    def handshake_bytes(self) -> bytes:
        """The broker's own WireFormatInfo, sent right after protocol detection."""
        return ow.size_prefixed(
            bytes((ow.WIREFORMAT_INFO,)) + ow.encode_wireformat_info(self.preferred, tight=False)
        )

    # -- input -------------------------------------------------------------------------------
    def receive_data(self, data: bytes) -> list[Event]:
        events: list[Event] = []
        if self.state is OpenWireState.CLOSED:
            return events
        self._buf += data
        while len(self._buf) >= 4:
            (size,) = struct.unpack_from(">i", self._buf)
            if size < 1:
                raise ProtocolError(f"OpenWire frame size {size} is too small")
            if size > MAX_FRAME_SIZE:
                raise ProtocolError(f"OpenWire frame of {size} bytes exceeds the {MAX_FRAME_SIZE}-byte limit")
            if len(self._buf) < 4 + size:
                break
            command = bytes(self._buf[4 : 4 + size])
            del self._buf[: 4 + size]
            event = self._handle(command)
            if event is not None:
                events.append(event)
            if self.state is OpenWireState.CLOSED:
                break
        return events

    def _handle(self, command: bytes) -> Event | None:
        data = ow.Input(command)
        kind = data.ubyte()
        if kind == 0:
            return None  # a marshalled null (NULL_TYPE): nothing to process
        if kind == ow.WIREFORMAT_INFO:
            return self._negotiate(ow.decode_wireformat_info(data, self.tight))
        if kind == ow.CONNECTION_INFO:
            if self.state is OpenWireState.CONNECTION_REQUESTED:
                raise ProtocolError("second ConnectionInfo before the first was answered")
            info = ow.decode_connection_info(data, self.tight)
            event = ConnectionInfoReceived(
                command_id=info.command_id,
                response_required=info.response_required,
                connection_id=info.connection_id,
                client_id=info.client_id,
                username=info.username,
                password=info.password,
                fault_tolerant=info.fault_tolerant,
                failover_reconnect=info.failover_reconnect,
                manageable=info.manageable,
                client_master=info.client_master,
                client_ip=info.client_ip,
            )
            self._connection = event
            self.state = OpenWireState.CONNECTION_REQUESTED
            return event
        if kind == ow.KEEP_ALIVE_INFO:
            _, command_id, _ = ow.decode_command_header(data, self.tight)
            return KeepAliveReceived(command_id)
        return UnhandledCommand(kind)

    def _negotiate(self, peer: ow.WireFormat) -> WireFormatReceived:
        version = _java_min(self.preferred.version, peer.version)
        if version not in SUPPORTED_VERSIONS:
            raise ProtocolError(f"OpenWire version {version} is not supported")
        self.version = version
        self.tight = peer.flag("TightEncodingEnabled") and self.preferred.flag("TightEncodingEnabled")
        self.stack_trace = peer.flag("StackTraceEnabled") and self.preferred.flag("StackTraceEnabled")
        if self.state is OpenWireState.AWAIT_WIREFORMAT:
            self.state = OpenWireState.OPEN
        return WireFormatReceived(peer.version, version, self.tight, self.stack_trace, dict(peer.properties))

    # -- output ------------------------------------------------------------------------------
    def reply(self, event: Event) -> bytes:
        """The broker's answer to a housekeeping event: BrokerInfo after a WireFormatInfo."""
        if isinstance(event, WireFormatReceived):
            return ow.size_prefixed(
                ow.encode_broker_info(self.broker_id, self.broker_url, self.broker_name, tight=self.tight)
            )
        return b""

    def redirect(self, host: str, port: int) -> bytes:
        """Answer the pending ConnectionInfo by sending a fault-tolerant client to ``host:port``.

        A client that is not fault tolerant gets the broker's refusal instead; check
        ``close_delay_ms`` for when to close the socket.
        """
        connection = self._take_connection()
        if not connection.fault_tolerant:
            return self._not_fault_tolerant(connection)
        self.close_delay_ms = 0
        control = ow.encode_connection_control(f"tcp://{host}:{port}", True, tight=self.tight)
        return ow.size_prefixed(control)

    def refuse(self, status: str) -> bytes:
        """Answer the pending ConnectionInfo with a refusal: the broker sends nothing and closes
        (``REFUSED_USE_ANOTHER``/``REFUSED_UNAVAILABLE`` look the same to an OpenWire client)."""
        if status not in ("REFUSED_USE_ANOTHER", "REFUSED_UNAVAILABLE"):
            raise ValueError(f"unknown refusal status {status!r}")
        connection = self._take_connection()
        if not connection.fault_tolerant:
            return self._not_fault_tolerant(connection)
        self.close_delay_ms = 0
        return b""

    def reject_security(self, remote_address: str, cert_subject_dn: str = CERT_DN_UNAVAILABLE) -> bytes:
        """Answer the pending ConnectionInfo as the broker does when the user is not valid (this
        comes before the fault-tolerance check and before routing); close after
        ``close_delay_ms``. ``remote_address`` is ``connection.getRemoteAddress()`` (``10.0.0.1:5000``,
        no leading ``/`` since Artemis 2.43)."""
        connection = self._take_connection()
        self.close_delay_ms = NOT_FAULT_TOLERANT_STOP_DELAY_MS
        user = "null" if connection.username is None else connection.username
        chain = (
            (SECURITY_EXCEPTION_CLASS, MSG_INVALID_USER.format(user=user)),
            (SECURITY_CAUSE_CLASS, MSG_UNABLE_TO_VALIDATE.format(remote=remote_address, user=user,
                                                                 dn=cert_subject_dn)),
        )
        return ow.size_prefixed(_exception_command(connection, chain, tight=self.tight,
                                                   stack_trace=self.stack_trace))

    def _not_fault_tolerant(self, connection: ConnectionInfoReceived) -> bytes:
        self.close_delay_ms = NOT_FAULT_TOLERANT_STOP_DELAY_MS
        class_name, message = "java.lang.IllegalStateException", "Client not fault tolerant"
        if connection.response_required:
            body = ow.encode_exception_response(
                connection.command_id, class_name, message, tight=self.tight, stack_trace=self.stack_trace
            )
        else:
            body = ow.encode_connection_error(
                class_name, message, tight=self.tight, stack_trace=self.stack_trace
            )
        return ow.size_prefixed(body)

    def _take_connection(self) -> ConnectionInfoReceived:
        if self.state is not OpenWireState.CONNECTION_REQUESTED or self._connection is None:
            raise RuntimeError("no ConnectionInfo is waiting for an answer")
        connection, self._connection = self._connection, None
        self.state = OpenWireState.CLOSED
        return connection


def _exception_command(connection: ConnectionInfoReceived, chain: Sequence[tuple[str, str | None]], *,
                       tight: bool, stack_trace: bool) -> bytes:
    """ExceptionResponse correlated to the ConnectionInfo (ConnectionError when it wanted no
    response) carrying a throwable and its causes, each without stack frames.

    BaseDataStreamMarshaller writes a throwable as class, message and - only when stack traces
    are negotiated - its frames followed by its cause, recursively; without stack traces the
    causes are not sent at all.
    """
    bs = ow.BooleanStreamWriter() if tight else None
    out = bytearray(struct.pack(">i", 0))  # command id
    ow.write_bool(False, out, bs)  # responseRequired
    if connection.response_required:
        kind = ow.EXCEPTION_RESPONSE
        out += struct.pack(">i", connection.command_id)  # correlation id
    else:
        kind = ow.CONNECTION_ERROR
    for class_name, message in chain:
        ow.write_bool(True, out, bs)  # throwable != null
        ow.write_string(class_name, out, bs)
        ow.write_string(message, out, bs)
        if not stack_trace:
            break
        out += struct.pack(">h", 0)  # no StackTraceElements
    if stack_trace:
        ow.write_bool(False, out, bs)  # the last cause is null
    if kind == ow.CONNECTION_ERROR:
        ow.write_bool(False, out, bs)  # connectionId == null
    return bytes((kind,)) + (bs.getvalue() if bs is not None else b"") + bytes(out)


class OpenWireClient:
    """A probe's half of the OpenWire handshake: both sides send a WireFormatInfo at once, and the
    peer's (magic ``ActiveMQ``, loose-encoded with a size prefix) shows that it speaks OpenWire.
    ActiveMQ Classic and Artemis both send theirs unasked, without waiting for the client's."""

    def __init__(self, provider_version: str | None = "5.19.1") -> None:
        self.preferred = server_wireformat(provider_version)
        self.peer: ow.WireFormat | None = None
        self._buf = bytearray()

    def handshake_bytes(self) -> bytes:
        return ow.size_prefixed(
            bytes((ow.WIREFORMAT_INFO,)) + ow.encode_wireformat_info(self.preferred, tight=False)
        )

    def receive_data(self, data: bytes) -> ow.WireFormat | None:
        """The peer's WireFormatInfo once it has arrived whole (None until then); anything else
        first raises :class:`ProtocolError` (the peer does not speak OpenWire)."""
        if self.peer is not None:
            return self.peer
        self._buf += data
        if len(self._buf) < 4:
            return None
        (size,) = struct.unpack_from(">i", self._buf)
        if size < 1 or size > MAX_FRAME_SIZE:
            raise ProtocolError(f"not an OpenWire frame (size {size})")
        if len(self._buf) >= 5 and self._buf[4] != ow.WIREFORMAT_INFO:
            raise ProtocolError(f"OpenWire peer sent command type {self._buf[4]} before its WireFormatInfo")
        if len(self._buf) < 4 + size:
            return None
        data_in = ow.Input(bytes(self._buf[5 : 4 + size]))
        self.peer = ow.decode_wireformat_info(data_in, tight=False)
        return self.peer
