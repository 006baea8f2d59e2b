"""The JSON form of broker properties, flattened as the broker's ``InsertionOrderedProperties.loadJson``.

Objects nest keys with ``.``; a key holding a dot (and not starting with ``key.``, and not already
surrounded) is surrounded with the key surround string (``"key.surround"`` at the top, else
``"brokerPropertiesKeySurround"``, else ``"``); strings are taken as they are, numbers and booleans
as their JSON text; ``null`` or an array makes the whole file a load error. Each key keeps the line
its name is written on: object members come in document order, so the n-th member name in the text
is the n-th member the flattening visits. Numbers are written as ``JsonValue.toString()`` does.
"""

from __future__ import annotations

import json
from typing import Any

from .syntax import PropertiesSyntaxError

# Deeper nesting than this is certainly not a broker configuration (and Python's json recurses).
MAX_DEPTH = 64


def _member_lines(text: str) -> list[int]:
    """The line of every object member name, in document order (strings followed by ``:``)."""
    lines: list[int] = []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c == '"':
            start_line = line
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\":
                    i += 1
                elif text[i] == "\n":
                    line += 1
                i += 1
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] == ":":
                lines.append(start_line)
        i += 1
    return lines


def _depth(text: str) -> int:
    depth = deepest = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "}]":
            depth -= 1
    return deepest


def load_json(text: str) -> list[tuple[str, str, int]]:
    """(key, value, line) in the broker's order; PropertiesSyntaxError where it records a loadError."""
    if _depth(text) > MAX_DEPTH:
        raise PropertiesSyntaxError(f"JSON nested deeper than {MAX_DEPTH} levels", 1, 1)
    try:
        data = json.loads(text, object_pairs_hook=_Obj, parse_float=_Num, parse_int=_Num,
                          parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        line = getattr(exc, "lineno", 1)
        col = getattr(exc, "colno", 1)
        raise PropertiesSyntaxError(f"not JSON: {getattr(exc, 'msg', str(exc))}", line, col) from None
    if not isinstance(data, _Obj):
        raise PropertiesSyntaxError("the JSON form must be an object", 1, 1)
    surround = '"'
    for key, value in data:
        if key == "key.surround" and isinstance(value, str):
            surround = value
            break
    else:
        for key, value in data:
            if key == "brokerPropertiesKeySurround" and isinstance(value, str):
                surround = value
    lines = iter(_member_lines(text))
    found: dict[str, tuple[str, str, int]] = {}
    _flatten(data, "", surround, lines, found)
    return list(found.values())


class _Obj(list):  # type: ignore[type-arg]
    """A JSON object's members, in order (a plain list is a JSON array)."""


class _Num(str):
    """A JSON number, as written."""


def _number_text(raw: str) -> str:
    """A JSON number as the broker's ``JsonValue.toString()`` writes it: an integer as a long, anything
    else as ``BigDecimal.toString()`` (``1e3`` is ``1E+3``; Python's Decimal follows the same rules)."""
    from decimal import Decimal

    if raw.lstrip("-").isdigit() and -(2 ** 63) <= int(raw) < 2 ** 63:
        return str(int(raw))
    number = Decimal(raw)
    return str(number.copy_abs() if number.is_zero() else number)  # BigDecimal has no negative zero


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _flatten(pairs: list[tuple[str, Any]], parent: str, surround: str, lines: Any,
             found: dict[str, tuple[str, str, int]]) -> None:
    for key, value in pairs:
        line = next(lines, 1)
        if "." in key and not key.startswith("key.") and not (key.startswith(surround) and key.endswith(surround)):
            key = surround + key + surround
        full = parent + key
        if isinstance(value, _Obj):
            _flatten(value, full + ".", surround, lines, found)
        elif isinstance(value, str) and not isinstance(value, _Num):
            found[full] = (full, value, line) if full not in found else (full, value, found[full][2])
        elif isinstance(value, bool):
            found[full] = (full, "true" if value else "false", found.get(full, (0, 0, line))[2])
        elif value is None or isinstance(value, list):
            kind = "NULL" if value is None else "ARRAY"
            raise PropertiesSyntaxError(f"JSON value type not supported: {kind}", line, 1,
                                        f"java.lang.IllegalStateException: JSON value type not supported: {kind}")
        else:
            found[full] = (full, _number_text(value), found.get(full, (0, 0, line))[2])
