"""Text to typed values as the broker's BeanUtils converters do it, saying when they are silent.

``ConvertUtilsBean`` with its default registrations: a primitive ``int``/``double``/``boolean``
that cannot be read becomes 0 / 0.0 / false *without an error*; ``boolean`` knows
``true yes y on 1`` and ``false no n off 0`` in any case, untrimmed; numbers are trimmed first.
The broker registers its own converter for primitive ``long``: ``ByteUtil.convertTextBytes``
(``^\\s*(\\d+)\\s*(k|ki|m|mi|g|gi)?(b)?\\s*$`` ignoring case, powers of 1024; else
``Long.parseLong``; anything else is an error). Enums must match a constant exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...javastr import java_parse_double, java_parse_integer, java_trim

_TRUE = ("true", "yes", "y", "on", "1")
_FALSE = ("false", "no", "n", "off", "0")
_BYTES = re.compile(r"^[ \t\n\x0b\f\r]*([0-9]+)[ \t\n\x0b\f\r]*(ki?|mi?|gi?)?(b)?[ \t\n\x0b\f\r]*$", re.IGNORECASE)
_FACTOR = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}
LONG_MIN, LONG_MAX = -(2 ** 63), 2 ** 63 - 1


class ConversionError(ValueError):
    """The broker refuses the value: an error in its status, the property keeps its value."""


@dataclass(frozen=True, slots=True)
class Converted:
    value: object
    silent: str | None = None  # why the broker silently used a default instead of the text


def to_int(text: str) -> Converted:
    value = java_parse_integer(java_trim(text), bits=32)
    if value is None:
        return Converted(0, f"{text!r} is not an int: the broker silently uses 0")
    return Converted(value)


def to_double(text: str) -> Converted:
    value = java_parse_double(java_trim(text))
    if value is None:
        return Converted(0.0, f"{text!r} is not a number: the broker silently uses 0.0")
    return Converted(value)


def to_bool(text: str) -> Converted:
    low = text.lower()
    if low in _TRUE:
        return Converted(True)
    if low in _FALSE:
        return Converted(False)
    return Converted(False, f"{text!r} is none of true/yes/y/on/1, false/no/n/off/0: the broker silently uses false")


def to_long(text: str) -> Converted:
    m = _BYTES.match(text)
    if m:
        number = int(m.group(1))
        if number > LONG_MAX:
            raise ConversionError(f"failed to parse long value from {text!r}")
        value = number * _FACTOR[(m.group(2) or "")[:1].lower()]
        value = (value + 2 ** 63) % 2 ** 64 - 2 ** 63  # Java's long multiplication wraps
        return Converted(value)
    parsed = java_parse_integer(text, bits=64)
    if parsed is None:
        raise ConversionError(f"failed to parse long value from {text!r}")
    return Converted(parsed)


def to_enum(text: str, constants: tuple[str, ...]) -> Converted:
    if text in constants:
        return Converted(text)
    raise ConversionError(f"no enum constant {text!r}; one of {', '.join(constants)} (exact case, no blanks)")


def to_list(text: str) -> Converted:
    """The broker's List converter: ``String.split(",")`` (trailing empty parts dropped), untrimmed."""
    from ...javastr import java_split

    return Converted(tuple(java_split(text, ",")))


def to_map(text: str) -> Converted:
    """The broker's Map converter: ``k=v`` pairs split on ``,``; blank entries skipped; an entry
    that does not split on ``=`` into exactly two parts is an error."""
    from ...javastr import java_split

    out: dict[str, str] = {}
    for entry in text.split(","):
        if not java_trim(entry):
            continue
        kv = java_split(entry, "=")
        if len(kv) != 2:
            raise ConversionError(f"map value {text} not in k=v format")
        out[kv[0]] = kv[1]
    return Converted(out)
