"""ActiveMQBuffer encodings used inside CORE packets (all big-endian).

* ``int``/``long``/``byte``: Java signed integers; ``boolean``: one byte, written as ``-1``/``0``
  and read as "non-zero is true".
* ``String`` (``writeString``): int32 number of UTF-16 units ``n``, then
  - ``n < 9``: ``n`` u16 code units;
  - ``n < 0xfff``: u16 byte count + Artemis "UTF" (1 byte for units <= 0x7F *including NUL*,
    2 bytes up to 0x7FF, 3 bytes above, each surrogate on its own);
  - otherwise a SimpleString: int32 byte count + UTF-16LE bytes.
* nullable forms: one byte ``0`` (null) or ``1`` then the value.
* ``SimpleString``: int32 byte count + UTF-16LE bytes.
* TransportConfiguration (``TransportConfiguration.encode``): name and factory class as Strings,
  an int32 count of params *plus* extraProps, then the params in their map's order, then the
  extraProps in theirs with each key prefixed ``$.EP.``; each entry is the key (String), a type
  byte (0 Boolean, 1 Integer, 2 Long, 3 String) and the value. Any other value - a ``null``, which
  a URL parameter written without ``=`` leaves - makes the broker's encoder throw
  (``AMQ219033: Invalid type: null``). ``decode`` puts ``$.EP.`` keys back into extraProps.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.core_java import from_utf16_units, java_hashmap_order, utf16_units
from artemis_routing_cli.protocols.wire import BigEndianReader

# UTF8Util.writeString: strings shorter than this many units go out as raw UTF-16 units ...
SHORT_STRING_UNITS = 9
# ... and strings shorter than this go out as Artemis UTF; longer ones as a SimpleString.
UTF_STRING_UNITS = 0xFFF

# TransportConfiguration.TYPE_* constants.
TC_TYPE_BOOLEAN = 0
TC_TYPE_INT = 1
TC_TYPE_LONG = 2
TC_TYPE_STRING = 3

NETTY_CONNECTOR_FACTORY = "org.apache.activemq.artemis.core.remoting.impl.netty.NettyConnectorFactory"
# TransportConfiguration.EXTRA_PROPERTY_PREFIX: how extraProps travel among the params.
EXTRA_PROPERTY_PREFIX = "$.EP."

ParamValue = bool | int | str | None

_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1


@dataclass(frozen=True)
class TransportConfig:
    """A decoded/encodable ``TransportConfiguration`` (a connector): ``params`` and ``extra_props``
    are iterated in their Java HashMap order (:func:`java_hashmap_order` of the keys as given)."""

    name: str
    factory_class_name: str = NETTY_CONNECTOR_FACTORY
    params: dict[str, ParamValue] = field(default_factory=dict)
    extra_props: dict[str, ParamValue] = field(default_factory=dict)

    def java_to_string(self) -> str:
        """``TransportConfiguration.toString()``: '.' shown as '-' in keys and values, a param whose
        key contains "password" (any case) as ``****``; extraProps follow the params unmasked."""
        text = (
            f"TransportConfiguration(name={self.name}, factory={self.factory_class_name.replace('.', '-')})"
        )
        parts = []
        for key in java_hashmap_order(self.params):
            value = self.params[key]
            shown = "****" if "password" in key.lower() else _java_value_text(value)
            parts.append(f"{key.replace('.', '-')}={shown.replace('.', '-')}")
        for key in java_hashmap_order(self.extra_props):
            shown = _java_value_text(self.extra_props[key])
            parts.append(f"{key.replace('.', '-')}={shown.replace('.', '-')}")
        if self.params:  # toStringParameters writes "?" only for non-empty params
            text += "?"
        return text + "&".join(parts)


def _java_value_text(value: ParamValue) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Reader(BigEndianReader):
    """Reads ActiveMQBuffer values from one packet body; underflow is a ProtocolError."""

    truncated = "CORE packet body is truncated"

    def string(self) -> str:
        n = self.int()
        if n < 0:
            raise ProtocolError(f"CORE string has negative length {n}")
        if n < SHORT_STRING_UNITS:
            raw = self.take(2 * n)
            return from_utf16_units(struct.unpack(f">{n}H", raw))
        if n < UTF_STRING_UNITS:
            size = struct.unpack(">H", self.take(2))[0]
            return _decode_artemis_utf(self.take(size))
        return self.simple_string()

    def nullable_string(self) -> str | None:
        return None if self.take(1)[0] == 0 else self.string()

    def simple_string(self) -> str:
        size = self.int()
        if size < 0 or size % 2:
            raise ProtocolError(f"CORE SimpleString has invalid byte length {size}")
        raw = self.take(size)
        return from_utf16_units(struct.unpack(f"<{size // 2}H", raw))

    def nullable_simple_string(self) -> str | None:
        return None if self.take(1)[0] == 0 else self.simple_string()

    def transport_config(self) -> TransportConfig:
        name = self.string()
        factory = self.string()
        count = self.int()
        if count < 0:
            raise ProtocolError("TransportConfiguration has a negative parameter count")
        params: dict[str, ParamValue] = {}
        extra: dict[str, ParamValue] = {}
        for _ in range(count):
            key = self.string()
            kind = self.byte()
            if kind == TC_TYPE_BOOLEAN:
                params[key] = self.boolean()
            elif kind == TC_TYPE_INT:
                params[key] = self.int()
            elif kind == TC_TYPE_LONG:
                params[key] = self.long()
            elif kind == TC_TYPE_STRING:
                params[key] = self.string()
            else:
                raise ProtocolError(f"TransportConfiguration parameter {key!r} has unknown type {kind}")
            if key.startswith(EXTRA_PROPERTY_PREFIX):
                extra[key[len(EXTRA_PROPERTY_PREFIX):]] = params.pop(key)
        return TransportConfig(name, factory, params, extra)


def _decode_artemis_utf(data: bytes) -> str:
    """UTF8Util.readUTF: lenient about continuation bits, strict about lead bytes."""
    units: list[int] = []
    i, n = 0, len(data)
    while i < n:
        c = data[i]
        if c <= 0x7F:
            units.append(c)
            i += 1
        elif c >> 4 in (0xC, 0xD):
            if i + 1 >= n:
                raise ProtocolError("CORE UTF string ends inside a character")
            units.append(((c & 0x1F) << 6) | (data[i + 1] & 0x3F))
            i += 2
        elif c >> 4 == 0xE:
            if i + 2 >= n:
                raise ProtocolError("CORE UTF string ends inside a character")
            units.append(((c & 0x0F) << 12) | ((data[i + 1] & 0x3F) << 6) | (data[i + 2] & 0x3F))
            i += 3
        else:
            raise ProtocolError(f"CORE UTF string has invalid byte 0x{c:02x}")
    return from_utf16_units(units)


class Writer:
    """Builds ActiveMQBuffer values for one packet body."""

    def __init__(self) -> None:
        self._out = bytearray()

    def getvalue(self) -> bytes:
        return bytes(self._out)

    def byte(self, value: int) -> Writer:
        self._out += struct.pack(">b", value)
        return self

    def boolean(self, value: bool) -> Writer:
        self._out.append(0xFF if value else 0x00)
        return self

    def int(self, value: int) -> Writer:
        self._out += struct.pack(">i", value)
        return self

    def long(self, value: int) -> Writer:
        self._out += struct.pack(">q", value)
        return self

    def string(self, value: str) -> Writer:
        units = utf16_units(value)
        n = len(units)
        self.int(n)
        if n < SHORT_STRING_UNITS:
            self._out += struct.pack(f">{n}H", *units)
        elif n < UTF_STRING_UNITS:
            body = _encode_artemis_utf(units)
            self._out += struct.pack(">H", len(body)) + body
        else:
            self.simple_string(value)
        return self

    def nullable_string(self, value: str | None) -> Writer:
        if value is None:
            self._out.append(0)
        else:
            self._out.append(1)
            self.string(value)
        return self

    def simple_string(self, value: str) -> Writer:
        units = utf16_units(value)
        self.int(2 * len(units))
        self._out += struct.pack(f"<{len(units)}H", *units)
        return self

    def nullable_simple_string(self, value: str | None) -> Writer:
        if value is None:
            self._out.append(0)
        else:
            self._out.append(1)
            self.simple_string(value)
        return self

    def transport_config(self, config: TransportConfig) -> Writer:
        """``TransportConfiguration.encode``; a value that is not bool, int or str raises
        :class:`UnencodableParameter` (the broker's encoder throws there too)."""
        self.string(config.name)
        self.string(config.factory_class_name)
        self.int(len(config.params) + len(config.extra_props))
        self._params(config.params, "")
        self._params(config.extra_props, EXTRA_PROPERTY_PREFIX)
        return self

    def _params(self, values: dict[str, ParamValue], prefix: str) -> None:
        for key in java_hashmap_order(values):
            value = values[key]
            self.string(prefix + key)
            if isinstance(value, bool):
                self.byte(TC_TYPE_BOOLEAN).boolean(value)
            elif isinstance(value, int) and _INT_MIN <= value <= _INT_MAX:
                self.byte(TC_TYPE_INT).int(value)
            elif isinstance(value, int):
                self.byte(TC_TYPE_LONG).long(value)
            elif isinstance(value, str):
                self.byte(TC_TYPE_STRING).string(value)
            else:
                raise UnencodableParameter(key, value)


class UnencodableParameter(ValueError):
    """A connector parameter the broker's ``TransportConfiguration.encode`` refuses to write."""

    def __init__(self, key: str, value: object) -> None:
        # ActiveMQClientMessageBundle.invalidEncodeType (AMQ219033), with the value as Java prints it
        super().__init__(f"AMQ219033: Invalid type: {'null' if value is None else value}")
        self.key = key


def _encode_artemis_utf(units: list[int]) -> bytes:
    out = bytearray()
    for unit in units:
        if unit <= 0x7F:
            out.append(unit)
        elif unit >= 0x800:
            out += bytes((0xE0 | (unit >> 12) & 0x0F, 0x80 | (unit >> 6) & 0x3F, 0x80 | unit & 0x3F))
        else:
            out += bytes((0xC0 | (unit >> 6) & 0x1F, 0x80 | unit & 0x3F))
    if len(out) > 0xFFFF:
        raise ValueError("string too long for the CORE UTF encoding")
    return bytes(out)
