"""Java-typed message property values, as the broker's filter engine sees them.

Plain Python values stand for the common Java types: ``str`` is String, ``bool`` is Boolean,
``int`` is Integer (32-bit) and ``float`` is Double. The other Java types get small wrapper
types so that the filter engine can apply Java's promotion rules exactly:

* ``JByte`` / ``JShort`` / ``JLong`` (subclasses of ``int``) for Byte, Short and Long;
* ``JFloat`` (subclass of ``float``) for Float, always holding a value rounded to 32 bits;
* ``JBigDecimal`` (subclass of ``int``) only appears for integer literals too large for a long.

``kind(value)`` returns the Java type name used in reports ("int", "long", ...).
"""

from __future__ import annotations

import math
import re
import struct

from ..errors import UsageError
from ..javastr import bounded_int

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
_RANGES = {"byte": (-128, 127), "short": (-(2**15), 2**15 - 1), "int": (INT_MIN, INT_MAX), "long": (LONG_MIN, LONG_MAX)}


class JByte(int):
    """A Java Byte."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"JByte({int(self)})"

    def __str__(self) -> str:
        return str(int(self))


class JShort(int):
    """A Java Short."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"JShort({int(self)})"

    def __str__(self) -> str:
        return str(int(self))


class JLong(int):
    """A Java Long."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"JLong({int(self)})"

    def __str__(self) -> str:
        return str(int(self))


class JBigDecimal(int):
    """A java.math.BigDecimal holding an integer (only from literals beyond the long range)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"JBigDecimal({int(self)})"

    def __str__(self) -> str:
        return str(int(self))


class JFloat(float):
    """A Java Float: construct with ``JFloat.of(x)`` to round to 32 bits."""

    __slots__ = ()

    @staticmethod
    def of(value: float | int) -> JFloat:
        if isinstance(value, int):
            return JFloat(int_to_float32(value))
        return JFloat(to_float32(value))

    def __repr__(self) -> str:
        return f"JFloat({float(self)!r})"

    def __str__(self) -> str:
        return str(float(self))


KIND_NAMES: dict[type, str] = {
    str: "string",
    bool: "boolean",
    JByte: "byte",
    JShort: "short",
    int: "int",
    JLong: "long",
    JFloat: "float",
    float: "double",
    JBigDecimal: "bigdecimal",
}


def kind(value: object) -> str:
    """The Java type name of a property value ("null" for None)."""
    if value is None:
        return "null"
    return KIND_NAMES.get(type(value), type(value).__name__)


def wrap_int(value: int, bits: int) -> int:
    """Two's-complement wrap-around of an integer to ``bits`` bits (Java int/long overflow)."""
    mask = (1 << bits) - 1
    value &= mask
    return value - (1 << bits) if value >> (bits - 1) else value


def to_float32(value: float) -> float:
    """Round a double to the nearest Java float (IEEE binary32), keeping inf/nan."""
    if math.isnan(value) or math.isinf(value):
        return value
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def int_to_float32(value: int) -> float:
    """Java ``(float) longValue``: round an integer straight to binary32 (no double rounding)."""
    magnitude = abs(value)
    if magnitude < 2**24:
        return float(value)
    shift = magnitude.bit_length() - 24
    mantissa = magnitude >> shift
    rest = magnitude & ((1 << shift) - 1)
    half = 1 << (shift - 1)
    if rest > half or (rest == half and mantissa & 1):
        mantissa += 1
    result = float(mantissa << shift) if mantissa << shift < 2**128 else math.inf
    return to_float32(-result if value < 0 else result)


def normalize(value: object) -> object:
    """Turn a Python value into one the filter engine understands (ints beyond int32 become long)."""
    if value is None or type(value) in KIND_NAMES:
        if type(value) is int and not INT_MIN <= value <= INT_MAX:
            if not LONG_MIN <= value <= LONG_MAX:
                raise UsageError(f"integer {value} does not fit in a Java long")
            return JLong(value)
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return normalize(int(value))
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    raise UsageError(f"unsupported property value {value!r}: use string, boolean, integer or number")


def make_typed(type_name: str, value: object) -> object:
    """Build a value of the named Java type ("byte", "short", "int", "long", "float", "double",
    "string", "boolean") from a Python value; raises UsageError when it does not fit."""
    name = type_name.lower()
    if name in _RANGES:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise UsageError(f"{name} value must be an integer, got {value!r}")
        try:
            number = int(value) if not isinstance(value, float) or value.is_integer() else None
        except ValueError:
            number = None
        if number is None:
            raise UsageError(f"{name} value must be an integer, got {value!r}")
        low, high = _RANGES[name]
        if not low <= number <= high:
            raise UsageError(f"{number} is out of range for a Java {name} ({low}..{high})")
        return {"byte": JByte, "short": JShort, "int": int, "long": JLong}[name](number)
    if name in ("float", "double"):
        if isinstance(value, bool):
            raise UsageError(f"{name} value must be a number, got {value!r}")
        try:
            number = float(value) if not isinstance(value, int) else value
        except (TypeError, ValueError):
            raise UsageError(f"{name} value must be a number, got {value!r}") from None
        if name == "float":
            return JFloat.of(number)
        return float(number)
    if name == "string":
        if not isinstance(value, str):
            raise UsageError(f"string value must be a JSON string, got {value!r}")
        return value
    if name == "boolean":
        if not isinstance(value, bool):
            raise UsageError(f"boolean value must be true or false, got {value!r}")
        return value
    raise UsageError(
        f"unknown property type {type_name!r}: use byte, short, int, long, float, double, string or boolean"
    )


_INT_LITERAL = re.compile(r"[+-]?[0-9]+")
_FLOAT_LITERAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def parse_typed_literal(text: str) -> object:
    """Parse a command-line property value (``--message-property NAME=VALUE``) into a typed value.

    ``42`` is an int (a long when beyond the int range), ``42L`` a long, ``1.5`` / ``1.5D`` a
    double, ``1.5F`` a float, ``true`` / ``false`` a boolean, ``'text'`` a string (``''`` inside
    quotes is one quote). ``TYPE:VALUE`` forces a type: ``byte:7``, ``short:7``, ``int:7``,
    ``long:7``, ``float:1.5``, ``double:1.5``, ``string:42``, ``boolean:true``. Any other text
    is refused (a typo such as ``priority=abc`` would otherwise be compared as a string).
    """
    stripped = text.strip()
    prefix, sep, rest = stripped.partition(":")
    if sep and prefix.lower() in ("byte", "short", "int", "long", "float", "double", "string", "boolean"):
        name = prefix.lower()
        if name == "string":
            return rest
        if name == "boolean":
            if rest.strip().lower() not in ("true", "false"):
                raise UsageError(f"boolean value must be true or false, got {rest!r}")
            return rest.strip().lower() == "true"
        literal = rest.strip()
        if name in ("float", "double"):
            if not _FLOAT_LITERAL.fullmatch(literal):
                raise UsageError(f"{name} value must be a number, got {rest!r}")
            return make_typed(name, float(literal))
        if not _INT_LITERAL.fullmatch(literal):
            raise UsageError(f"{name} value must be an integer, got {rest!r}")
        return make_typed(name, bounded_int(literal))
    if len(stripped) >= 2 and stripped[0] == "'" and stripped[-1] == "'":
        return stripped[1:-1].replace("''", "'")
    lowered = stripped.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if _INT_LITERAL.fullmatch(stripped):
        return normalize(bounded_int(stripped))
    if stripped[-1:] in ("l", "L") and _INT_LITERAL.fullmatch(stripped[:-1]):
        return make_typed("long", bounded_int(stripped[:-1]))
    if stripped[-1:] in ("f", "F") and _FLOAT_LITERAL.fullmatch(stripped[:-1]):
        return JFloat.of(float(stripped[:-1]))
    if stripped[-1:] in ("d", "D") and _FLOAT_LITERAL.fullmatch(stripped[:-1]):
        return float(stripped[:-1])
    if _FLOAT_LITERAL.fullmatch(stripped):
        return float(stripped)
    raise UsageError(f"--message-property value {text!r} is not a typed literal: write text in quotes ('{text}') or as "
                     "string:TEXT; numbers as 42, 42L, 1.5, 1.5F; true or false")


def to_json_value(value: object) -> object:
    """A JSON form of a typed value that ``message_from_json`` reads back to the same type."""
    name = kind(value)
    if name in ("string", "boolean", "int", "double", "null"):
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            return {"double": str(value)}
        return value
    if name == "float":
        return {"float": float(value)}  # type: ignore[arg-type]
    return {name: int(value)}  # type: ignore[call-overload]
