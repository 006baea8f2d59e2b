"""Java ``String`` behaviour the broker relies on, in one place."""

from __future__ import annotations

import unicodedata

INT_MIN = -(2**31)
INT_MAX = 2**31 - 1


def java_split(text: str, sep: str = ",") -> list[str]:
    """Java ``String.split`` with a one-character literal separator: trailing empties dropped."""
    parts = text.split(sep)
    while parts and parts[-1] == "":
        parts.pop()
    if not parts and text == "":
        return [""]
    return parts


def java_parse_int(text: str | None) -> int | None:
    """``Integer.parseInt(text)``: no trimming, optional sign, Unicode decimal digits, 32 bits.

    Returns None where Java throws NumberFormatException (null, empty, spaces, ``3.0``, overflow).
    """
    if text is None:
        return None
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body:
        return None
    digits = []
    for ch in body:
        value = unicodedata.decimal(ch, None)
        if value is None:
            return None
        digits.append(str(value))
    number = int("".join(digits))
    if text[:1] == "-":
        number = -number
    return number if INT_MIN <= number <= INT_MAX else None
