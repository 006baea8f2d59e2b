"""Big-endian reads over one frame body, shared by the Java-born codecs (CORE, OpenWire).

Running past the end is a :class:`ProtocolError` naming what was truncated.
"""

from __future__ import annotations

import struct

from artemis_routing_cli.errors import ProtocolError


class BigEndianReader:
    """Java ``DataInput``-style reads; subclasses add their protocol's strings and structures."""

    truncated = "frame is truncated"  # the message a subclass gives for running out of bytes

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    @property
    def remaining(self) -> int:
        return len(self._data) - self._pos

    def take(self, n: int) -> bytes:
        if n < 0 or self._pos + n > len(self._data):
            raise ProtocolError(self.truncated)
        chunk = self._data[self._pos : self._pos + n]
        self._pos += n
        return chunk

    def byte(self) -> int:
        return struct.unpack(">b", self.take(1))[0]

    def ubyte(self) -> int:
        return self.take(1)[0]

    def boolean(self) -> bool:
        return self.take(1)[0] != 0

    def short(self) -> int:
        return struct.unpack(">h", self.take(2))[0]

    def int(self) -> int:
        return struct.unpack(">i", self.take(4))[0]

    def long(self) -> int:
        return struct.unpack(">q", self.take(8))[0]
