"""Java ``String`` and number-parsing behaviour the broker relies on, in one place."""

from __future__ import annotations

import re
import struct
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1
LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1

# Digits past which an integer is out of every Java range: bounded_int stops reading there.
_BOUNDED_DIGITS = 40


def bounded_int(text: str, limit: int = _BOUNDED_DIGITS) -> int:
    """``int(text)`` for a decimal integer (optional sign), but a number of more than ``limit`` digits
    (40: out of every Java integer range anyway) comes back as ±10**limit: Python refuses to convert
    more than 4,300 digits, and converting many is slow. Raises ValueError where ``int`` does."""
    body = text.strip()
    sign = -1 if body[:1] == "-" else 1
    digits = body[1:] if body[:1] in "+-" else body
    digits = digits.lstrip("0") or "0"
    if len(digits) > limit:
        if not digits.isdigit():
            raise ValueError(f"invalid literal for int(): {text[:40]!r}")
        return sign * 10**limit
    return int(text)


# java.util.HashMap: initial table size 16, load factor 0.75, the table doubles when full.
_HASHMAP_INITIAL_CAPACITY = 16
_HASHMAP_LOAD_FACTOR = 0.75

# What String.trim() removes from both ends: every char up to and including the space (U+0020).
JAVA_TRIMMED = "".join(chr(c) for c in range(0x21))

# Double.parseDouble (FloatingDecimal): ASCII digits only, an optional f/F/d/D suffix, hex floats
# need their binary exponent; "NaN" and "Infinity" are spelled exactly so.
_JAVA_DOUBLE = re.compile(
    r"(?P<sign>[+-]?)(?:(?P<nan>NaN)|(?P<inf>Infinity)"
    r"|(?P<dec>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?"
    r"|(?P<hex>0[xX](?:[0-9A-Fa-f]+\.?[0-9A-Fa-f]*|\.[0-9A-Fa-f]+)[pP][+-]?[0-9]+)[fFdD]?)"
)


def java_trim(text: str) -> str:
    """``String.trim()``: drops chars <= U+0020 at both ends (a no-break space stays)."""
    return text.strip(JAVA_TRIMMED)


# Character.isWhitespace: the Unicode space separators (Zs, Zl, Zp) except the no-break ones
# (U+00A0, U+2007, U+202F), plus U+0009-U+000D and U+001C-U+001F. U+0085 is not one (a control).
_JAVA_NON_BREAKING = frozenset("\u00a0\u2007\u202f")


def java_is_whitespace(ch: str) -> bool:
    """``Character.isWhitespace`` for one code point."""
    cp = ord(ch)
    if 0x09 <= cp <= 0x0D or 0x1C <= cp <= 0x1F:
        return True
    return ch not in _JAVA_NON_BREAKING and unicodedata.category(ch) in ("Zs", "Zl", "Zp")


def java_is_blank(text: str) -> bool:
    """``String.isBlank()``: empty or ``Character.isWhitespace`` on every code point.

    Unlike Python's ``str.isspace``/``strip``, a no-break space (U+00A0, U+2007, U+202F) and
    U+0085 (NEL) are not blank; a lone surrogate is not whitespace either.
    """
    return all(map(java_is_whitespace, text))


def java_split(text: str, sep: str = ",") -> list[str]:
    """Java ``String.split`` with a one-character literal separator: trailing empties dropped."""
    parts = text.split(sep)
    while parts and parts[-1] == "":
        parts.pop()
    if not parts and text == "":
        return [""]
    return parts


def java_equals_ignore_case(text: str | None, other: str) -> bool:
    """``other.equalsIgnoreCase(text)`` for an ASCII ``other`` (no trimming; null is never equal)."""
    return text is not None and len(text) == len(other) and text.isascii() and text.lower() == other.lower()


def java_parse_boolean(text: str | None) -> bool:
    """``Boolean.parseBoolean``: ``true`` in any case, nothing else (not trimmed)."""
    return java_equals_ignore_case(text, "true")


def _java_digit(ch: str, radix: int) -> int:
    """``Character.digit(ch, radix)``: Unicode decimal digits, Latin letters (also full-width); else -1."""
    value = unicodedata.decimal(ch, None)
    if value is None:
        code = ord(ch)
        if 0x41 <= code <= 0x5A or 0x61 <= code <= 0x7A:
            value = (code | 0x20) - 0x61 + 10
        elif 0xFF21 <= code <= 0xFF3A or 0xFF41 <= code <= 0xFF5A:
            value = ((code - 0xFF21) % 0x20) + 10
    return value if value is not None and value < radix else -1


def java_parse_integer(text: str | None, *, bits: int = 32, radix: int = 10) -> int | None:
    """``Integer.parseInt`` (``bits=32``) / ``Long.parseLong`` (64): no trimming, optional sign,
    ``Character.digit`` digits (Arabic-Indic and other Unicode decimal digits count), in range.

    Returns None where Java throws NumberFormatException (null, empty, spaces, ``3.0``, overflow).
    """
    if text is None:
        return None
    limit = 1 << (bits - 1)
    if radix == 10 and text.isascii() and text.isdigit():
        number = bounded_int(text)
        return number if number < limit else None
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body:
        return None
    number = 0
    for ch in body:
        digit = _java_digit(ch, radix)
        if digit < 0:
            return None
        if number <= limit:  # past the limit the value no longer matters, only the digits' validity
            number = number * radix + digit
    if text[:1] == "-":
        number = -number
    return number if -limit <= number < limit else None


def java_parse_int(text: str | None) -> int | None:
    """``Integer.parseInt(text)``: see :func:`java_parse_integer`."""
    return java_parse_integer(text)


def java_parse_long(text: str | None) -> int | None:
    """``Long.parseLong(text)``: see :func:`java_parse_integer`."""
    return java_parse_integer(text, bits=64)


def java_parse_double(text: str | None) -> float | None:
    """``Double.parseDouble(text)``: trims like ``String.trim``; ``NaN``, ``Infinity``, hex floats
    and an ``f``/``d`` suffix are accepted, ``INF``, ``inf`` and ``1_0`` are not. None where Java throws."""
    if text is None:
        return None
    m = _JAVA_DOUBLE.fullmatch(java_trim(text))
    if m is None:
        return None
    if m.group("nan"):
        return float("nan")
    if m.group("inf"):
        value = float("inf")
    elif m.group("dec") is not None:
        value = float(m.group("dec"))
    else:
        value = float.fromhex(m.group("hex"))
    return -value if m.group("sign") == "-" else value


def utf16_units(text: str) -> list[int]:
    """The UTF-16 code units Java would hold for ``text`` (lone surrogates pass through)."""
    raw = text.encode("utf-16-be", "surrogatepass")
    return list(struct.unpack(f">{len(raw) // 2}H", raw))


@lru_cache(maxsize=4096)  # map keys repeat (host, port, router, protocols...)
def java_string_hash(text: str) -> int:
    """``String.hashCode()`` as a signed 32-bit int."""
    h = 0
    for unit in (map(ord, text) if text.isascii() else utf16_units(text)):
        h = (31 * h + unit) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def java_hashmap_order(keys: Iterable[str]) -> list[str]:
    """The iteration order of a default ``new HashMap<>()`` after putting ``keys`` in order.

    Iteration walks the table by bucket index; keys sharing a bucket keep insertion order (a
    resize splits buckets without reordering them). A key put again keeps its place. Tree bins
    (8+ keys in one bucket of a 64+ table) are not modelled: no broker.xml map comes near that.
    """
    unique = tuple(dict.fromkeys(keys))
    if len(unique) < 2:
        return list(unique)
    return list(_hashmap_order(unique))


@lru_cache(maxsize=1024)  # the same few key sets come back for every URL of a file
def _hashmap_order(unique: tuple[str, ...]) -> tuple[str, ...]:
    capacity = _HASHMAP_INITIAL_CAPACITY
    while len(unique) > capacity * _HASHMAP_LOAD_FACTOR:
        capacity *= 2
    mask = capacity - 1
    buckets = []
    for position, key in enumerate(unique):
        h = java_string_hash(key) & 0xFFFFFFFF
        buckets.append(((h ^ (h >> 16)) & mask, position, key))
    return tuple(key for _, _, key in sorted(buckets))


def _continuation(b: int) -> bool:
    return b & 0xC0 == 0x80


def _utf8_bad_length(data: bytes, i: int, size: int) -> int:
    """How many bytes Java's UTF-8 decoder replaces with one U+FFFD for a bad ``size``-byte sequence."""
    b1 = data[i]
    b2 = data[i + 1] if i + 1 < len(data) else 0
    if size == 3:
        return 1 if (b1 == 0xE0 and b2 & 0xE0 == 0x80) or not _continuation(b2) else 2
    if (b1 > 0xF4 or (b1 == 0xF0 and not 0x90 <= b2 <= 0xBF) or (b1 == 0xF4 and b2 & 0xF0 != 0x80)
            or not _continuation(b2)):
        return 1
    return 2 if not _continuation(data[i + 2]) else 3


def java_utf8_decode(data: bytes) -> str:
    """``new String(data, UTF_8)`` / a REPLACE-ing CharsetDecoder: each malformed sequence is one
    U+FFFD as *Java* counts it (an encoded surrogate ``ED A0 80`` is one, where Python makes three)."""
    return java_utf8_decode_marked(data)[0]


def java_utf8_decode_marked(data: bytes) -> tuple[str, list[tuple[int, int]]]:
    """:func:`java_utf8_decode`, and where it replaced: (offset in the text, offset in ``data``) of
    each U+FFFD that stands for malformed bytes (a U+FFFD written as ``EF BF BD`` is not one). The
    same as ``new InputStreamReader(stream, UTF_8)`` read to the end (tests/config/test_java_utf8_reader_jdk.py)."""
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        pass
    out: list[str] = []
    marks: list[tuple[int, int]] = []
    i, n = 0, len(data)
    while i < n:
        b1 = data[i]
        rest = n - i
        if b1 < 0x80:
            out.append(chr(b1))
            i += 1
        elif 0xC2 <= b1 <= 0xDF:
            if rest < 2:
                marks.append((len(out), i))
                out.append("\ufffd")
                i = n
            elif not _continuation(data[i + 1]):
                marks.append((len(out), i))
                out.append("\ufffd")
                i += 1
            else:
                out.append(chr((b1 & 0x1F) << 6 | data[i + 1] & 0x3F))
                i += 2
        elif 0xE0 <= b1 <= 0xEF:
            if rest < 3:
                b2 = data[i + 1] if rest > 1 else 0x80
                bad = rest > 1 and ((b1 == 0xE0 and b2 & 0xE0 == 0x80) or not _continuation(b2))
                marks.append((len(out), i))
                out.append("\ufffd")
                i = i + 1 if bad else n
                continue
            b2, b3 = data[i + 1], data[i + 2]
            if (b1 == 0xE0 and b2 & 0xE0 == 0x80) or not _continuation(b2) or not _continuation(b3):
                marks.append((len(out), i))
                out.append("\ufffd")
                i += _utf8_bad_length(data, i, 3)
                continue
            code = (b1 & 0x0F) << 12 | (b2 & 0x3F) << 6 | b3 & 0x3F
            if 0xD800 <= code <= 0xDFFF:  # an encoded surrogate: one U+FFFD for its three bytes
                marks.append((len(out), i))
                out.append("\ufffd")
            else:
                out.append(chr(code))
            i += 3
        elif 0xF0 <= b1 <= 0xF7:
            if rest < 4:
                b2 = data[i + 1] if rest > 1 else 0x80
                if b1 > 0xF4 or (rest > 1 and ((b1 == 0xF0 and not 0x90 <= b2 <= 0xBF)
                                               or (b1 == 0xF4 and b2 & 0xF0 != 0x80) or not _continuation(b2))):
                    marks.append((len(out), i))
                    out.append("\ufffd")
                    i += 1
                elif rest > 2 and not _continuation(data[i + 2]):
                    marks.append((len(out), i))
                    out.append("\ufffd")
                    i += 2
                else:
                    marks.append((len(out), i))
                    out.append("\ufffd")
                    i = n
                continue
            b2, b3, b4 = data[i + 1], data[i + 2], data[i + 3]
            code = (b1 & 0x07) << 18 | (b2 & 0x3F) << 12 | (b3 & 0x3F) << 6 | b4 & 0x3F
            if not (_continuation(b2) and _continuation(b3) and _continuation(b4)) or not 0x10000 <= code <= 0x10FFFF:
                marks.append((len(out), i))
                out.append("\ufffd")
                i += _utf8_bad_length(data, i, 4)
                continue
            out.append(chr(code))
            i += 4
        else:
            marks.append((len(out), i))
            out.append("\ufffd")
            i += 1
    return "".join(out), marks
