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
    """The broker refuses the value: an error in its status, the property keeps its value.

    ``str()`` is the reason the broker's status gives (the exception's ``toString()``); ``explain``
    says it in arouter's words, for the finding."""

    def __init__(self, reason: str, explain: str | None = None) -> None:
        super().__init__(reason)
        self.explain = explain


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
            raise _long_error(text)
        value = number * _FACTOR[(m.group(2) or "")[:1].lower()]
        value = (value + 2 ** 63) % 2 ** 64 - 2 ** 63  # Java's long multiplication wraps
        return Converted(value)
    parsed = java_parse_integer(text, bits=64)
    if parsed is None:
        raise _long_error(text)
    return Converted(parsed)


def _long_error(text: str) -> ConversionError:
    # ActiveMQUtilBundle.failedToParseLong (AMQ209004), an IllegalArgumentException
    return ConversionError(f"java.lang.IllegalArgumentException: AMQ209004: Failed to parse long value from {text}",
                           f"{text!r} is not a number with an optional byte suffix (K, MB, GiB...)")


def to_enum(text: str, constants: tuple[str, ...], java: str = "") -> Converted:
    """``Enum.valueOf`` (the broker's String converter does it for any enum type)."""
    if text in constants:
        return Converted(text)
    raise ConversionError(f"java.lang.IllegalArgumentException: No enum constant {java}.{text}",
                          f"{text!r} is not one of {', '.join(constants)} (exact case, no blanks)")


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
            raise ConversionError(f"java.lang.IllegalArgumentException: map value {text} not in k=v format",
                                  f"{entry!r} is not K=V")
        out[kv[0]] = kv[1]
    return Converted(out)
