"""Byte-level tests of the AMQP 1.0 type system, with encodings built by hand from part 1 of the spec."""

from __future__ import annotations

import uuid

import pytest

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.amqp_types import (
    Array,
    Byte,
    Char,
    Decimal32,
    Described,
    Float,
    Int,
    Long,
    Short,
    Symbol,
    Timestamp,
    UByte,
    UInt,
    ULong,
    UShort,
    decode,
    decode_one,
    encode,
    symbols,
)

# (python value, exact encoding, python type after decoding)
CASES = [
    (None, b"\x40", type(None)),
    (True, b"\x41", bool),
    (False, b"\x42", bool),
    (UByte(200), b"\x50\xc8", UByte),
    (UShort(0xFFFF), b"\x60\xff\xff", UShort),
    (UInt(0), b"\x43", UInt),
    (UInt(7), b"\x52\x07", UInt),
    (UInt(131072), b"\x70\x00\x02\x00\x00", UInt),
    (ULong(0), b"\x44", ULong),
    (ULong(0x10), b"\x53\x10", ULong),
    (ULong(0x1_0000_0000), b"\x80\x00\x00\x00\x01\x00\x00\x00\x00", ULong),
    (Byte(-2), b"\x51\xfe", Byte),
    (Short(-300), b"\x61\xfe\xd4", Short),
    (Int(5), b"\x54\x05", Int),
    (Int(-128), b"\x54\x80", Int),
    (Int(61616), b"\x71\x00\x00\xf0\xb0", Int),
    (Long(-1), b"\x55\xff", Long),
    (Long(1 << 40), b"\x81\x00\x00\x01\x00\x00\x00\x00\x00", Long),
    (Timestamp(1000), b"\x83\x00\x00\x00\x00\x00\x00\x03\xe8", Timestamp),
    (Float(1.5), b"\x72\x3f\xc0\x00\x00", Float),
    (2.5, b"\x82\x40\x04\x00\x00\x00\x00\x00\x00", float),
    (Char("\u20ac"), b"\x73\x00\x00\x20\xac", Char),
    (Decimal32(b"\x01\x02\x03\x04"), b"\x74\x01\x02\x03\x04", Decimal32),
    (uuid.UUID(int=1), b"\x98" + b"\x00" * 15 + b"\x01", uuid.UUID),
    (b"\x00\x01", b"\xa0\x02\x00\x01", bytes),
    (b"x" * 256, b"\xb0\x00\x00\x01\x00" + b"x" * 256, bytes),
    ("h\u00e9", b"\xa1\x03h\xc3\xa9", str),
    ("y" * 300, b"\xb1\x00\x00\x01\x2c" + b"y" * 300, str),
    (Symbol("PLAIN"), b"\xa3\x05PLAIN", Symbol),
    (Symbol("s" * 256), b"\xb3\x00\x00\x01\x00" + b"s" * 256, Symbol),
    ([], b"\x45", list),
    ([None, True], b"\xc0\x03\x02\x40\x41", list),
    ({Symbol("a"): Int(1)}, b"\xc1\x06\x02\xa3\x01a\x54\x01", dict),
    (Described(ULong(0x10), [""]), b"\x00\x53\x10\xc0\x03\x01\xa1\x00", Described),
    (symbols("PLAIN", "ANONYMOUS"), b"\xe0\x12\x02\xa3\x05PLAIN\x09ANONYMOUS", Array),
]


@pytest.mark.parametrize(("value", "wire", "kind"), CASES, ids=[repr(c[1][:4]) for c in CASES])
def test_encode_and_decode_each_type(value, wire, kind):
    assert encode(value) == wire
    decoded = decode(wire)
    assert decoded == value
    assert type(decoded) is kind


def test_large_list_uses_list32():
    value = ["z" * 100, "z" * 100, "z" * 100]
    wire = encode(value)
    assert wire[0] == 0xD0
    size = int.from_bytes(wire[1:5], "big")
    assert size == len(wire) - 5
    assert int.from_bytes(wire[5:9], "big") == 3
    assert decode(wire) == value


def test_map32_and_array32_decode():
    # map32 {"k": null}: size covers count (4) + key (3) + value (1)
    assert decode(b"\xd1\x00\x00\x00\x08\x00\x00\x00\x02\xa1\x01k\x40") == {"k": None}
    # array32 of two sym32 elements
    wire = b"\xf0\x00\x00\x00\x0f\x00\x00\x00\x02\xb3\x00\x00\x00\x01a\x00\x00\x00\x01b"
    assert decode(wire) == Array(Symbol, (Symbol("a"), Symbol("b")))


def test_array_of_described_and_boolean_elements():
    # array8, size 7, count 2, constructor 0x00 smallulong(1) smallint, bodies 05 and 06
    wire = b"\xe0\x07\x02\x00\x53\x01\x54\x05\x06"
    decoded = decode(wire)
    assert decoded == Array(Described, (Described(ULong(1), Int(5)), Described(ULong(1), Int(6))))
    assert decode(b"\xe0\x04\x02\x56\x01\x00") == Array(bool, (True, False))


def test_symbolic_descriptor_and_nested_described():
    wire = b"\x00\xa3\x0eamqp:open:list\x45"
    assert decode(wire) == Described(Symbol("amqp:open:list"), [])
    assert decode(b"\x00\x53\x01\x00\x53\x02\x40") == Described(ULong(1), Described(ULong(2), None))


def test_decode_one_reports_end_offset():
    value, end = decode_one(b"\x54\x07\xff", 0)
    assert value == 7
    assert end == 2


@pytest.mark.parametrize(
    ("wire", "message"),
    [
        (b"", "truncated"),
        (b"\xa1\x05abc", "truncated"),
        (b"\x02", "unknown AMQP format code"),
        (b"\xa3\x01\xff", "symbol is not valid ascii"),
        (b"\xa1\x01\xff", "string is not valid utf-8"),
        (b"\xc0\x00", "smaller than its count"),
        (b"\xc0\x02\x05\x40", "count is larger"),
        (b"\xc0\x03\x01\x40\x40", "size does not match"),
        (b"\xc1\x02\x01\x40", "odd number"),
        (b"\xc1\x03\x02\x45\x40", "map key is a list"),
        (b"\x56\x02", "neither 0 nor 1"),
        (b"\x73\x00\x00\xd8\x00", "not a Unicode scalar"),
        (b"\x54\x01\x40", "unexpected byte"),
    ],
)
def test_malformed_values_raise_protocol_error(wire, message):
    with pytest.raises(ProtocolError, match=message):
        decode(wire)


def test_nesting_depth_is_bounded():
    # 40 stacked descriptors: 0x00 smallulong(1) 0x00 smallulong(1) ... null
    deep = b"\x00\x53\x01" * 40 + b"\x40"
    with pytest.raises(ProtocolError, match="nested too deeply"):
        decode(deep)


def test_typed_ints_check_their_range():
    with pytest.raises(ValueError):
        UByte(256)
    with pytest.raises(ValueError):
        Int(1 << 31)
    with pytest.raises(ValueError):
        encode(1 << 64)
    with pytest.raises(TypeError):
        encode(object())
