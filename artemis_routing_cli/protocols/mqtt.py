"""MQTT 3.1, 3.1.1 and 5 connection codec (sans-IO): the redirect listener side and the probe side.

What the broker does when an acceptor has ``router=R`` (Artemis ``MQTTProtocolHandler.handleConnect``
and ``MQTTRoutingHandler``, encoded by netty's ``MqttEncoder``): it reads CONNECT, authenticates,
asks the router, and when the client must go elsewhere it sends one CONNACK and disconnects:

* redirect: reason 0x9C (Use another server); MQTT 5 adds property Server Reference (0x1C)
  ``"host:port"``;
* refused, REFUSED_USE_ANOTHER: 0x9C; REFUSED_UNAVAILABLE: 0x88 (Server unavailable).

The broker uses these MQTT 5 codes for every version. For MQTT 3.1 and 3.1.1 netty writes no
properties, so a 3.x client gets ``20 02 00 9C`` (or ``... 88``): a return code outside the 3.1.1
table, which clients report as a refusal they cannot name; MQTT 3.x has no redirect.

Shape (like h11): :class:`MqttServer` and :class:`MqttClient` never touch a socket. Feed bytes to
``receive_data()``; act on the events; write what the action methods return. After
``redirect()``/``refuse()`` the shell must close the socket, as the broker does. A misbehaving
peer raises :class:`~artemis_routing_cli.errors.ProtocolError`: close that socket. Where the
broker (through netty) is lenient, so are we: CONNECT fixed-header flags are ignored, strings
are decoded with replacement characters, a property repeated keeps its last value.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import Any, Union

from artemis_routing_cli.errors import ProtocolError

# ---------------------------------------------------------------------------------------------
# Constants

CONNECT = 1
CONNACK = 2
DISCONNECT = 14

PROTOCOL_LEVEL_31 = 3
PROTOCOL_LEVEL_311 = 4
PROTOCOL_LEVEL_5 = 5
#: Protocol name and level pairs the broker accepts (netty ``MqttVersion``); others are dropped.
PROTOCOL_NAMES = {PROTOCOL_LEVEL_31: "MQIsdp", PROTOCOL_LEVEL_311: "MQTT", PROTOCOL_LEVEL_5: "MQTT"}

#: Largest value of the 4-byte Variable Byte Integer (MQTT 5 section 1.5.5, 3.1.1 section 2.2.3).
#: It is also the broker's packet limit (Artemis ``MQTTUtil.MAX_PACKET_SIZE``).
MAX_REMAINING_LENGTH = 268_435_455
#: Largest CONNECT our listener buffers. Lower than the broker's limit on purpose: a CONNECT
#: holds five 16-bit-length fields (client id, will topic, will payload, user name, password)
#: plus properties, so 5 x 65,537 bytes fits easily, and a listener should not let one peer make
#: it hold 256 MiB. Pass ``max_packet_size`` to change it.
DEFAULT_MAX_CONNECT_SIZE = 1024 * 1024
#: MQTT 3.1 limits the client identifier to 23 characters (MQTT 3.1 section 3.1; netty
#: ``MqttConstant.DEFAULT_MAX_CLIENT_ID_LENGTH``); netty rejects longer or empty ones for 3.1.
MQTT31_MAX_CLIENT_ID_LENGTH = 23
#: netty decodes a will topic longer than this as absent (``decodeString(buffer, 0, 32767)``).
WILL_TOPIC_MAX_BYTES = 32767

# CONNACK codes the broker uses when routing (Artemis ``MQTTReasonCodes``).
SUCCESS = 0x00
UNACCEPTABLE_PROTOCOL_VERSION_3 = 0x01
SERVER_UNAVAILABLE = 0x88
USE_ANOTHER_SERVER = 0x9C

ROUTER_REFUSAL_CODES = {"REFUSED_USE_ANOTHER": USE_ANOTHER_SERVER, "REFUSED_UNAVAILABLE": SERVER_UNAVAILABLE}

REASON_NAMES = {
    0x00: "Success",
    0x01: "Unacceptable protocol version (3.x)",
    0x02: "Identifier rejected (3.x)",
    0x03: "Server unavailable (3.x)",
    0x04: "Bad user name or password (3.x)",
    0x05: "Not authorized (3.x)",
    0x80: "Unspecified error",
    0x81: "Malformed Packet",
    0x82: "Protocol Error",
    0x83: "Implementation specific error",
    0x84: "Unsupported Protocol Version",
    0x85: "Client Identifier not valid",
    0x86: "Bad User Name or Password",
    0x87: "Not authorized",
    0x88: "Server unavailable",
    0x89: "Server busy",
    0x8A: "Banned",
    0x8C: "Bad authentication method",
    0x90: "Topic Name invalid",
    0x95: "Packet too large",
    0x97: "Quota exceeded",
    0x99: "Payload format invalid",
    0x9A: "Retain not supported",
    0x9B: "QoS not supported",
    0x9C: "Use another server",
    0x9D: "Server moved",
    0x9F: "Connection rate exceeded",
}

# MQTT 5 property identifiers (MQTT 5 section 2.2.2.2) and their value types.
PAYLOAD_FORMAT_INDICATOR = 0x01
MESSAGE_EXPIRY_INTERVAL = 0x02
CONTENT_TYPE = 0x03
RESPONSE_TOPIC = 0x08
CORRELATION_DATA = 0x09
SUBSCRIPTION_IDENTIFIER = 0x0B
SESSION_EXPIRY_INTERVAL = 0x11
ASSIGNED_CLIENT_IDENTIFIER = 0x12
SERVER_KEEP_ALIVE = 0x13
AUTHENTICATION_METHOD = 0x15
AUTHENTICATION_DATA = 0x16
REQUEST_PROBLEM_INFORMATION = 0x17
WILL_DELAY_INTERVAL = 0x18
REQUEST_RESPONSE_INFORMATION = 0x19
RESPONSE_INFORMATION = 0x1A
SERVER_REFERENCE = 0x1C
REASON_STRING = 0x1F
RECEIVE_MAXIMUM = 0x21
TOPIC_ALIAS_MAXIMUM = 0x22
TOPIC_ALIAS = 0x23
MAXIMUM_QOS = 0x24
RETAIN_AVAILABLE = 0x25
USER_PROPERTY = 0x26
MAXIMUM_PACKET_SIZE = 0x27
WILDCARD_SUBSCRIPTION_AVAILABLE = 0x28
SUBSCRIPTION_IDENTIFIER_AVAILABLE = 0x29
SHARED_SUBSCRIPTION_AVAILABLE = 0x2A

_BYTE, _U16, _U32, _VARINT, _STRING, _BINARY, _PAIR = (
    "byte",
    "u16",
    "u32",
    "varint",
    "string",
    "binary",
    "pair",
)
PROPERTY_TYPES: dict[int, str] = {
    PAYLOAD_FORMAT_INDICATOR: _BYTE,
    MESSAGE_EXPIRY_INTERVAL: _U32,
    CONTENT_TYPE: _STRING,
    RESPONSE_TOPIC: _STRING,
    CORRELATION_DATA: _BINARY,
    SUBSCRIPTION_IDENTIFIER: _VARINT,
    SESSION_EXPIRY_INTERVAL: _U32,
    ASSIGNED_CLIENT_IDENTIFIER: _STRING,
    SERVER_KEEP_ALIVE: _U16,
    AUTHENTICATION_METHOD: _STRING,
    AUTHENTICATION_DATA: _BINARY,
    REQUEST_PROBLEM_INFORMATION: _BYTE,
    WILL_DELAY_INTERVAL: _U32,
    REQUEST_RESPONSE_INFORMATION: _BYTE,
    RESPONSE_INFORMATION: _STRING,
    SERVER_REFERENCE: _STRING,
    REASON_STRING: _STRING,
    RECEIVE_MAXIMUM: _U16,
    TOPIC_ALIAS_MAXIMUM: _U16,
    TOPIC_ALIAS: _U16,
    MAXIMUM_QOS: _BYTE,
    RETAIN_AVAILABLE: _BYTE,
    USER_PROPERTY: _PAIR,
    MAXIMUM_PACKET_SIZE: _U32,
    WILDCARD_SUBSCRIPTION_AVAILABLE: _BYTE,
    SUBSCRIPTION_IDENTIFIER_AVAILABLE: _BYTE,
    SHARED_SUBSCRIPTION_AVAILABLE: _BYTE,
}

#: Properties: ``{identifier: value}``; USER_PROPERTY maps to a list of ``(name, value)`` pairs.
Properties = dict[int, Any]


# ---------------------------------------------------------------------------------------------
# Primitive encoding (MQTT 5 section 1.5)


def encode_varint(value: int) -> bytes:
    if not 0 <= value <= MAX_REMAINING_LENGTH:
        raise ValueError(f"{value} does not fit an MQTT variable byte integer")
    out = bytearray()
    while True:
        digit, value = value % 128, value // 128
        out.append(digit | (0x80 if value else 0))
        if not value:
            return bytes(out)


def encode_string(text: str) -> bytes:
    return encode_binary(text.encode("utf-8"))


def encode_binary(data: bytes) -> bytes:
    if len(data) > 0xFFFF:
        raise ValueError("MQTT string or binary field longer than 65535 bytes")
    return struct.pack(">H", len(data)) + data


def encode_properties(properties: Properties | None) -> bytes:
    body = bytearray()
    for ident, value in (properties or {}).items():
        kind = PROPERTY_TYPES.get(ident)
        if kind is None:
            raise ValueError(f"unknown MQTT property {ident:#04x}")
        if kind == _PAIR:
            for name, text in value:
                body += encode_varint(ident) + encode_string(name) + encode_string(text)
            continue
        body += encode_varint(ident)
        if kind == _BYTE:
            body += struct.pack(">B", value)
        elif kind == _U16:
            body += struct.pack(">H", value)
        elif kind == _U32:
            body += struct.pack(">I", value)
        elif kind == _VARINT:
            body += encode_varint(value)
        elif kind == _STRING:
            body += encode_string(value)
        else:
            body += encode_binary(value)
    return encode_varint(len(body)) + bytes(body)


def encode_packet(packet_type: int, flags: int, body: bytes) -> bytes:
    return bytes([(packet_type << 4) | flags]) + encode_varint(len(body)) + body


# ---------------------------------------------------------------------------------------------
# Primitive decoding


_TRUNCATED = "MQTT packet ends in the middle of a field"


class _Cursor:
    """Reads one packet's body; running past its end is a malformed packet."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        pos = self.pos
        end = pos + n
        if end > len(self.data):
            raise ProtocolError(_TRUNCATED)
        self.pos = end
        return self.data[pos:end]

    def byte(self) -> int:
        pos = self.pos
        if pos >= len(self.data):
            raise ProtocolError(_TRUNCATED)
        self.pos = pos + 1
        return self.data[pos]

    def u16(self) -> int:
        data, pos = self.data, self.pos
        if pos + 2 > len(data):
            raise ProtocolError(_TRUNCATED)
        self.pos = pos + 2
        return (data[pos] << 8) | data[pos + 1]

    def u32(self) -> int:
        return struct.unpack(">I", self.take(4))[0]

    def varint(self) -> int:
        value, shift = 0, 0
        for _ in range(4):
            digit = self.byte()
            value += (digit & 0x7F) << shift
            if not digit & 0x80:
                return value
            shift += 7
        raise ProtocolError("MQTT variable byte integer longer than 4 bytes")

    def binary(self) -> bytes:
        data, pos = self.data, self.pos
        if pos + 2 > len(data):
            raise ProtocolError(_TRUNCATED)
        end = pos + 2 + ((data[pos] << 8) | data[pos + 1])
        if end > len(data):
            self.pos = pos + 2
            raise ProtocolError(_TRUNCATED)
        self.pos = end
        return data[pos + 2:end]

    def string(self) -> str:
        # netty decodes with replacement characters rather than rejecting bad UTF-8
        return self.binary().decode("utf-8", errors="replace")

    def properties(self) -> Properties:
        length = self.varint()
        end = self.pos + length
        if end > len(self.data):
            raise ProtocolError("MQTT properties run past the end of the packet")
        result: Properties = {}
        while self.pos < end:
            ident = self.varint()
            kind = PROPERTY_TYPES.get(ident)
            if kind is None:
                raise ProtocolError(f"unknown MQTT property identifier {ident:#04x}")
            if kind == _PAIR:
                result.setdefault(USER_PROPERTY, []).append((self.string(), self.string()))
            elif kind == _BYTE:
                result[ident] = self.byte()
            elif kind == _U16:
                result[ident] = self.u16()
            elif kind == _U32:
                result[ident] = self.u32()
            elif kind == _VARINT:
                result[ident] = self.varint()
            elif kind == _STRING:
                result[ident] = self.string()
            else:
                result[ident] = self.binary()
        if self.pos != end:
            raise ProtocolError("MQTT property runs past the declared properties length")
        return result

    def done(self) -> None:
        if self.pos != len(self.data):
            raise ProtocolError(
                f"{len(self.data) - self.pos} unexpected byte(s) at the end of an MQTT packet"
            )


class _PacketReader:
    """Splits a byte stream into (first byte, body) packets, buffering partial input."""

    __slots__ = ("buffer", "max_packet_size")

    def __init__(self, max_packet_size: int) -> None:
        self.buffer = bytearray()
        self.max_packet_size = max_packet_size

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def packet(self) -> tuple[int, bytes] | None:
        if len(self.buffer) < 2:
            return None
        length, shift, index = 0, 0, 1
        while True:
            if index >= len(self.buffer):
                return None
            digit = self.buffer[index]
            length += (digit & 0x7F) << shift
            index += 1
            if not digit & 0x80:
                break
            if index == 5:
                raise ProtocolError("MQTT remaining length longer than 4 bytes")
            shift += 7
        if length > self.max_packet_size:
            raise ProtocolError(
                f"MQTT packet of {length} bytes is larger than the {self.max_packet_size} allowed"
            )
        if len(self.buffer) < index + length:
            return None
        first = self.buffer[0]
        body = bytes(self.buffer[index : index + length])
        del self.buffer[: index + length]
        return first, body


# ---------------------------------------------------------------------------------------------
# CONNECT


@dataclass(frozen=True)
class Will:
    topic: str | None
    payload: bytes = field(repr=False)
    qos: int = 0
    retain: bool = False
    properties: Properties = field(default_factory=dict)


# Not frozen: one is decoded per connection, and a frozen dataclass sets each field through
# object.__setattr__ (several times the cost). Treat it as read-only; it hashes and compares by value.
@dataclass(unsafe_hash=True)
class ConnectReceived:
    """A decoded CONNECT. ``client_id`` is the CLIENT_ID key, ``username`` the USER_NAME key.

    ``password`` is only there so the shell can authenticate; it is never shown in ``repr``.
    """

    protocol_name: str
    protocol_level: int
    clean_start: bool
    keep_alive: int
    client_id: str
    username: str | None = None
    password: bytes | None = field(default=None, repr=False)
    will: Will | None = None
    properties: Properties = field(default_factory=dict)

    @property
    def password_present(self) -> bool:
        return self.password is not None

    @property
    def is_v5(self) -> bool:
        return self.protocol_level == PROTOCOL_LEVEL_5


def decode_connect(body: bytes) -> ConnectReceived:
    """Decode the body of a CONNECT packet the way netty's ``MqttDecoder`` does for the broker."""
    cur = _Cursor(body)
    name = cur.string()
    level = cur.byte()
    if PROTOCOL_NAMES.get(level) != name:
        raise ProtocolError(f"unsupported MQTT protocol {name!r} level {level}")
    flags = cur.byte()
    keep_alive = cur.u16()
    if level != PROTOCOL_LEVEL_31 and flags & 0x01:
        raise ProtocolError("MQTT CONNECT reserved flag is set")  # MQTT-3.1.2-3, checked by netty
    properties = cur.properties() if level == PROTOCOL_LEVEL_5 else {}
    client_id = cur.string()
    if (
        level == PROTOCOL_LEVEL_31
        and not 1 <= len(client_id.encode("utf-16-le")) // 2 <= MQTT31_MAX_CLIENT_ID_LENGTH
    ):
        raise ProtocolError("MQTT 3.1 client identifier must have 1 to 23 characters")
    will = None
    if flags & 0x04:
        will_properties = cur.properties() if level == PROTOCOL_LEVEL_5 else {}
        raw_topic = cur.binary()
        topic = None if len(raw_topic) > WILL_TOPIC_MAX_BYTES else raw_topic.decode("utf-8", errors="replace")
        payload = cur.binary()
        will = Will(topic, payload, (flags >> 3) & 0x03, bool(flags & 0x20), will_properties)
    username = cur.string() if flags & 0x80 else None
    password = cur.binary() if flags & 0x40 else None
    cur.done()
    return ConnectReceived(
        protocol_name=name,
        protocol_level=level,
        clean_start=bool(flags & 0x02),
        keep_alive=keep_alive,
        client_id=client_id,
        username=username,
        password=password,
        will=will,
        properties=properties,
    )


def build_connect(
    client_id: str,
    *,
    protocol_level: int = PROTOCOL_LEVEL_5,
    username: str | None = None,
    password: str | bytes | None = None,
    clean_start: bool = True,
    keep_alive: int = 60,
    properties: Properties | None = None,
) -> bytes:
    """A complete CONNECT packet (no will) for MQTT 3.1 (level 3), 3.1.1 (4) or 5."""
    if protocol_level not in PROTOCOL_NAMES:
        raise ValueError(f"unknown MQTT protocol level {protocol_level}")
    flags = (0x80 if username is not None else 0) | (0x40 if password is not None else 0)
    flags |= 0x02 if clean_start else 0
    body = encode_string(PROTOCOL_NAMES[protocol_level]) + bytes([protocol_level, flags])
    body += struct.pack(">H", keep_alive)
    if protocol_level == PROTOCOL_LEVEL_5:
        body += encode_properties(properties)
    elif properties:
        raise ValueError("only MQTT 5 has properties")
    body += encode_string(client_id)
    if username is not None:
        body += encode_string(username)
    if password is not None:
        body += encode_binary(password.encode("utf-8") if isinstance(password, str) else password)
    return encode_packet(CONNECT, 0, body)


# ---------------------------------------------------------------------------------------------
# CONNACK


@dataclass(frozen=True)
class Connack:
    session_present: bool
    reason_code: int
    properties: Properties = field(default_factory=dict)

    @property
    def server_reference(self) -> str | None:
        return self.properties.get(SERVER_REFERENCE)

    @property
    def reason_name(self) -> str:
        return REASON_NAMES.get(self.reason_code, f"unknown code {self.reason_code:#04x}")


def build_connack(reason_code: int, protocol_level: int, properties: Properties | None = None) -> bytes:
    """CONNACK as netty writes it for the broker: properties only for MQTT 5, session present
    always 0 with a non-zero code ([MQTT-3.2.2-4], [MQTT-3.2.2-6])."""
    body = bytes([0, reason_code])
    if protocol_level == PROTOCOL_LEVEL_5:
        body += encode_properties(properties)
    return encode_packet(CONNACK, 0, body)


@lru_cache(maxsize=1024)
def _redirect_connack(protocol_level: int, host: str, port: int) -> bytes:
    """The redirect CONNACK, encoded once per target (a pool has a handful)."""
    return build_connack(USE_ANOTHER_SERVER, protocol_level, {SERVER_REFERENCE: f"{host}:{port}"})


@lru_cache(maxsize=64)
def refusal_connack(protocol_level: int, status: str) -> bytes:
    """The CONNACK of a router refusal (``REFUSED_USE_ANOTHER`` -> 0x9C, ``REFUSED_UNAVAILABLE`` ->
    0x88, for every protocol version), encoded once per level and status."""
    try:
        code = ROUTER_REFUSAL_CODES[status]
    except KeyError:
        raise ValueError(f"unknown refusal status {status!r}") from None
    return build_connack(code, protocol_level)


def redirect_connack(protocol_level: int, host: str, port: int) -> bytes:
    """The redirect CONNACK (0x9C; for MQTT 5 with Server Reference ``host:port``)."""
    return _redirect_connack(protocol_level, host, port)


def parse_connack(packet: bytes, protocol_level: int = PROTOCOL_LEVEL_5) -> Connack:
    """Decode one complete CONNACK packet (fixed header included)."""
    reader = _PacketReader(MAX_REMAINING_LENGTH)
    reader.feed(packet)
    item = reader.packet()
    if item is None:
        raise ProtocolError("incomplete MQTT packet")
    if reader.buffer:
        raise ProtocolError("bytes after the MQTT CONNACK")
    first, body = item
    if first >> 4 != CONNACK:
        raise ProtocolError(f"expected CONNACK, got MQTT packet type {first >> 4}")
    return decode_connack(body, protocol_level)


def decode_connack(body: bytes, protocol_level: int) -> Connack:
    cur = _Cursor(body)
    ack_flags = cur.byte()
    if ack_flags & 0xFE:
        raise ProtocolError("MQTT CONNACK acknowledge flags has reserved bits set")
    code = cur.byte()
    # a 3.1.1-only server answers a v5 CONNECT with a 2-byte CONNACK (code 0x01): accept it
    has_properties = protocol_level == PROTOCOL_LEVEL_5 and cur.pos < len(body)
    properties = cur.properties() if has_properties else {}
    cur.done()
    return Connack(bool(ack_flags & 0x01), code, properties)


# ---------------------------------------------------------------------------------------------
# Server side


@dataclass(frozen=True)
class PacketReceived:
    """Any packet after CONNECT (a pipelining client); we name its type, nothing more."""

    packet_type: int


Event = Union[ConnectReceived, PacketReceived, Connack]


class ServerState(Enum):
    EXPECT_CONNECT = "expect CONNECT"
    CONNECT_RECEIVED = "CONNECT received"
    ANSWERED = "answered, the shell must close"


class MqttServer:
    """The broker's half of an MQTT connection, up to the CONNACK a routing broker sends.

    Feed bytes to ``receive_data()``; on :class:`ConnectReceived` call ``redirect()``,
    ``refuse()`` or ``connack()``, write the bytes, then close the socket.
    """

    def __init__(self, max_packet_size: int = DEFAULT_MAX_CONNECT_SIZE) -> None:
        self.state = ServerState.EXPECT_CONNECT
        self._reader = _PacketReader(max_packet_size)
        self.connect: ConnectReceived | None = None

    def receive_data(self, data: bytes) -> list[Event]:
        self._reader.feed(data)
        events: list[Event] = []
        while (item := self._reader.packet()) is not None:
            first, body = item
            if self.state is ServerState.EXPECT_CONNECT:
                if first >> 4 != CONNECT:
                    raise ProtocolError(f"first MQTT packet must be CONNECT, got type {first >> 4}")
                self.connect = decode_connect(body)
                self.state = ServerState.CONNECT_RECEIVED
                events.append(self.connect)
            else:
                if first >> 4 == CONNECT:
                    raise ProtocolError("second MQTT CONNECT on one connection")  # MQTT-3.1.0-2
                events.append(PacketReceived(first >> 4))
        return events

    def _level(self) -> int:
        if self.connect is None or self.state is not ServerState.CONNECT_RECEIVED:
            raise RuntimeError(f"cannot answer in state {self.state.value}")
        return self.connect.protocol_level

    def connack(self, reason_code: int, properties: Properties | None = None) -> bytes:
        level = self._level()
        self.state = ServerState.ANSWERED
        return build_connack(reason_code, level, properties)

    def redirect(self, host: str, port: int) -> bytes:
        """CONNACK 0x9C; for MQTT 5 with Server Reference ``host:port``. Then close the socket."""
        level = self._level()
        self.state = ServerState.ANSWERED
        return _redirect_connack(level, host, port)

    def refuse(self, status: str) -> bytes:
        """CONNACK for a router refusal: ``REFUSED_USE_ANOTHER`` -> 0x9C, ``REFUSED_UNAVAILABLE``
        -> 0x88, for every protocol version. Then close the socket."""
        if status not in ROUTER_REFUSAL_CODES:
            raise ValueError(f"unknown refusal status {status!r}")
        level = self._level()
        self.state = ServerState.ANSWERED
        return refusal_connack(level, status)


# ---------------------------------------------------------------------------------------------
# Client side


class MqttClient:
    """A probe's half: ``connect()`` gives CONNECT bytes, ``receive_data()`` yields the Connack."""

    def __init__(
        self, protocol_level: int = PROTOCOL_LEVEL_5, max_packet_size: int = DEFAULT_MAX_CONNECT_SIZE
    ) -> None:
        if protocol_level not in PROTOCOL_NAMES:
            raise ValueError(f"unknown MQTT protocol level {protocol_level}")
        self.protocol_level = protocol_level
        self._reader = _PacketReader(max_packet_size)
        self.connack: Connack | None = None
        self._sent = False

    def connect(
        self,
        client_id: str,
        *,
        username: str | None = None,
        password: str | bytes | None = None,
        clean_start: bool = True,
        keep_alive: int = 60,
        properties: Properties | None = None,
    ) -> bytes:
        self._sent = True
        return build_connect(
            client_id,
            protocol_level=self.protocol_level,
            username=username,
            password=password,
            clean_start=clean_start,
            keep_alive=keep_alive,
            properties=properties,
        )

    def disconnect(self) -> bytes:
        """DISCONNECT (reason 0 'normal' for MQTT 5, which may then be written as an empty body)."""
        return encode_packet(DISCONNECT, 0, b"")

    def receive_data(self, data: bytes) -> list[Event]:
        if not self._sent:
            raise RuntimeError("receive_data() before connect()")
        self._reader.feed(data)
        events: list[Event] = []
        while (item := self._reader.packet()) is not None:
            first, body = item
            if self.connack is None:
                if first >> 4 != CONNACK:
                    raise ProtocolError(f"server answered CONNECT with MQTT packet type {first >> 4}")
                self.connack = decode_connack(body, self.protocol_level)
                events.append(self.connack)
            else:
                if first >> 4 == CONNACK:
                    raise ProtocolError("second CONNACK on one connection")
                events.append(PacketReceived(first >> 4))
        return events
