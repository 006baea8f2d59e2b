"""The text ``json.dumps(value, indent=2, ensure_ascii=False)`` writes, assembled faster for long reports.

With ``indent`` set, the standard library encodes in Python, one generator per container: for
thousands of findings that is most of a report's cost. The JSON and SARIF writers build the few
top-level parts with ``json.dumps`` and each finding from a fixed template, its values encoded by
the same C function ``json.dumps`` uses. Tests hold the result equal to ``json.dumps`` of the whole.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring  # json.dumps(str, ensure_ascii=False), in C where built
from typing import Any

INDENT = "  "


def dumps(value: Any, level: int = 0) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)`` as written ``level`` containers deep
    (every line after the first indented by that many steps: an encoded string holds no newline)."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return text.replace("\n", "\n" + INDENT * level) if level else text


def string(value: str | None) -> str:
    """A string (or None) as json.dumps writes it."""
    return "null" if value is None else encode_basestring(value)


def plain(values: Any) -> bool:
    """Whether every value is exactly a str, an int or None: what the templates write as json.dumps
    does (a subclass, a bool or a float goes through json.dumps instead)."""
    return all(value is None or type(value) is str or type(value) is int for value in values)


def splice(text: str, key: str, items: list[str], level: int) -> str:
    """``text`` (json.dumps output holding ``"key": []`` once, as the last key of its object, with
    only closing brackets after it) with that list's items put in; ``items`` are already encoded,
    each starting at the indentation of ``level`` (the list's own depth plus one)."""
    empty = f"{encode_basestring(key)}: []"
    head, found, tail = text.rpartition(empty)
    if not found or tail.strip("\n ]}"):
        raise ValueError(f"{key!r} is not the last key of the text")
    if not items:
        return text
    return f"{head}{encode_basestring(key)}: [\n" + ",\n".join(items) + "\n" + INDENT * (level - 1) + "]" + tail
