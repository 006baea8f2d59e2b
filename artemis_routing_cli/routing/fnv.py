"""The broker's 32-bit FNV-1a over Java ``char``s (UTF-16 code units), as a signed int.

``ConsistentHashPolicy.getHash``: ``h = 0x811c9dc5; for each char c: h = (h ^ c) * 0x01000193``
in Java ``int`` arithmetic (wrap-around), compared as signed values.
"""

from __future__ import annotations

from array import array

FNV_INIT = 0x811C9DC5
FNV_PRIME = 0x01000193
MASK32 = 0xFFFFFFFF


def utf16_units(text: str) -> array:
    """The UTF-16 code units of ``text`` (what Java's ``String.charAt`` walks)."""
    units = array("H")
    units.frombytes(text.encode("utf-16-le", "surrogatepass"))
    return units


def to_signed32(value: int) -> int:
    value &= MASK32
    return value - 0x1_0000_0000 if value & 0x8000_0000 else value


#: ASCII keys up to this length are hashed with one reduction at the end (``h`` grows ~25 bits a char)
SHORT_KEY = 32


def fnv1a32(text: str) -> int:
    """Signed 32-bit FNV-1a of ``text`` exactly as the broker computes it."""
    h = 0x811C9DC5  # FNV_INIT, FNV_PRIME and MASK32 as constants: this runs for every routed key
    if text.isascii():
        if len(text) <= SHORT_KEY:
            # reduced mod 2**32 once at the end: the low 32 bits of (h ^ ch) * prime depend only on
            # those of h (ch < 256 changes only its low byte), and one mask costs less than one per char
            for ch in text.encode("ascii"):
                h = (h ^ ch) * 0x01000193
            h &= 0xFFFFFFFF
        else:  # longer keys: kept to 32 bits as it goes, so that the product stays small
            for ch in text.encode("ascii"):
                h = ((h ^ ch) * 0x01000193) & 0xFFFFFFFF
    else:
        for unit in utf16_units(text):
            h = ((h ^ unit) * FNV_PRIME) & MASK32
    return h - 0x1_0000_0000 if h & 0x8000_0000 else h


#: :func:`fnv1a32` of keys seen lately, by key: ``serve`` hashes every connection's key, and clients
#: come back with the same client id or user. The hash is a pure function of the key, so what is
#: remembered changes no answer; the routing itself still runs for every connection. Bounded: keys of
#: at most :data:`MEMO_KEY_CHARS` characters, at most :data:`MEMO_SIZE` of them, all forgotten at once
#: when it is full. Hot paths read it first (``memo.get(key)``), then call :func:`fnv1a32_remembered`.
FNV_MEMO: dict[str, int] = {}
MEMO_SIZE = 4096
MEMO_KEY_CHARS = 128


def fnv1a32_remembered(text: str) -> int:
    """:func:`fnv1a32`, kept in :data:`FNV_MEMO` when ``text`` is short enough."""
    h = fnv1a32(text)
    if len(text) <= MEMO_KEY_CHARS:
        if len(FNV_MEMO) >= MEMO_SIZE:
            FNV_MEMO.clear()
        FNV_MEMO[text] = h
    return h


def java_string_length(text: str) -> int:
    """``String.length()``: UTF-16 code units."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)
