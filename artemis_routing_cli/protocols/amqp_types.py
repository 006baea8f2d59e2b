"""The AMQP 1.0 type system: encode Python values to bytes and decode bytes to Python values.

Only what a connection handshake needs, but complete enough to decode anything a real client
(python-qpid-proton, Qpid JMS, Artemis itself) puts into an Open, a Close or a SASL frame.
References are to the OASIS AMQP 1.0 specification, part 1 ("Types", section 1.6).

Python side of each AMQP type:

=================  ===========================================================
AMQP               Python
=================  ===========================================================
null               ``None``
boolean            ``bool``
ubyte/ushort       ``UByte`` / ``UShort`` (``int`` subclasses)
uint/ulong         ``UInt`` / ``ULong``
byte/short         ``Byte`` / ``Short``
int/long           ``Int`` / ``Long`` (a plain ``int`` encodes as long)
float/double       ``Float`` / ``float``
decimal32/64/128   ``Decimal32`` / ``Decimal64`` / ``Decimal128`` (raw bytes)
char               ``Char`` (a one-character ``str``)
timestamp          ``Timestamp`` (ms since the Unix epoch, an ``int``)
uuid               ``uuid.UUID``
binary             ``bytes``
string             ``str``
symbol             ``Symbol`` (a ``str`` subclass)
list               ``list`` (a ``tuple`` also encodes as list)
map                ``dict``
array              ``Array``
described          ``Described``
=================  ===========================================================

Decoding returns the subclass, so ``type(value)`` tells which AMQP type was on the wire
(``port`` decodes as ``Int``, not as ``Long``). Malformed input raises
:class:`~artemis_routing_cli.errors.ProtocolError`; bad Python input to the encoder is a
programming error and raises ``ValueError``/``TypeError``.
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass
from typing import Any

from artemis_routing_cli.errors import ProtocolError

#: Deepest nesting of lists, maps, arrays and described values we decode. Not from the
#: specification (which sets no bound): chosen far above anything a handshake frame needs
#: (Open properties are at most a few levels deep) and far below Python's recursion limit,
#: so a hostile frame of nested list8 constructors cannot exhaust the stack.
MAX_NESTING_DEPTH = 32


class Symbol(str):
    """AMQP symbol: ASCII text used for names (conditions, capabilities, property keys)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Symbol({str.__repr__(self)})"


class _TypedInt(int):
    __slots__ = ()
    low = 0
    high = 0

    def __new__(cls, value: int = 0) -> Any:  # noqa: ANN401 - returns the subclass
        number = int(value)
        if not cls.low <= number <= cls.high:
            raise ValueError(f"{number} is out of range for AMQP {cls.__name__.lower()}")
        return int.__new__(cls, number)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({int(self)})"


class UByte(_TypedInt):
    low, high = 0, 0xFF


class UShort(_TypedInt):
    low, high = 0, 0xFFFF


class UInt(_TypedInt):
    low, high = 0, 0xFFFF_FFFF


class ULong(_TypedInt):
    low, high = 0, 0xFFFF_FFFF_FFFF_FFFF


class Byte(_TypedInt):
    low, high = -0x80, 0x7F


class Short(_TypedInt):
    low, high = -0x8000, 0x7FFF


class Int(_TypedInt):
    low, high = -0x8000_0000, 0x7FFF_FFFF


class Long(_TypedInt):
    low, high = -0x8000_0000_0000_0000, 0x7FFF_FFFF_FFFF_FFFF


class Timestamp(_TypedInt):
    """Milliseconds since the Unix epoch (a signed 64-bit number on the wire)."""

    low, high = -0x8000_0000_0000_0000, 0x7FFF_FFFF_FFFF_FFFF


class Float(float):
    """AMQP float: IEEE 754 32-bit (a plain Python ``float`` encodes as 64-bit double)."""

    __slots__ = ()


class Char(str):
    """AMQP char: one Unicode code point, UTF-32BE on the wire."""

    __slots__ = ()


class Decimal32(bytes):
    """IEEE 754 decimal32, kept as its 4 raw bytes (we never compute with it)."""


class Decimal64(bytes):
    """IEEE 754 decimal64, kept as its 8 raw bytes."""


class Decimal128(bytes):
    """IEEE 754 decimal128, kept as its 16 raw bytes."""


@dataclass(unsafe_hash=True)  # read-only; not frozen: every decoded frame makes some (see mqtt.ConnectReceived)
class Described:
    """A described value: a descriptor (usually a ``ULong`` code or a ``Symbol``) and a value."""

    descriptor: Any
    value: Any


@dataclass(frozen=True)
class Array:
    """An AMQP array: every element has the same type.

    ``element_type`` is the Python class of the elements (``Symbol``, ``UInt``, ``str``...);
    for decoded arrays of described values it is ``Described``.
    """

    element_type: type
    items: tuple[Any, ...]


def symbols(*names: str) -> Array:
    """An array of symbols, as used by sasl-mechanisms and offered/desired capabilities."""
    return Array(Symbol, tuple(Symbol(n) for n in names))


# ---------------------------------------------------------------------------------------------
# Format codes (part 1, section 1.6)

NULL = 0x40
TRUE = 0x41
FALSE = 0x42
BOOLEAN = 0x56
UBYTE = 0x50
USHORT = 0x60
UINT = 0x70
SMALLUINT = 0x52
UINT0 = 0x43
ULONG = 0x80
SMALLULONG = 0x53
ULONG0 = 0x44
BYTE = 0x51
SHORT = 0x61
INT = 0x71
SMALLINT = 0x54
LONG = 0x81
SMALLLONG = 0x55
FLOAT = 0x72
DOUBLE = 0x82
DECIMAL32 = 0x74
DECIMAL64 = 0x84
DECIMAL128 = 0x94
CHAR = 0x73
TIMESTAMP = 0x83
UUID = 0x98
VBIN8 = 0xA0
VBIN32 = 0xB0
STR8 = 0xA1
STR32 = 0xB1
SYM8 = 0xA3
SYM32 = 0xB3
LIST0 = 0x45
LIST8 = 0xC0
LIST32 = 0xD0
MAP8 = 0xC1
MAP32 = 0xD1
ARRAY8 = 0xE0
ARRAY32 = 0xF0
DESCRIBED = 0x00

# Fixed-width codes: code -> (width, struct format or None, python class)
_FIXED: dict[int, tuple[int, str, type]] = {
    UBYTE: (1, ">B", UByte),
    USHORT: (2, ">H", UShort),
    UINT: (4, ">I", UInt),
    SMALLUINT: (1, ">B", UInt),
    ULONG: (8, ">Q", ULong),
    SMALLULONG: (1, ">B", ULong),
    BYTE: (1, ">b", Byte),
    SHORT: (2, ">h", Short),
    INT: (4, ">i", Int),
    SMALLINT: (1, ">b", Int),
    LONG: (8, ">q", Long),
    SMALLLONG: (1, ">b", Long),
    TIMESTAMP: (8, ">q", Timestamp),
}


# ---------------------------------------------------------------------------------------------
# Encoding


def encode(value: object) -> bytes:
    """Encode one Python value with the smallest AMQP encoding for its type."""
    out = bytearray()
    _encode_into(out, value)
    return bytes(out)


def _encode_into(out: bytearray, value: object) -> None:
    code, body = _constructor_and_body(value)
    out.append(code)
    out += body


def _variable(code8: int, code32: int, data: bytes) -> tuple[int, bytes]:
    if len(data) <= 0xFF:
        return code8, bytes([len(data)]) + data
    if len(data) > 0xFFFF_FFFF:
        raise ValueError("value too long for AMQP")
    return code32, struct.pack(">I", len(data)) + data


def _compound(code8: int, code32: int, count: int, payload: bytes) -> tuple[int, bytes]:
    # size counts the count field plus the payload; the 8-bit form needs both to fit a byte
    if count <= 0xFF and len(payload) + 1 <= 0xFF:
        return code8, bytes([len(payload) + 1, count]) + payload
    return code32, struct.pack(">II", len(payload) + 4, count) + payload


def _constructor_and_body(value: object) -> tuple[int, bytes]:  # noqa: C901 - a flat type switch
    if value is None:
        return NULL, b""
    if isinstance(value, bool):
        return (TRUE if value else FALSE), b""
    if isinstance(value, Described):
        head = bytearray([DESCRIBED])
        _encode_into(head, value.descriptor)
        code, body = _constructor_and_body(value.value)
        # the described constructor is 0x00, descriptor, then the inner constructor
        return head[0], bytes(head[1:]) + bytes([code]) + body
    if isinstance(value, Symbol):
        return _variable(SYM8, SYM32, value.encode("ascii"))
    if isinstance(value, Char):
        if len(value) != 1:
            raise ValueError("AMQP char holds exactly one code point")
        return CHAR, struct.pack(">I", ord(value))
    if isinstance(value, str):
        return _variable(STR8, STR32, value.encode("utf-8"))
    if isinstance(value, Decimal32):
        return DECIMAL32, _exact(value, 4)
    if isinstance(value, Decimal64):
        return DECIMAL64, _exact(value, 8)
    if isinstance(value, Decimal128):
        return DECIMAL128, _exact(value, 16)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _variable(VBIN8, VBIN32, bytes(value))
    if isinstance(value, uuid.UUID):
        return UUID, value.bytes
    if isinstance(value, int):
        return _encode_int(value)
    if isinstance(value, Float):
        return FLOAT, struct.pack(">f", value)
    if isinstance(value, float):
        return DOUBLE, struct.pack(">d", value)
    if isinstance(value, (list, tuple)):
        if not value:
            return LIST0, b""
        payload = bytearray()
        for item in value:
            _encode_into(payload, item)
        return _compound(LIST8, LIST32, len(value), bytes(payload))
    if isinstance(value, dict):
        payload = bytearray()
        for key, item in value.items():
            _encode_into(payload, key)
            _encode_into(payload, item)
        return _compound(MAP8, MAP32, 2 * len(value), bytes(payload))
    if isinstance(value, Array):
        return _encode_array(value)
    raise TypeError(f"cannot encode {type(value).__name__} as AMQP")


def _exact(data: bytes, width: int) -> bytes:
    if len(data) != width:
        raise ValueError(f"expected {width} bytes, got {len(data)}")
    return bytes(data)


def _encode_int(value: int) -> tuple[int, bytes]:
    kind = type(value)
    if kind is UInt:
        if value == 0:
            return UINT0, b""
        return (SMALLUINT, bytes([value])) if value <= 0xFF else (UINT, struct.pack(">I", value))
    if kind is ULong:
        if value == 0:
            return ULONG0, b""
        return (SMALLULONG, bytes([value])) if value <= 0xFF else (ULONG, struct.pack(">Q", value))
    if kind is Int:
        if -128 <= value <= 127:
            return SMALLINT, struct.pack(">b", value)
        return INT, struct.pack(">i", value)
    if kind is UByte:
        return UBYTE, struct.pack(">B", value)
    if kind is UShort:
        return USHORT, struct.pack(">H", value)
    if kind is Byte:
        return BYTE, struct.pack(">b", value)
    if kind is Short:
        return SHORT, struct.pack(">h", value)
    if kind is Timestamp:
        return TIMESTAMP, struct.pack(">q", value)
    number = int(Long(value))  # a plain int is an AMQP long; Long() checks the range
    if -128 <= number <= 127:
        return SMALLLONG, struct.pack(">b", number)
    return LONG, struct.pack(">q", number)


# Element constructors used inside arrays: one fixed (widest) encoding per element type, as
# every element of an array shares the constructor.
_ARRAY_CODES: dict[type, int] = {
    Symbol: SYM32,
    str: STR32,
    bytes: VBIN32,
    bool: BOOLEAN,
    UByte: UBYTE,
    UShort: USHORT,
    UInt: UINT,
    ULong: ULONG,
    Byte: BYTE,
    Short: SHORT,
    Int: INT,
    Long: LONG,
    Timestamp: TIMESTAMP,
    uuid.UUID: UUID,
    Float: FLOAT,
    float: DOUBLE,
    Char: CHAR,
}


def _encode_array(array: Array) -> tuple[int, bytes]:
    etype = array.element_type
    if etype not in _ARRAY_CODES:
        raise TypeError(f"cannot encode an AMQP array of {etype.__name__}")
    code = _ARRAY_CODES[etype]
    if code == SYM32 and all(len(str(s).encode("ascii")) <= 0xFF for s in array.items):
        code = SYM8  # proton and Artemis write symbol arrays with sym8 elements when they fit
    payload = bytearray([code])
    for item in array.items:
        if not isinstance(item, etype):
            raise TypeError(f"array of {etype.__name__} holds a {type(item).__name__}")
        payload += _array_element_body(code, item)
    return _compound(ARRAY8, ARRAY32, len(array.items), bytes(payload))


def _array_element_body(code: int, item: object) -> bytes:
    if code == SYM8:
        data = str(item).encode("ascii")
        return bytes([len(data)]) + data
    if code in (SYM32, STR32, VBIN32):
        data = item.encode("ascii" if code == SYM32 else "utf-8") if isinstance(item, str) else bytes(item)
        return struct.pack(">I", len(data)) + data
    if code == BOOLEAN:
        return b"\x01" if item else b"\x00"
    if code == UUID:
        return item.bytes  # type: ignore[attr-defined]
    if code == FLOAT:
        return struct.pack(">f", item)
    if code == DOUBLE:
        return struct.pack(">d", item)
    if code == CHAR:
        return struct.pack(">I", ord(str(item)))
    width, fmt, cls = _FIXED[code]
    return struct.pack(fmt, cls(item))


# ---------------------------------------------------------------------------------------------
# Decoding


def decode(data: bytes) -> object:
    """Decode exactly one value that fills ``data``; trailing bytes are a protocol error."""
    value, end = decode_one(data, 0)
    if end != len(data):
        raise ProtocolError(f"{len(data) - end} unexpected byte(s) after an AMQP value")
    return value


def decode_one(data: bytes, offset: int = 0) -> tuple[object, int]:
    """Decode one value starting at ``offset``; return it and the offset just past it."""
    reader = _Reader(data, offset)
    value = reader.value(0)
    return value, reader.pos


class _Reader:
    def __init__(self, data: bytes, pos: int) -> None:
        self.data = bytes(data)
        self.pos = pos

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ProtocolError("AMQP value is truncated")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def byte(self) -> int:
        pos = self.pos
        if pos >= len(self.data):
            raise ProtocolError("AMQP value is truncated")
        self.pos = pos + 1
        return self.data[pos]

    def u32(self) -> int:
        return struct.unpack(">I", self.take(4))[0]

    def value(self, depth: int) -> object:
        code = self.byte()
        if code != DESCRIBED:  # the common case: a plain value, no descriptor list to build
            return self.body(code, depth)
        self.pos -= 1
        code, descriptors = self.constructor(depth)
        return _describe(descriptors, self.body(code, depth + len(descriptors)))

    def constructor(self, depth: int) -> tuple[int, list[object]]:
        """Read ``format-code`` or ``0x00 descriptor constructor`` (which may repeat)."""
        descriptors: list[object] = []
        code = self.byte()
        while code == DESCRIBED:
            if depth + len(descriptors) >= MAX_NESTING_DEPTH:
                raise ProtocolError("AMQP value nested too deeply")
            descriptors.append(self.value(depth + len(descriptors) + 1))
            code = self.byte()
        return code, descriptors

    def body(self, code: int, depth: int) -> object:  # noqa: C901 - a flat type switch
        if code == NULL:
            return None
        # the codes of a handshake first: strings, symbols, lists, maps, one-byte numbers
        if code in (VBIN8, STR8, SYM8):
            return self.variable(code, self.byte())
        if code in (LIST8, MAP8, ARRAY8):
            size = self.byte()
            return self.compound(code, size, 1, depth)
        one_byte = _ONE_BYTE_VALUES.get(code)
        if one_byte is not None:
            return one_byte[self.byte()]
        if code == TRUE:
            return True
        if code == FALSE:
            return False
        if code == UINT0:
            return UInt(0)
        if code == ULONG0:
            return ULong(0)
        if code == LIST0:
            return []
        if code in _FIXED:
            width, fmt, cls = _FIXED[code]
            return cls(struct.unpack(fmt, self.take(width))[0])
        if code == BOOLEAN:
            flag = self.byte()
            if flag > 1:
                raise ProtocolError(f"AMQP boolean byte {flag:#04x} is neither 0 nor 1")
            return flag == 1
        if code == FLOAT:
            return Float(struct.unpack(">f", self.take(4))[0])
        if code == DOUBLE:
            return struct.unpack(">d", self.take(8))[0]
        if code == DECIMAL32:
            return Decimal32(self.take(4))
        if code == DECIMAL64:
            return Decimal64(self.take(8))
        if code == DECIMAL128:
            return Decimal128(self.take(16))
        if code == CHAR:
            point = self.u32()
            if point > 0x10FFFF or 0xD800 <= point <= 0xDFFF:
                raise ProtocolError(f"AMQP char {point:#x} is not a Unicode scalar value")
            return Char(chr(point))
        if code == UUID:
            return uuid.UUID(bytes=self.take(16))
        if code in (VBIN32, STR32, SYM32):
            return self.variable(code, self.u32())
        if code in (LIST32, MAP32, ARRAY32):
            size = self.u32()
            return self.compound(code, size, 4, depth)
        raise ProtocolError(f"unknown AMQP format code {code:#04x}")

    def variable(self, code: int, length: int) -> object:
        raw = self.take(length)
        if code in (VBIN8, VBIN32):
            return raw
        try:
            if code in (SYM8, SYM32):
                return Symbol(raw.decode("ascii"))
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            kind = "symbol" if code in (SYM8, SYM32) else "string"
            raise ProtocolError(f"AMQP {kind} is not valid {exc.encoding}") from None

    def compound(self, code: int, size: int, width: int, depth: int) -> object:
        if size < width:
            raise ProtocolError("AMQP compound size is smaller than its count field")
        end = self.pos + size
        if end > len(self.data):
            raise ProtocolError("AMQP compound value is truncated")
        count = int.from_bytes(self.take(width), "big")
        if depth >= MAX_NESTING_DEPTH:
            raise ProtocolError("AMQP value nested too deeply")
        # every element needs at least one byte, except array elements with a zero-width
        # constructor (null, true, list0...): bound those by the declared size too, so a tiny
        # frame cannot ask us to build billions of Nones
        if count > size:
            raise ProtocolError("AMQP compound count is larger than its size allows")
        if code in (LIST8, LIST32):
            items = [self.value(depth + 1) for _ in range(count)]
        elif code in (MAP8, MAP32):
            items = self.map_items(count, depth)
        else:
            items = self.array_items(count, depth)
        if self.pos != end:
            raise ProtocolError("AMQP compound size does not match its content")
        return items

    def map_items(self, count: int, depth: int) -> dict[Any, Any]:
        if count % 2:
            raise ProtocolError("AMQP map has an odd number of elements")
        result: dict[Any, Any] = {}
        for _ in range(count // 2):
            key = self.value(depth + 1)
            item = self.value(depth + 1)
            try:
                result[key] = item
            except TypeError:
                raise ProtocolError("AMQP map key is a list or map, which we do not support") from None
        return result

    def array_items(self, count: int, depth: int) -> Array:
        code, descriptors = self.constructor(depth + 1)
        items = tuple(self.body(code, depth + 1 + len(descriptors)) for _ in range(count))
        if descriptors:
            return Array(Described, tuple(_describe(descriptors, item) for item in items))
        etype = _ELEMENT_TYPES.get(code)
        if etype is None:
            etype = type(items[0]) if items else object
        return Array(etype, items)


#: The decoded value of every byte for the one-byte fixed-width codes (smallulong 0x10, ubyte...),
#: built once: these are immutable ints, so sharing them changes nothing.
_ONE_BYTE_VALUES: dict[int, tuple[object, ...]] = {
    code: tuple(cls(struct.unpack(fmt, bytes((b,)))[0]) for b in range(256))
    for code, (width, fmt, cls) in _FIXED.items() if width == 1
}


def _describe(descriptors: list[object], value: object) -> object:
    # 0x00 d1 0x00 d2 code body  ->  Described(d1, Described(d2, body))
    for descriptor in reversed(descriptors):
        value = Described(descriptor, value)
    return value


_ELEMENT_TYPES: dict[int, type] = {
    SYM8: Symbol,
    SYM32: Symbol,
    STR8: str,
    STR32: str,
    VBIN8: bytes,
    VBIN32: bytes,
    UUID: uuid.UUID,
    BOOLEAN: bool,
    TRUE: bool,
    FALSE: bool,
    NULL: type(None),
    DOUBLE: float,
    FLOAT: Float,
    CHAR: Char,
    **{code: cls for code, (_, _, cls) in _FIXED.items()},
}
