"""Java behaviour the CORE and OpenWire codecs must copy bit for bit.

Both brokers are Java programs, so a few Java library details leak onto the wire:

* strings are sequences of UTF-16 code units (an emoji is two units);
* ``DataOutput.writeUTF`` writes "modified UTF-8" (NUL as ``C0 80``, each surrogate as three bytes);
* ``java.util.HashMap`` iterates in bucket order, which fixes the order of map entries the broker
  encodes (TransportConfiguration parameters, OpenWire WireFormatInfo properties).

Everything here is pure and raises :class:`~artemis_routing_cli.errors.ProtocolError` on bad input.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.javastr import java_hashmap_order, java_string_hash  # noqa: F401  (one Java HashMap, shared)

# java.io.DataOutputStream.writeUTF refuses more than 65535 encoded bytes (the length is a u16).
MAX_UTF_BYTES = 0xFFFF


def utf16_units(text: str) -> list[int]:
    """The UTF-16 code units Java would hold for ``text`` (lone surrogates pass through)."""
    raw = text.encode("utf-16-be", "surrogatepass")
    return list(struct.unpack(f">{len(raw) // 2}H", raw))


def from_utf16_units(units: Sequence[int]) -> str:
    """Python text from Java code units; valid pairs join, lone surrogates are kept."""
    raw = struct.pack(f">{len(units)}H", *units)
    return raw.decode("utf-16-be", "surrogatepass")


def java_length(text: str) -> int:
    """``String.length()``: the number of UTF-16 code units."""
    return len(text.encode("utf-16-be", "surrogatepass")) // 2


def encode_modified_utf8(text: str) -> bytes:
    """The bytes ``DataOutput.writeUTF`` writes after its u16 length."""
    out = bytearray()
    for unit in utf16_units(text):
        if 0x0001 <= unit <= 0x007F:
            out.append(unit)
        elif unit > 0x07FF:
            out += bytes((0xE0 | (unit >> 12) & 0x0F, 0x80 | (unit >> 6) & 0x3F, 0x80 | unit & 0x3F))
        else:
            out += bytes((0xC0 | (unit >> 6) & 0x1F, 0x80 | unit & 0x3F))
    return bytes(out)


def write_java_utf(text: str) -> bytes:
    """``DataOutput.writeUTF``: u16 byte length then modified UTF-8."""
    body = encode_modified_utf8(text)
    if len(body) > MAX_UTF_BYTES:
        raise ValueError(f"string too long for writeUTF: {len(body)} encoded bytes")
    return struct.pack(">H", len(body)) + body


def decode_modified_utf8(data: bytes) -> str:
    """``DataInput.readUTF`` body decoding, with its malformed-input checks."""
    units: list[int] = []
    i = 0
    n = len(data)
    while i < n:
        c = data[i]
        top = c >> 4
        if top <= 7:
            units.append(c)
            i += 1
        elif top in (12, 13):
            if i + 1 >= n or data[i + 1] & 0xC0 != 0x80:
                raise ProtocolError("malformed modified UTF-8 string")
            units.append(((c & 0x1F) << 6) | (data[i + 1] & 0x3F))
            i += 2
        elif top == 14:
            if i + 2 >= n or data[i + 1] & 0xC0 != 0x80 or data[i + 2] & 0xC0 != 0x80:
                raise ProtocolError("malformed modified UTF-8 string")
            units.append(((c & 0x0F) << 12) | ((data[i + 1] & 0x3F) << 6) | (data[i + 2] & 0x3F))
            i += 3
        else:
            raise ProtocolError("malformed modified UTF-8 string")
    return from_utf16_units(units)
