"""The common AMQP hello read in one pass, for ``serve``'s fast path (sans-IO: bytes in, facts out).

Most AMQP clients without SASL send the AMQP header and an Open in one write. When that Open is
the short kind - a described list (descriptor smallulong 0x10) of the container-id and at most a
hostname, both strings - :func:`quick_open` reads it by slicing, without the frame reader, the
type decoder and the server's state machine, and returns None for any other shape; the caller then
runs the full codec (:class:`.amqp.AmqpServer`), which stays the reference. Whatever it accepts,
the full codec decodes to the same container-id and hostname; whatever the full codec refuses, it
does not accept (tests/protocols/test_quick_hello.py checks both on random and mutated input).
"""

from __future__ import annotations

from typing import NamedTuple

from .amqp import AMQP_HEADER


class QuickOpen(NamedTuple):
    container_id: str
    hostname: str | None


#: :class:`QuickOpen`'s fields as :func:`quick_open` returns them: a plain tuple in that order (it equals
#: the QuickOpen of the same facts, and costs a fraction of one to make)
OpenFacts = tuple[str, "str | None"]

# frame header after the size: doff 2, type AMQP (0), channel 0; then the described Open (0x00 0x53 0x10)
_OPEN_FRAME = b"\x02\x00\x00\x00\x00\x53\x10"


def _string(data: bytes, pos: int, size: int) -> tuple[str, int] | None:
    """A str8 or str32 at ``pos`` (strict UTF-8, as the codec decodes) and the position after it."""
    code = data[pos]
    if code == 0xA1:
        end = pos + 2 + data[pos + 1] if pos + 2 <= size else size + 1
        start = pos + 2
    elif code == 0xB1:
        if pos + 5 > size:
            return None
        start = pos + 5
        end = start + int.from_bytes(data[pos + 1:start], "big")
    else:
        return None
    if end > size:
        return None
    try:
        return data[start:end].decode("utf-8"), end
    except UnicodeDecodeError:
        return None


#: The first 24 bytes of the commonest hello, by its whole size (24 to 276 bytes): the AMQP header, a
#: frame of size - 8 bytes (doff 2, type AMQP, channel 0), the described Open as a list8 of one item,
#: the container-id as a str8 of size - 24 bytes. What follows is the container-id itself.
SHORT_OPEN_HEADS: dict[int, bytes] = {
    size: AMQP_HEADER + (size - 8).to_bytes(4, "big") + _OPEN_FRAME + bytes((0xC0, size - 21, 1, 0xA1, size - 24))
    for size in range(24, 277)
}


def quick_open(data: bytes, max_frame_size: int) -> OpenFacts | None:
    """The AMQP header and short Open that are the whole of ``data``; else None (run the codec).
    ``max_frame_size``: the acceptor's limit (0 or less: none)."""
    size = len(data)
    head = SHORT_OPEN_HEADS.get(size)
    if head is not None and data[:24] == head and not 0 < max_frame_size < size - 8:
        try:  # the commonest Open, one comparison: the read below would take the same branch
            return (data[24:].decode("utf-8"), None)
        except UnicodeDecodeError:
            return None
    if size < 22 or data[:8] != AMQP_HEADER or data[12:19] != _OPEN_FRAME:
        return None
    frame = int.from_bytes(data[8:12], "big")
    if frame + 8 != size or (0 < max_frame_size < frame):
        return None  # more than the one frame, a partial one, or too large: the codec decides
    code = data[19]
    if code == 0xC0:  # list8: size, count
        if size < 22 or 21 + data[20] != size:
            return None
        count = data[21]
        pos = 22
    elif code == 0xD0:  # list32
        if size < 29 or 24 + int.from_bytes(data[20:24], "big") != size:
            return None
        count = int.from_bytes(data[24:28], "big")
        pos = 28
    else:
        return None
    if count not in (1, 2) or pos >= size:
        return None
    if count == 1 and data[pos] == 0xA1 and pos + 2 <= size and pos + 2 + data[pos + 1] == size:
        try:  # the commonest Open, a container-id in a str8 and nothing else: _string's case, inline
            return (data[pos + 2:].decode("utf-8"), None)
        except UnicodeDecodeError:
            return None
    got = _string(data, pos, size)
    if got is None:
        return None
    container_id, pos = got
    hostname = None
    if count == 2:
        if pos >= size:
            return None
        if data[pos] == 0x40:
            pos += 1
        else:
            got = _string(data, pos, size)
            if got is None:
                return None
            hostname, pos = got
    if pos != size:
        return None
    return (container_id, hostname)  # QuickOpen's fields
