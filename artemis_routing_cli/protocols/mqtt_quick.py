"""The common MQTT CONNECT read in one pass, for ``serve``'s fast path (sans-IO: bytes in, facts out).

Most clients open with one CONNECT of a plain shape: MQTT 3.1.1 or 5, no will, no MQTT 5
properties, a client id, maybe a user name and a password, all in one read. :func:`quick_connect`
reads exactly that shape with slicing instead of the codec's cursor, packet reader, server state
and event objects, and returns None for anything else - the caller then runs the full codec
(:class:`.mqtt.MqttServer`), which stays the reference. Whatever it accepts, the full codec decodes
to the same facts; whatever the full codec refuses, it does not accept (tests/protocols/
test_quick_hello.py checks both on random and mutated input).
"""

from __future__ import annotations

from typing import NamedTuple


class QuickConnect(NamedTuple):
    """What the fast path needs of a CONNECT (the rest it does not look at without ``--users-file``)."""

    protocol_level: int
    clean_start: bool
    client_id: str
    username: str | None


#: :class:`QuickConnect`'s fields as :func:`quick_connect` returns them: a plain tuple in that order (it
#: equals the QuickConnect of the same facts, and costs a fraction of one to make)
ConnectFacts = tuple[int, bool, str, "str | None"]

# b"\x00\x04MQTT": the protocol name of levels 4 (3.1.1) and 5
_MQTT_NAME = b"\x00\x04MQTT"
# flags the quick read leaves to the codec: reserved (0x01), will (0x04) and the will's QoS and retain
_DECLINED_FLAGS = 0x3D


#: The commonest CONNECT by its whole size (15 to 129 bytes): MQTT 5, clean start and no other flag, no
#: property, the client id last. Its first 10 bytes (fixed header, one-byte remaining length, protocol
#: name, level, flags) and bytes 12 to 15 (no property, the client id's length), around the keep-alive.
CLEAN_5_HEADS: dict[int, tuple[bytes, bytes]] = {
    size: (bytes((0x10, size - 2)) + _MQTT_NAME + b"\x05\x02", bytes((0, (size - 15) >> 8, (size - 15) & 0xFF)))
    for size in range(15, 130)
}


def quick_connect(data: bytes, max_packet_size: int) -> ConnectFacts | None:
    """The CONNECT that is the whole of ``data``, when it has the plain shape; else None (run the codec)."""
    size = len(data)
    heads = CLEAN_5_HEADS.get(size)
    if heads is not None and data[:10] == heads[0] and data[12:15] == heads[1] and size - 2 <= max_packet_size:
        # the commonest CONNECT in two comparisons: the reads below would take the same branch
        return (5, True, data[15:].decode("utf-8", "replace"), None)
    # The commonest CONNECT first: a one-byte remaining length, no flag but clean start (no user, no
    # password, no will), no MQTT 5 property, the client id last - what the general read below makes of it.
    if (14 <= size < 130 and data[1] == size - 2 and data[0] == 0x10 and size - 2 <= max_packet_size
            and data[2:8] == _MQTT_NAME and not data[9] & 0xFD):
        level = data[8]
        if level == 5:
            if size >= 15 and data[12] == 0 and 15 + ((data[13] << 8) | data[14]) == size:
                return (5, data[9] == 2, data[15:].decode("utf-8", "replace"), None)
        elif level == 4 and 14 + ((data[12] << 8) | data[13]) == size:
            return (4, data[9] == 2, data[14:].decode("utf-8", "replace"), None)
    if size < 14 or data[0] != 0x10:  # CONNECT with its fixed-header flags 0
        return None
    length = data[1]
    if length < 0x80:
        start = 2
    else:  # a two-byte remaining length (128 to 16,383 bytes); longer ones go to the codec
        second = data[2]
        if second & 0x80:
            return None
        length = (length & 0x7F) | (second << 7)
        start = 3
    if start + length != size or length > max_packet_size:
        return None  # more than one packet, a partial one, or too large: the codec decides
    if data[start:start + 6] != _MQTT_NAME:
        return None
    level = data[start + 6]
    flags = data[start + 7]
    if flags & _DECLINED_FLAGS:
        return None
    pos = start + 10  # after the keep-alive
    if pos >= size:
        return None
    if level == 5:
        if data[pos] != 0:  # MQTT 5 properties other than none: the codec reads them
            return None
        pos += 1
    elif level != 4:
        return None
    end = pos + 2 + ((data[pos] << 8) | data[pos + 1]) if pos + 2 <= size else size + 1
    if end > size:
        return None
    client_id = data[pos + 2:end].decode("utf-8", "replace")  # as the codec (netty) decodes
    pos = end
    username = None
    if flags & 0x80:
        end = pos + 2 + ((data[pos] << 8) | data[pos + 1]) if pos + 2 <= size else size + 1
        if end > size:
            return None
        username = data[pos + 2:end].decode("utf-8", "replace")
        pos = end
    if flags & 0x40:
        pos = pos + 2 + ((data[pos] << 8) | data[pos + 1]) if pos + 2 <= size else size + 1
    if pos != size:
        return None
    return (level, bool(flags & 0x02), client_id, username)  # QuickConnect's fields
