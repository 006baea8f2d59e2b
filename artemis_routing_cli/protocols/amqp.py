"""AMQP 1.0 connection handshake codec (sans-IO): the redirect listener side and the probe side.

What the broker does when an acceptor has ``router=R`` and the router sends an AMQP client
elsewhere (Artemis ``AMQPRoutingHandler`` + ``AMQPConnectionContext.onRemoteOpen``, written by
proton-j):

1. client ``AMQP 3.1.0.0`` (SASL header) -> broker: SASL header, ``sasl-mechanisms [PLAIN, ANONYMOUS]``
   (the broker's default list: every mechanism permitted by default, by precedence; the acceptor
   parameter ``saslMechanisms`` replaces it, and an empty list offers ``ANONYMOUS`` alone);
2. client ``sasl-init`` -> broker: ``sasl-outcome`` code 0 (ok), 1 (auth: bad credentials) or 2
   (sys: a mechanism it does not offer, or one it has no server side for), and right behind it,
   whatever the outcome, the AMQP header (proton-j's SASL layer is done); PLAIN
   ``[authzid] NUL user NUL password`` gives the user for key type USER_NAME. After a failed
   outcome the broker leaves the connection to the client, which closes it;
3. client ``AMQP 0.1.0.0`` + ``open`` -> broker: AMQP header, then an ``open`` that only says
   ``{amqp:connection-establishment-failed: true}`` (container-id ``""``: the broker never set
   its own on this path) besides what proton-j always writes: max-frame-size (the acceptor's
   ``maxFrameSize``, 131072 by default; absent when not positive), channel-max 65535 and
   idle-time-out (half the connection TTL, 30000 by default; absent when the TTL is 0), then
   ``close`` with the error:

   * redirect: ``amqp:connection:redirect``, "Connection router R redirected this connection
     to H:P", info ``{port: int P, network-host: string H}`` (symbol keys, Java HashMap order);
   * refused: ``amqp:connection:forced``, "Connection router R rejected this connection"
     (REFUSED_USE_ANOTHER) or "Connection router R is not ready" (REFUSED_UNAVAILABLE).

A client may skip SASL and send ``AMQP 0.1.0.0`` straight away; then there is no user.

Shape (like h11): :class:`AmqpServer` and :class:`AmqpClient` never touch a socket. Feed bytes to
``receive_data()``, act on the returned events, write out whatever ``data_to_send()`` and the
action methods return. A misbehaving peer raises
:class:`~artemis_routing_cli.errors.ProtocolError`: close that socket. After ``redirect()`` or
``refuse()`` the shell sends the bytes and then closes the socket (the broker closes its side
too; waiting for the peer's :class:`CloseReceived` first is polite but optional).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple, Union

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.amqp_types import (
    Array,
    Described,
    Int,
    Symbol,
    UByte,
    UInt,
    ULong,
    UShort,
    decode_one,
    encode,
    symbols,
)

# ---------------------------------------------------------------------------------------------
# Constants

#: Protocol header for plain AMQP (protocol id 0, version 1.0.0), spec part 2 section 2.2.
AMQP_HEADER = b"AMQP\x00\x01\x00\x00"
#: Protocol header announcing a SASL layer (protocol id 3), spec part 5 section 5.3.1.
SASL_HEADER = b"AMQP\x03\x01\x00\x00"
HEADER_SIZE = 8

#: Size of the fixed frame header (size, doff, type, channel), spec part 2 section 2.3.1.
FRAME_HEADER_SIZE = 8
FRAME_TYPE_AMQP = 0
FRAME_TYPE_SASL = 1

#: Largest SASL frame the broker accepts: proton-j's SASL layer is built with the transport's
#: initial remote max-frame-size, which Artemis raises from the spec's 512 to 4 KiB
#: (ProtonProtocolManager ``initialRemoteMaxFrameSize = 4 * 1024``, an acceptor parameter).
PRE_OPEN_MAX_FRAME_SIZE = 4 * 1024
SASL_MAX_FRAME_SIZE = PRE_OPEN_MAX_FRAME_SIZE

#: Max-frame-size the broker advertises in its Open and enforces on every AMQP frame, the
#: client's Open included (proton-j's FrameParser; no limit when not positive): Artemis
#: ``AmqpSupport.MAX_FRAME_SIZE_DEFAULT = 128 * 1024`` (acceptor parameter ``maxFrameSize``).
BROKER_MAX_FRAME_SIZE = 128 * 1024
#: No limit at all: an AMQP frame size is an unsigned 32-bit number.
_UNLIMITED = 1 << 32
#: channel-max the broker advertises: Artemis ``AMQPConstants.Connection.DEFAULT_CHANNEL_MAX``.
BROKER_CHANNEL_MAX = 65535
#: idle-time-out the broker advertises: the default connection TTL (60000 ms, Artemis
#: ``ActiveMQDefaultConfiguration`` connection-ttl) halved, as proton-j advertises half its timeout.
BROKER_IDLE_TIMEOUT = 60_000 // 2

#: SASL mechanisms a default broker offers, in its order (Artemis ``MechanismFinder``: PLAIN has
#: precedence 0, ANONYMOUS Integer.MIN_VALUE; EXTERNAL, GSSAPI and SCRAM are not default).
BROKER_SASL_MECHANISMS = ("PLAIN", "ANONYMOUS")
#: The mechanisms this codec carries out. The broker's others: EXTERNAL needs the client's TLS
#: certificate (without one its factory gives no server side: outcome sys, as here); GSSAPI and
#: SCRAM-SHA-* need the broker's JAAS login modules and are answered sys here.
SERVED_SASL_MECHANISMS = ("PLAIN", "ANONYMOUS")

#: The connection property the broker puts in an Open that precedes an immediate Close.
CONNECTION_ESTABLISHMENT_FAILED = Symbol("amqp:connection-establishment-failed")
REDIRECT = Symbol("amqp:connection:redirect")
CONNECTION_FORCED = Symbol("amqp:connection:forced")
NETWORK_HOST = Symbol("network-host")
PORT = Symbol("port")

# SASL outcome codes, spec part 5 section 5.3.3.6.
SASL_OK = 0
SASL_AUTH = 1
SASL_SYS = 2
SASL_SYS_PERM = 3
SASL_SYS_TEMP = 4

# Descriptor codes (spec part 2 section 2.7 and part 5 section 5.3.3), with their symbolic names.
_OPEN, _BEGIN, _ATTACH, _FLOW, _TRANSFER, _DISPOSITION, _DETACH, _END, _CLOSE = range(0x10, 0x19)
_ERROR = 0x1D
_SASL_MECHANISMS, _SASL_INIT, _SASL_CHALLENGE, _SASL_RESPONSE, _SASL_OUTCOME = range(0x40, 0x45)
_NAMES = {
    _OPEN: "open",
    _BEGIN: "begin",
    _ATTACH: "attach",
    _FLOW: "flow",
    _TRANSFER: "transfer",
    _DISPOSITION: "disposition",
    _DETACH: "detach",
    _END: "end",
    _CLOSE: "close",
    _ERROR: "error",
    _SASL_MECHANISMS: "sasl-mechanisms",
    _SASL_INIT: "sasl-init",
    _SASL_CHALLENGE: "sasl-challenge",
    _SASL_RESPONSE: "sasl-response",
    _SASL_OUTCOME: "sasl-outcome",
}
_SYMBOLIC = {f"amqp:{name}:list": code for code, name in _NAMES.items()}

REFUSAL_DESCRIPTIONS = {
    "REFUSED_USE_ANOTHER": "Connection router {router} rejected this connection",
    "REFUSED_UNAVAILABLE": "Connection router {router} is not ready",
}


# ---------------------------------------------------------------------------------------------
# Values carried by events


@dataclass(frozen=True)
class ErrorCondition:
    """An AMQP ``error`` (part 2 section 2.8.14): condition, description and info map."""

    condition: str
    description: str | None = None
    info: dict[Any, Any] | None = None


@dataclass(unsafe_hash=True)  # read-only; not frozen: decoded per connection (see mqtt.ConnectReceived)
class Open:
    """The fields of an ``open`` performative (part 2 section 2.7.1) with spec defaults applied."""

    container_id: str
    hostname: str | None = None
    max_frame_size: int = 0xFFFF_FFFF
    channel_max: int = 0xFFFF
    idle_timeout: int | None = None
    outgoing_locales: tuple[str, ...] = ()
    incoming_locales: tuple[str, ...] = ()
    offered_capabilities: tuple[str, ...] = ()
    desired_capabilities: tuple[str, ...] = ()
    properties: dict[Any, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# Events


@dataclass(unsafe_hash=True)  # read-only; not frozen: decoded per connection (see mqtt.ConnectReceived)
class ProtocolHeaderReceived:
    """The peer sent a protocol header; ``sasl`` tells which layer it asked for."""

    sasl: bool


@dataclass(frozen=True)
class SaslInit:
    """The client chose a mechanism the broker offers; the shell answers with ``sasl_outcome()``.

    ``username`` follows the broker: PLAIN ``authzid NUL authcid NUL passwd`` gives authcid,
    ``authcid NUL passwd`` gives authcid, anything else gives no user; ANONYMOUS gives none.
    ``password`` is only there so the shell can authenticate; it is never shown in ``repr``.
    """

    mechanism: str
    username: str | None
    password: bytes | None = field(default=None, repr=False)
    hostname: str | None = None

    @property
    def password_present(self) -> bool:
        return self.password is not None


@dataclass(frozen=True)
class SaslRejected:
    """The client chose a mechanism the broker does not offer (``offered`` False), or one it offers
    but this codec has no server side for; outcome ``sys`` (2) and the AMQP header are queued, as
    the broker sends when it has none. Send ``data_to_send()``; the client is expected to close."""

    mechanism: str
    code: int = SASL_SYS
    offered: bool = False


@dataclass(frozen=True)
class SaslMechanisms:
    """(client side) The server's mechanisms, in its order of preference."""

    mechanisms: tuple[str, ...]


@dataclass(frozen=True)
class SaslOutcome:
    """(client side) The server's SASL verdict: 0 ok, 1 auth, 2 sys, 3 sys-perm, 4 sys-temp."""

    code: int
    additional_data: bytes | None = None

    @property
    def ok(self) -> bool:
        return self.code == SASL_OK


@dataclass(unsafe_hash=True)  # read-only; not frozen: decoded per connection (see mqtt.ConnectReceived)
class OpenReceived:
    """The peer's Open. On the server side ``open.container_id`` is the CLIENT_ID key."""

    open: Open

    @property
    def container_id(self) -> str:
        return self.open.container_id

    @property
    def hostname(self) -> str | None:
        return self.open.hostname

    @property
    def properties(self) -> dict[Any, Any]:
        return self.open.properties


@dataclass(frozen=True)
class CloseReceived:
    """The peer closed the connection, with an error or without."""

    error: ErrorCondition | None


@dataclass(frozen=True)
class FrameReceived:
    """Any other performative (begin, attach, ...); we only name it, we do not act on it."""

    name: str
    channel: int


Event = Union[
    ProtocolHeaderReceived,
    SaslInit,
    SaslRejected,
    SaslMechanisms,
    SaslOutcome,
    OpenReceived,
    CloseReceived,
    FrameReceived,
]


# ---------------------------------------------------------------------------------------------
# Frame encoding


def encode_frame(frame_type: int, channel: int, body: object | None) -> bytes:
    """A frame with a 2-word header (doff=2); ``body`` None makes an empty (heartbeat) frame."""
    payload = b"" if body is None else encode(body)
    size = FRAME_HEADER_SIZE + len(payload)
    return struct.pack(">IBBH", size, 2, frame_type, channel) + payload


def _performative(code: int, fields: list[object]) -> Described:
    while fields and fields[-1] is None:  # trailing nulls may be omitted (part 1 section 1.4)
        fields.pop()
    return Described(ULong(code), fields)


def encode_error(error: ErrorCondition) -> Described:
    return _performative(_ERROR, [Symbol(error.condition), error.description, error.info])


def encode_open(open_: Open) -> bytes:
    """Encode an Open the way proton-j does: every field up to the last one that is set.

    proton-j counts max-frame-size and channel-max as unset when they hold the spec default,
    but writes them (even at the default) when a later field is present.
    """
    fields: list[object] = [
        open_.container_id,
        open_.hostname,
        UInt(open_.max_frame_size),
        UShort(open_.channel_max),
        None if open_.idle_timeout is None else UInt(open_.idle_timeout),
        _symbol_array_or_none(open_.outgoing_locales),
        _symbol_array_or_none(open_.incoming_locales),
        _symbol_array_or_none(open_.offered_capabilities),
        _symbol_array_or_none(open_.desired_capabilities),
        open_.properties or None,
    ]
    defaults: list[object] = [None, None, UInt(0xFFFF_FFFF), UShort(0xFFFF)] + [None] * 6
    count = len(fields)
    while count > 1 and fields[count - 1] == defaults[count - 1]:
        count -= 1
    return encode_frame(FRAME_TYPE_AMQP, 0, Described(ULong(_OPEN), fields[:count]))


def encode_close(error: ErrorCondition | None) -> bytes:
    fields: list[object] = [None if error is None else encode_error(error)]
    return encode_frame(FRAME_TYPE_AMQP, 0, _performative(_CLOSE, fields))


def encode_sasl_mechanisms(mechanisms: tuple[str, ...]) -> bytes:
    return encode_frame(FRAME_TYPE_SASL, 0, _performative(_SASL_MECHANISMS, [symbols(*mechanisms)]))


def encode_sasl_init(mechanism: str, initial_response: bytes | None, hostname: str | None) -> bytes:
    fields: list[object] = [Symbol(mechanism), initial_response, hostname]
    return encode_frame(FRAME_TYPE_SASL, 0, _performative(_SASL_INIT, fields))


def encode_sasl_outcome(code: int, additional_data: bytes | None = None) -> bytes:
    fields: list[object] = [UByte(code), additional_data]
    return encode_frame(FRAME_TYPE_SASL, 0, _performative(_SASL_OUTCOME, fields))


def _symbol_array_or_none(names: tuple[str, ...]) -> Array | None:
    return symbols(*names) if names else None


def broker_failure_open(max_frame_size: int = BROKER_MAX_FRAME_SIZE,
                        idle_timeout: int | None = BROKER_IDLE_TIMEOUT) -> Open:
    """The Open the broker sends right before a refusing Close (see the module docstring).

    ``max_frame_size`` is the acceptor's ``maxFrameSize`` (proton-j leaves the field at its
    default unless it is positive); ``idle_timeout`` the value advertised - half the transport's
    idle timeout - or None when the broker sets none.
    """
    return Open(
        container_id="",
        max_frame_size=max_frame_size if max_frame_size > 0 else 0xFFFF_FFFF,
        channel_max=BROKER_CHANNEL_MAX,
        idle_timeout=idle_timeout,
        properties={CONNECTION_ESTABLISHMENT_FAILED: True},
    )


def redirect_error(router: str, host: str, port: int) -> ErrorCondition:
    """The Close error the broker sends when router ``router`` redirects to ``host:port``."""
    # Artemis builds the info map in a java.util.HashMap: "port" hashes to bucket 5 and
    # "network-host" to bucket 7, so the broker writes port first. The port is a Java int.
    return ErrorCondition(
        REDIRECT,
        f"Connection router {router} redirected this connection to {host}:{port}",
        {PORT: Int(port), NETWORK_HOST: host},
    )


def refusal_error(router: str, status: str) -> ErrorCondition:
    """The Close error for a refusal; ``status`` is REFUSED_USE_ANOTHER or REFUSED_UNAVAILABLE."""
    try:
        template = REFUSAL_DESCRIPTIONS[status]
    except KeyError:
        raise ValueError(f"unknown refusal status {status!r}") from None
    return ErrorCondition(CONNECTION_FORCED, template.format(router=router))


# ---------------------------------------------------------------------------------------------
# Frame decoding


class _Frame(NamedTuple):
    frame_type: int
    channel: int
    code: int | None  # performative code, None for an empty frame
    fields: list[Any]


class _FrameReader:
    """Splits a byte stream into protocol headers and frames, buffering partial input."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def header(self) -> bytes | None:
        if len(self.buffer) < HEADER_SIZE:
            if not _could_be_header(bytes(self.buffer)):
                raise ProtocolError(f"not an AMQP protocol header: {bytes(self.buffer)!r}")
            return None
        head = bytes(self.buffer[:HEADER_SIZE])
        del self.buffer[:HEADER_SIZE]
        return head

    def frame(self, expected_type: int, max_size: int) -> _Frame | None:
        if len(self.buffer) < FRAME_HEADER_SIZE:
            return None
        size, doff, frame_type, channel = struct.unpack_from(">IBBH", self.buffer)
        if size < FRAME_HEADER_SIZE or doff < 2 or doff * 4 > size:
            raise ProtocolError(f"malformed AMQP frame header (size {size}, doff {doff})")
        if size > max_size:
            raise ProtocolError(f"AMQP frame of {size} bytes is larger than the {max_size} allowed")
        if frame_type != expected_type:
            raise ProtocolError(f"unexpected AMQP frame type {frame_type} (expected {expected_type})")
        if len(self.buffer) < size:
            return None
        body = bytes(self.buffer[doff * 4 : size])
        del self.buffer[:size]
        if not body:
            if frame_type == FRAME_TYPE_SASL:
                raise ProtocolError("empty SASL frame")
            return _Frame(frame_type, channel, None, [])
        value, _end = decode_one(body, 0)  # bytes after the performative are a transfer payload
        if not isinstance(value, Described) or not isinstance(value.value, list):
            raise ProtocolError("AMQP frame body is not a described list")
        code = _descriptor_code(value.descriptor)
        if code not in _NAMES or code == _ERROR:
            raise ProtocolError(f"unknown AMQP performative {value.descriptor!r}")
        if (code >= _SASL_MECHANISMS) != (frame_type == FRAME_TYPE_SASL):
            raise ProtocolError(f"{_NAMES[code]} sent in the wrong kind of frame")
        return _Frame(frame_type, channel, code, value.value)


def _could_be_header(prefix: bytes) -> bool:
    return prefix == b"AMQP"[: len(prefix)] if len(prefix) <= 4 else prefix.startswith(b"AMQP")


def _descriptor_code(descriptor: object) -> int | None:
    if isinstance(descriptor, int) and not isinstance(descriptor, bool):
        return int(descriptor)
    if isinstance(descriptor, str):
        return _SYMBOLIC.get(str(descriptor))
    return None


def _field(
    fields: list[Any], index: int, kinds: type | tuple[type, ...], name: str, default: Any = None
) -> Any:  # noqa: ANN401
    value = fields[index] if index < len(fields) else None
    if value is None:
        return default
    if not isinstance(value, kinds):
        raise ProtocolError(f"AMQP field {name} has the wrong type {type(value).__name__}")
    return value


def _multiple_symbols(fields: list[Any], index: int, name: str) -> tuple[str, ...]:
    value = fields[index] if index < len(fields) else None
    if value is None:
        return ()
    if isinstance(value, Symbol):
        return (str(value),)
    if isinstance(value, Array) and all(isinstance(v, Symbol) for v in value.items):
        return tuple(str(v) for v in value.items)
    raise ProtocolError(f"AMQP field {name} is not a symbol or an array of symbols")


def decode_open(fields: list[Any]) -> Open:
    container_id = _field(fields, 0, str, "container-id")
    if container_id is None:
        raise ProtocolError("AMQP open without the mandatory container-id")
    count = len(fields)
    if count <= 2:  # container-id and at most hostname (a short Open: every other field its default)
        return Open(str(container_id), _field(fields, 1, str, "hostname") if count == 2 else None)
    properties = _field(fields, 9, dict, "properties", {})
    return Open(
        container_id=str(container_id),
        hostname=_field(fields, 1, str, "hostname"),
        max_frame_size=int(_field(fields, 2, UInt, "max-frame-size", 0xFFFF_FFFF)),
        channel_max=int(_field(fields, 3, UShort, "channel-max", 0xFFFF)),
        idle_timeout=_optional_int(_field(fields, 4, UInt, "idle-time-out")),
        outgoing_locales=_multiple_symbols(fields, 5, "outgoing-locales"),
        incoming_locales=_multiple_symbols(fields, 6, "incoming-locales"),
        offered_capabilities=_multiple_symbols(fields, 7, "offered-capabilities"),
        desired_capabilities=_multiple_symbols(fields, 8, "desired-capabilities"),
        properties=properties,
    )


def _optional_int(value: int | None) -> int | None:
    return None if value is None else int(value)


def decode_close(fields: list[Any]) -> ErrorCondition | None:
    error = _field(fields, 0, Described, "error")
    if error is None:
        return None
    if _descriptor_code(error.descriptor) != _ERROR or not isinstance(error.value, list):
        raise ProtocolError("AMQP close carries something that is not an error")
    condition = _field(error.value, 0, Symbol, "condition")
    if condition is None:
        raise ProtocolError("AMQP error without the mandatory condition")
    return ErrorCondition(
        str(condition),
        _field(error.value, 1, str, "description"),
        _field(error.value, 2, dict, "info"),
    )


def parse_plain_response(response: bytes | None) -> tuple[str | None, bytes | None]:
    """User and password from a PLAIN initial response, exactly as the broker reads it.

    Artemis ``ServerSASLPlain`` splits on NUL with Java ``String.split`` (which drops trailing
    empty parts): two parts are user/password, three are authzid/user/password, any other
    count means no user and no password.
    """
    if response is None:
        return None, None
    parts = response.split(b"\x00")
    while parts and parts[-1] == b"":
        parts.pop()
    if len(parts) == 2:
        user, password = parts
    elif len(parts) == 3:
        user, password = parts[1], parts[2]
    else:
        return None, None
    return user.decode("utf-8", errors="replace"), password


def plain_response(username: str, password: str | bytes, authzid: str = "") -> bytes:
    """The PLAIN initial response ``authzid NUL authcid NUL passwd`` (RFC 4616)."""
    secret = password.encode("utf-8") if isinstance(password, str) else password
    return authzid.encode("utf-8") + b"\x00" + username.encode("utf-8") + b"\x00" + secret


# ---------------------------------------------------------------------------------------------
# Server side

#: What ``_step`` returns for an empty frame, so heartbeats loop instead of recursing.
_HEARTBEAT = object()
#: The two header events (immutable, made once).
_SASL_HEADER_RECEIVED = ProtocolHeaderReceived(sasl=True)
_AMQP_HEADER_RECEIVED = ProtocolHeaderReceived(sasl=False)


class ServerState(Enum):
    EXPECT_HEADER = "expect protocol header"
    SASL_EXPECT_INIT = "expect sasl-init"
    SASL_AWAIT_DECISION = "waiting for sasl_outcome()"
    EXPECT_AMQP_HEADER = "expect AMQP header after SASL"
    EXPECT_OPEN = "expect open"
    OPEN_RECEIVED = "open received"
    CLOSED = "closed"


class AmqpServer:
    """The broker's half of an AMQP connection, up to the Close a redirecting broker sends.

    Usage: ``events = server.receive_data(chunk)``; after every call write
    ``server.data_to_send()`` (protocol headers and SASL frames that need no decision). On
    :class:`SaslInit` call ``sasl_outcome(ok)`` and write its bytes, then call
    ``receive_data(b"")`` to process anything the client pipelined. On :class:`OpenReceived`
    call ``redirect()`` or ``refuse()``, write the bytes and close the socket.

    Whatever the SASL outcome, proton-j's SASL layer is done once it is written and the transport
    writes its AMQP header right behind it; the broker then waits for the client (which closes
    after a failed outcome; one that carries on to an Open is served without a SASL user).
    """

    def __init__(self, mechanisms: tuple[str, ...] = BROKER_SASL_MECHANISMS, *,
                 max_frame_size: int = BROKER_MAX_FRAME_SIZE, sasl_max_frame_size: int = SASL_MAX_FRAME_SIZE,
                 idle_timeout: int | None = BROKER_IDLE_TIMEOUT, failure_open: bytes | None = None) -> None:
        """``mechanisms`` are offered in this order (never empty: the broker offers ANONYMOUS
        alone for an empty list); ``max_frame_size`` (the acceptor's ``maxFrameSize``) limits
        AMQP frames and goes into the Open with ``idle_timeout`` (what the Open advertises);
        ``sasl_max_frame_size`` (``initialRemoteMaxFrameSize``) limits SASL frames;
        ``failure_open``, the encoded Open these make, may be given to save encoding it."""
        self.state = ServerState.EXPECT_HEADER
        self.mechanisms = mechanisms
        self.max_frame_size = max_frame_size if max_frame_size > 0 else _UNLIMITED
        self.sasl_max_frame_size = sasl_max_frame_size
        self.failure_open = (failure_open if failure_open is not None
                             else encode_open(broker_failure_open(max_frame_size, idle_timeout)))
        self._reader = _FrameReader()
        self._outgoing = bytearray()
        self._header_sent = False  # our AMQP header (after SASL, proton-j writes it unasked)

    def data_to_send(self) -> bytes:
        """Bytes queued by ``receive_data`` (headers, sasl-mechanisms, a sys outcome)."""
        out = bytes(self._outgoing)
        self._outgoing.clear()
        return out

    def receive_data(self, data: bytes) -> list[Event]:
        self._reader.feed(data)
        events: list[Event] = []
        while True:
            event = self._step()
            if event is None:
                return events
            if event is not _HEARTBEAT:
                events.append(event)

    def _step(self) -> Event | object | None:  # noqa: C901 - one branch per state
        state = self.state
        if state in (ServerState.EXPECT_HEADER, ServerState.EXPECT_AMQP_HEADER):
            head = self._reader.header()
            if head is None:
                return None
            if head == SASL_HEADER and state is ServerState.EXPECT_HEADER:
                self._outgoing += SASL_HEADER + encode_sasl_mechanisms(self.mechanisms)
                self.state = ServerState.SASL_EXPECT_INIT
                return _SASL_HEADER_RECEIVED
            if head == AMQP_HEADER:
                if not self._header_sent:
                    self._outgoing += AMQP_HEADER
                    self._header_sent = True
                self.state = ServerState.EXPECT_OPEN
                return _AMQP_HEADER_RECEIVED
            raise ProtocolError(f"unsupported AMQP protocol header {head!r}")
        if state is ServerState.SASL_AWAIT_DECISION:
            return None  # keep pipelined bytes until the shell has decided
        sasl = state is ServerState.SASL_EXPECT_INIT
        limit = self.sasl_max_frame_size if sasl else self.max_frame_size
        expected = FRAME_TYPE_SASL if sasl else FRAME_TYPE_AMQP
        frame = self._reader.frame(expected, limit)
        if frame is None:
            return None
        if state is ServerState.SASL_EXPECT_INIT:
            return self._on_sasl_init(frame)
        if frame.code is None:
            return _HEARTBEAT  # an empty frame keeps the connection alive; nothing to report
        if state is ServerState.EXPECT_OPEN:
            if frame.code != _OPEN or frame.channel != 0:
                raise ProtocolError(f"expected open on channel 0, got {_NAMES[frame.code]}")
            self.state = ServerState.OPEN_RECEIVED
            return OpenReceived(decode_open(frame.fields))
        if frame.code == _OPEN:
            raise ProtocolError("second AMQP open on one connection")
        if frame.code == _CLOSE:
            return CloseReceived(decode_close(frame.fields))
        return FrameReceived(_NAMES[frame.code], frame.channel)

    def _on_sasl_init(self, frame: _Frame) -> Event:
        if frame.code != _SASL_INIT:
            raise ProtocolError(f"expected sasl-init, got {_NAMES[frame.code or 0]}")
        mechanism = _field(frame.fields, 0, Symbol, "mechanism")
        if mechanism is None:
            raise ProtocolError("sasl-init without the mandatory mechanism")
        response = _field(frame.fields, 1, bytes, "initial-response")
        hostname = _field(frame.fields, 2, str, "hostname")
        if mechanism not in self.mechanisms or mechanism not in SERVED_SASL_MECHANISMS:
            self._outgoing += self._outcome(SASL_SYS)
            return SaslRejected(str(mechanism), offered=mechanism in self.mechanisms)
        self.state = ServerState.SASL_AWAIT_DECISION
        if mechanism == "PLAIN":
            user, password = parse_plain_response(response)
            return SaslInit("PLAIN", user, password, hostname)
        return SaslInit(str(mechanism), None, None, hostname)

    def sasl_outcome(self, ok: bool = True) -> bytes:
        """Answer the :class:`SaslInit`: outcome ok (0) or auth (1, bad credentials), and the AMQP
        header proton-j writes behind any outcome."""
        if self.state is not ServerState.SASL_AWAIT_DECISION:
            raise RuntimeError(f"sasl_outcome() called in state {self.state.value}")
        return self.data_to_send() + self._outcome(SASL_OK if ok else SASL_AUTH)

    def _outcome(self, code: int) -> bytes:
        self.state = ServerState.EXPECT_AMQP_HEADER
        self._header_sent = True
        return encode_sasl_outcome(code) + AMQP_HEADER

    def close_with_error(self, error: ErrorCondition) -> bytes:
        """The broker's failure answer to an Open: Open(establishment-failed) then Close(error)."""
        if self.state is not ServerState.OPEN_RECEIVED:
            raise RuntimeError(f"cannot answer an open in state {self.state.value}")
        self.state = ServerState.CLOSED
        return self.data_to_send() + self.failure_open + encode_close(error)

    def redirect(self, router: str, host: str, port: int) -> bytes:
        """Redirect the client to ``host:port`` as connection router ``router`` does."""
        return self.close_with_error(redirect_error(router, host, port))

    def refuse(self, router: str, status: str) -> bytes:
        """Refuse the client; ``status`` is ``REFUSED_USE_ANOTHER`` or ``REFUSED_UNAVAILABLE``."""
        return self.close_with_error(refusal_error(router, status))


# ---------------------------------------------------------------------------------------------
# Client side


class ClientState(Enum):
    IDLE = "not started"
    EXPECT_SASL_HEADER = "expect SASL header"
    EXPECT_MECHANISMS = "expect sasl-mechanisms"
    EXPECT_OUTCOME = "expect sasl-outcome"
    EXPECT_AMQP_HEADER = "expect AMQP header"
    SASL_FAILED = "SASL failed: only the server's AMQP header may follow"
    EXPECT_OPEN = "expect open"
    OPEN = "open"
    CLOSED = "closed"


#: The max-frame-size our probe advertises (the same as the broker's default, see above).
CLIENT_MAX_FRAME_SIZE = BROKER_MAX_FRAME_SIZE


class AmqpClient:
    """A probe's half of an AMQP connection: handshake, Open, and whatever the server answers.

    ``mechanism`` is ``"PLAIN"`` (needs ``username``/``password``), ``"ANONYMOUS"``, or ``None``
    to skip SASL. Call ``initiate()`` and write its bytes; then feed ``receive_data`` and write
    ``data_to_send()`` after each call (sasl-init, the AMQP header and our Open are sent as the
    handshake advances). Events report the mechanisms, the outcome, the server's Open and any
    Close with its error. ``close()`` gives a Close frame to end politely.
    """

    def __init__(
        self,
        container_id: str,
        *,
        hostname: str | None = None,
        mechanism: str | None = "ANONYMOUS",
        username: str | None = None,
        password: str | bytes | None = None,
    ) -> None:
        if mechanism not in (None, "PLAIN", "ANONYMOUS"):
            raise ValueError(f"unsupported SASL mechanism {mechanism!r}")
        if mechanism == "PLAIN" and (username is None or password is None):
            raise ValueError("PLAIN needs a username and a password")
        self.container_id = container_id
        self.hostname = hostname
        self.mechanism = mechanism
        self._username = username
        self._password = password
        self.state = ClientState.IDLE
        self._reader = _FrameReader()
        self._outgoing = bytearray()
        self.peer_open: Open | None = None

    def initiate(self) -> bytes:
        if self.state is not ClientState.IDLE:
            raise RuntimeError("initiate() called twice")
        if self.mechanism is None:
            self.state = ClientState.EXPECT_AMQP_HEADER
            return AMQP_HEADER + self._open_frame()
        self.state = ClientState.EXPECT_SASL_HEADER
        return SASL_HEADER

    def data_to_send(self) -> bytes:
        out = bytes(self._outgoing)
        self._outgoing.clear()
        return out

    def close(self) -> bytes:
        """A Close without error (valid once our Open has gone out)."""
        self.state = ClientState.CLOSED
        return self.data_to_send() + encode_close(None)

    def _open_frame(self) -> bytes:
        return encode_open(Open(self.container_id, self.hostname, max_frame_size=CLIENT_MAX_FRAME_SIZE))

    def receive_data(self, data: bytes) -> list[Event]:
        self._reader.feed(data)
        events: list[Event] = []
        while True:
            event = self._step()
            if event is None:
                return events
            if event is not _HEARTBEAT:
                events.append(event)

    def _step(self) -> Event | object | None:  # noqa: C901 - one branch per state
        state = self.state
        if state is ClientState.IDLE:
            raise RuntimeError("receive_data() before initiate()")
        if state in (ClientState.EXPECT_SASL_HEADER, ClientState.EXPECT_AMQP_HEADER, ClientState.SASL_FAILED):
            head = self._reader.header()
            if head is None:
                return None
            wanted = SASL_HEADER if state is ClientState.EXPECT_SASL_HEADER else AMQP_HEADER
            if head != wanted:
                raise ProtocolError(f"server answered with protocol header {head!r}, expected {wanted!r}")
            self.state = {
                ClientState.EXPECT_SASL_HEADER: ClientState.EXPECT_MECHANISMS,
                ClientState.EXPECT_AMQP_HEADER: ClientState.EXPECT_OPEN,
            }.get(state, ClientState.CLOSED)  # after a failed outcome the client does not go on
            return ProtocolHeaderReceived(sasl=head == SASL_HEADER)
        sasl = state in (ClientState.EXPECT_MECHANISMS, ClientState.EXPECT_OUTCOME)
        limit = (
            CLIENT_MAX_FRAME_SIZE
            if state in (ClientState.OPEN, ClientState.CLOSED)
            else PRE_OPEN_MAX_FRAME_SIZE
        )
        frame = self._reader.frame(FRAME_TYPE_SASL if sasl else FRAME_TYPE_AMQP, limit)
        if frame is None:
            return None
        if sasl:
            return self._on_sasl(frame)
        if frame.code is None:
            return _HEARTBEAT
        if frame.code == _OPEN:
            if state is not ClientState.EXPECT_OPEN:
                raise ProtocolError("second AMQP open on one connection")
            self.peer_open = decode_open(frame.fields)
            self.state = ClientState.OPEN
            return OpenReceived(self.peer_open)
        if state is ClientState.EXPECT_OPEN:
            raise ProtocolError(f"expected open, got {_NAMES[frame.code]}")
        if frame.code == _CLOSE:
            self.state = ClientState.CLOSED
            return CloseReceived(decode_close(frame.fields))
        return FrameReceived(_NAMES[frame.code], frame.channel)

    def _on_sasl(self, frame: _Frame) -> Event:
        if self.state is ClientState.EXPECT_MECHANISMS:
            if frame.code != _SASL_MECHANISMS:
                raise ProtocolError(f"expected sasl-mechanisms, got {_NAMES[frame.code or 0]}")
            offered = _multiple_symbols(frame.fields, 0, "sasl-server-mechanisms")
            if self.mechanism not in offered:
                raise ProtocolError(
                    f"server does not offer SASL {self.mechanism}; it offers {', '.join(offered)}"
                )
            response = None
            if self.mechanism == "PLAIN":
                assert self._username is not None and self._password is not None
                response = plain_response(self._username, self._password)
            self._outgoing += encode_sasl_init(str(self.mechanism), response, self.hostname)
            self.state = ClientState.EXPECT_OUTCOME
            return SaslMechanisms(offered)
        if frame.code == _SASL_CHALLENGE:
            raise ProtocolError("server sent a sasl-challenge, which PLAIN and ANONYMOUS never need")
        if frame.code != _SASL_OUTCOME:
            raise ProtocolError(f"expected sasl-outcome, got {_NAMES[frame.code or 0]}")
        code = _field(frame.fields, 0, UByte, "code")
        if code is None:
            raise ProtocolError("sasl-outcome without the mandatory code")
        outcome = SaslOutcome(int(code), _field(frame.fields, 1, bytes, "additional-data"))
        if outcome.ok:
            self._outgoing += AMQP_HEADER + self._open_frame()
            self.state = ClientState.EXPECT_AMQP_HEADER
        else:
            self.state = ClientState.SASL_FAILED
        return outcome
