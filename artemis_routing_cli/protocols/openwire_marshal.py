"""OpenWire (ActiveMQ 5 wire format, versions 9-12) marshalling for the commands a redirecting
acceptor meets: WireFormatInfo, ConnectionInfo, KeepAliveInfo, BrokerInfo, ConnectionControl,
Response and ExceptionResponse. Layouts follow activemq-client 5.19.1 (the OpenWire library
Artemis 2.4x bundles), ``org.apache.activemq.openwire.v12`` marshallers; v9-v11 are identical
for these commands.

Two encodings exist. *Loose*: every field in order; booleans as bytes, strings as a "not null"
byte then ``writeUTF``, nested objects as a "not null" byte, the type byte and their fields.
*Tight*: all booleans (flags, null markers, "string is ASCII" markers, long-size markers) go
first into a bit-packed BooleanStream, then the remaining bytes follow.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.core_java import (
    decode_modified_utf8,
    java_hashmap_order,
    utf16_units,
    write_java_utf,
)
from artemis_routing_cli.protocols.wire import BigEndianReader

# CommandTypes.
WIREFORMAT_INFO = 1
BROKER_INFO = 2
CONNECTION_INFO = 3
KEEP_ALIVE_INFO = 10
SHUTDOWN_INFO = 11
REMOVE_INFO = 12
CONNECTION_ERROR = 16
CONNECTION_CONTROL = 18
RESPONSE = 30
EXCEPTION_RESPONSE = 31
CONNECTION_ID = 120
BROKER_ID = 124

MAGIC = b"ActiveMQ"
# WireFormatInfo.MAX_PROPERTY_SIZE: at most this many entries in the properties map.
MAX_PROPERTY_ENTRIES = 1024 * 4
# Nesting of maps/lists inside WireFormatInfo properties we follow before calling it hostile
# (Java would recurse until its stack overflows; real clients never nest at all).
MAX_PROPERTY_DEPTH = 8

# MarshallingSupport primitive type bytes.
_P_NULL, _P_BOOLEAN, _P_BYTE, _P_CHAR, _P_SHORT, _P_INT, _P_LONG = 0, 1, 2, 3, 4, 5, 6
_P_DOUBLE, _P_FLOAT, _P_STRING, _P_BYTES, _P_MAP, _P_LIST, _P_BIG_STRING = 7, 8, 9, 10, 11, 12, 13


class JavaLong(int):
    """An int that must be marshalled as a Java ``Long`` in a primitive map."""


class Input(BigEndianReader):
    """Big-endian reads over one command; underflow is a ProtocolError."""

    truncated = "OpenWire command is truncated"

    def utf(self) -> str:
        size = struct.unpack(">H", self.take(2))[0]
        return decode_modified_utf8(self.take(size))


class BooleanStreamReader:
    """Reads the bit-packed booleans of a tight-encoded command."""

    def __init__(self, data: Input) -> None:
        limit = data.ubyte()
        if limit == 0xC0:
            limit = data.ubyte()
        elif limit == 0x80:
            limit = data.short()
            if limit < 0:
                raise ProtocolError("OpenWire boolean stream has a negative size")
        self._bits = data.take(limit)
        self._index = 0

    def read(self) -> bool:
        byte_index, bit = divmod(self._index, 8)
        self._index += 1
        if byte_index >= len(self._bits):
            return False  # Java reads its zero-filled spare buffer here
        return (self._bits[byte_index] >> bit) & 1 == 1


class BooleanStreamWriter:
    def __init__(self) -> None:
        self._bits: list[bool] = []

    def write(self, value: bool) -> None:
        self._bits.append(value)

    def getvalue(self) -> bytes:
        data = bytearray((len(self._bits) + 7) // 8)
        for i, bit in enumerate(self._bits):
            if bit:
                data[i // 8] |= 1 << (i % 8)
        n = len(data)
        if n < 64:
            head = bytes((n,))
        elif n < 256:
            head = bytes((0xC0, n))
        else:
            head = b"\x80" + struct.pack(">h", n)
        return head + bytes(data)


# ---------------------------------------------------------------------------------------------
# Field codecs. A "field writer" appends bits to a BooleanStreamWriter (tight) and bytes to a
# bytearray; loose mode passes ``bs=None`` and writes everything as bytes.


def _is_ascii(text: str) -> bool:
    return all(0x0001 <= unit <= 0x007F for unit in utf16_units(text))


def write_string(value: str | None, out: bytearray, bs: BooleanStreamWriter | None) -> None:
    if bs is None:
        out.append(1 if value is not None else 0)
        if value is not None:
            out += write_java_utf(value)
        return
    bs.write(value is not None)
    if value is None:
        return
    ascii_only = _is_ascii(value)
    bs.write(ascii_only)
    if ascii_only:
        out += struct.pack(">h", len(value)) + value.encode("ascii")
    else:
        out += write_java_utf(value)


def read_string(data: Input, bs: BooleanStreamReader | None) -> str | None:
    if bs is None:
        return data.utf() if data.boolean() else None
    if not bs.read():
        return None
    if bs.read():
        size = data.short()
        if size < 0:
            raise ProtocolError("OpenWire string has a negative length")
        return data.take(size).decode("latin-1")
    return data.utf()


def read_bool(data: Input, bs: BooleanStreamReader | None) -> bool:
    return data.boolean() if bs is None else bs.read()


def write_bool(value: bool, out: bytearray, bs: BooleanStreamWriter | None) -> None:
    if bs is None:
        out.append(1 if value else 0)
    else:
        bs.write(value)


def write_zero_long(out: bytearray, bs: BooleanStreamWriter | None) -> None:
    """``tightMarshalLong`` of 0 is two false bits and no bytes; loose writes 8 zero bytes."""
    if bs is None:
        out += bytes(8)
    else:
        bs.write(False)
        bs.write(False)


def read_nested_id(data: Input, bs: BooleanStreamReader | None, expected_type: int) -> str | None:
    """A nested ConnectionId/BrokerId (the marshal cache is never enabled by Artemis)."""
    present = data.boolean() if bs is None else bs.read()
    if not present:
        return None
    kind = data.ubyte()
    if kind != expected_type:
        raise ProtocolError(f"OpenWire nested object has type {kind}, expected {expected_type}")
    return read_string(data, bs)


def write_nested_id(value: str, kind: int, out: bytearray, bs: BooleanStreamWriter | None) -> None:
    if bs is None:
        out += bytes((1, kind))
    else:
        bs.write(True)
        out.append(kind)
    write_string(value, out, bs)


# ---------------------------------------------------------------------------------------------
# Primitive maps (WireFormatInfo properties).


def encode_primitive_map(entries: dict[str, object]) -> bytes:
    """MarshallingSupport.marshalPrimitiveMap with Java HashMap key order."""
    out = bytearray(struct.pack(">i", len(entries)))
    for key in java_hashmap_order(entries):
        out += write_java_utf(key)
        out += _encode_primitive(entries[key])
    return bytes(out)


def _encode_primitive(value: object) -> bytes:
    if value is None:
        return bytes((_P_NULL,))
    if isinstance(value, bool):
        return bytes((_P_BOOLEAN, 1 if value else 0))
    if isinstance(value, JavaLong):
        return bytes((_P_LONG,)) + struct.pack(">q", value)
    if isinstance(value, int):
        return bytes((_P_INT,)) + struct.pack(">i", value)
    if isinstance(value, str):
        return bytes((_P_STRING,)) + write_java_utf(value)
    raise TypeError(f"unsupported primitive {value!r}")


def decode_primitive_map(data: Input, depth: int = 0) -> dict[str, object] | None:
    size = data.int()
    if size > MAX_PROPERTY_ENTRIES:
        raise ProtocolError(f"WireFormatInfo property map has {size} entries (limit {MAX_PROPERTY_ENTRIES})")
    if size < 0:
        return None
    result: dict[str, object] = {}
    for _ in range(size):
        key = data.utf()
        result[key] = _decode_primitive(data, depth)
    return result


def _decode_primitive(data: Input, depth: int) -> object:
    if depth > MAX_PROPERTY_DEPTH:
        raise ProtocolError("WireFormatInfo properties are nested too deeply")
    kind = data.byte()
    if kind == _P_NULL:
        return None
    if kind == _P_BOOLEAN:
        return data.boolean()
    if kind == _P_BYTE:
        return data.byte()
    if kind == _P_CHAR:
        return chr(struct.unpack(">H", data.take(2))[0])
    if kind == _P_SHORT:
        return data.short()
    if kind == _P_INT:
        return data.int()
    if kind == _P_LONG:
        return JavaLong(data.long())
    if kind == _P_DOUBLE:
        return struct.unpack(">d", data.take(8))[0]
    if kind == _P_FLOAT:
        return struct.unpack(">f", data.take(4))[0]
    if kind == _P_STRING:
        return data.utf()
    if kind == _P_BIG_STRING:
        size = data.int()
        return data.take(size).decode("utf-8", "replace")
    if kind == _P_BYTES:
        return data.take(data.int())
    if kind == _P_MAP:
        return decode_primitive_map(data, depth + 1)
    if kind == _P_LIST:
        count = data.int()
        if count < 0 or count > MAX_PROPERTY_ENTRIES:
            raise ProtocolError("WireFormatInfo property list has an invalid size")
        return [_decode_primitive(data, depth + 1) for _ in range(count)]
    raise ProtocolError(f"unknown OpenWire primitive type {kind}")


# ---------------------------------------------------------------------------------------------
# Commands.


@dataclass(frozen=True)
class WireFormat:
    """What a WireFormatInfo announces (or what two of them negotiate to)."""

    version: int
    properties: dict[str, object] = field(default_factory=dict)

    def flag(self, name: str) -> bool:
        return self.properties.get(name) is True


def encode_wireformat_info(info: WireFormat, *, tight: bool) -> bytes:
    """WireFormatInfo body after the type byte (it has no command id)."""
    props = encode_primitive_map(info.properties)
    if tight:
        bs = BooleanStreamWriter()
        bs.write(True)  # marshalledProperties != null
        return bs.getvalue() + MAGIC + struct.pack(">i", info.version) + struct.pack(">i", len(props)) + props
    return MAGIC + struct.pack(">i", info.version) + b"\x01" + struct.pack(">i", len(props)) + props


def decode_wireformat_info(data: Input, tight: bool) -> WireFormat:
    bs = BooleanStreamReader(data) if tight else None
    magic = data.take(8)
    if magic != MAGIC:
        raise ProtocolError("OpenWire WireFormatInfo has a bad magic")
    version = data.int()
    has_props = read_bool(data, bs)
    properties: dict[str, object] = {}
    if has_props:
        size = data.int()
        blob = Input(data.take(size))
        properties = decode_primitive_map(blob) or {}
    return WireFormat(version, properties)


@dataclass(frozen=True)
class ConnectionInfoFields:
    command_id: int
    response_required: bool
    connection_id: str | None
    client_id: str | None
    password: str | None = field(repr=False)
    username: str | None
    broker_path: tuple[str | None, ...] | None
    broker_master_connector: bool
    manageable: bool
    client_master: bool
    fault_tolerant: bool
    failover_reconnect: bool
    client_ip: str | None


def decode_command_header(data: Input, tight: bool) -> tuple[BooleanStreamReader | None, int, bool]:
    """BooleanStream (tight) then BaseCommand's command id and response-required flag."""
    bs = BooleanStreamReader(data) if tight else None
    command_id = data.int()
    response_required = read_bool(data, bs)
    return bs, command_id, response_required


def decode_connection_info(data: Input, tight: bool) -> ConnectionInfoFields:
    bs, command_id, response_required = decode_command_header(data, tight)
    connection_id = read_nested_id(data, bs, CONNECTION_ID)
    client_id = read_string(data, bs)
    password = read_string(data, bs)
    username = read_string(data, bs)
    broker_path: tuple[str | None, ...] | None = None
    if read_bool(data, bs):
        count = data.short()
        if count < 0:
            raise ProtocolError("OpenWire broker path has a negative size")
        broker_path = tuple(read_nested_id(data, bs, BROKER_ID) for _ in range(count))
    flags = [read_bool(data, bs) for _ in range(5)]
    client_ip = read_string(data, bs)
    return ConnectionInfoFields(
        command_id=command_id,
        response_required=response_required,
        connection_id=connection_id,
        client_id=client_id,
        password=password,
        username=username,
        broker_path=broker_path,
        broker_master_connector=flags[0],
        manageable=flags[1],
        client_master=flags[2],
        fault_tolerant=flags[3],
        failover_reconnect=flags[4],
        client_ip=client_ip,
    )


def _finish(kind: int, out: bytearray, bs: BooleanStreamWriter | None) -> bytes:
    """type byte + (BooleanStream) + fields, without the size prefix."""
    head = bytes((kind,))
    return head + (bs.getvalue() if bs is not None else b"") + bytes(out)


def encode_connection_control(connected_brokers: str, rebalance: bool, *, tight: bool) -> bytes:
    """ConnectionControl as Artemis' OpenWireRoutingHandler builds it (command id 0)."""
    bs = BooleanStreamWriter() if tight else None
    out = bytearray(struct.pack(">i", 0))
    write_bool(False, out, bs)  # responseRequired
    for flag in (False, False, False, False, False):  # close, exit, faultTolerant, resume, suspend
        write_bool(flag, out, bs)
    write_string(connected_brokers, out, bs)
    write_string(None, out, bs)  # reconnectTo
    write_bool(rebalance, out, bs)
    write_bool(False, out, bs)  # token == null (byte array marker)
    return _finish(CONNECTION_CONTROL, out, bs)


def _write_throwable(
    class_name: str, message: str | None, out: bytearray, bs: BooleanStreamWriter | None, stack_trace: bool
) -> None:
    """A throwable without stack frames and without a cause (marshalThrowable)."""
    write_bool(True, out, bs)  # throwable != null
    write_string(class_name, out, bs)
    write_string(message, out, bs)
    if stack_trace:
        out += struct.pack(">h", 0)  # no StackTraceElements
        write_bool(False, out, bs)  # cause == null


def encode_exception_response(
    correlation_id: int, class_name: str, message: str | None, *, tight: bool, stack_trace: bool
) -> bytes:
    """ExceptionResponse (command id 0) answering command ``correlation_id``."""
    bs = BooleanStreamWriter() if tight else None
    out = bytearray(struct.pack(">i", 0))
    write_bool(False, out, bs)  # responseRequired
    out += struct.pack(">i", correlation_id)
    _write_throwable(class_name, message, out, bs, stack_trace)
    return _finish(EXCEPTION_RESPONSE, out, bs)


def encode_connection_error(class_name: str, message: str | None, *, tight: bool, stack_trace: bool) -> bytes:
    """ConnectionError (command id 0, no connection id), sent when no response was requested."""
    bs = BooleanStreamWriter() if tight else None
    out = bytearray(struct.pack(">i", 0))
    write_bool(False, out, bs)  # responseRequired
    _write_throwable(class_name, message, out, bs, stack_trace)
    write_bool(False, out, bs)  # connectionId == null (nested object marker)
    return _finish(CONNECTION_ERROR, out, bs)


def encode_broker_info(broker_id: str, broker_url: str | None, broker_name: str, *, tight: bool) -> bytes:
    """BrokerInfo as OpenWireProtocolManager.sendBrokerInfo fills it."""
    bs = BooleanStreamWriter() if tight else None
    out = bytearray(struct.pack(">i", 0))
    write_bool(False, out, bs)  # responseRequired
    write_nested_id(broker_id, BROKER_ID, out, bs)
    write_string(broker_url, out, bs)
    write_bool(False, out, bs)  # peerBrokerInfos == null
    write_string(broker_name, out, bs)
    for flag in (False, False, False, False, False):  # slave, master, faultTolerantConf, duplex, network
        write_bool(flag, out, bs)
    write_zero_long(out, bs)  # connectionId
    write_string(None, out, bs)  # brokerUploadUrl
    write_string(None, out, bs)  # networkProperties
    return _finish(BROKER_INFO, out, bs)


def size_prefixed(command: bytes) -> bytes:
    return struct.pack(">i", len(command)) + command
