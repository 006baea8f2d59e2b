"""``java.util.Properties.load`` exactly, with the line each entry starts on (sans-IO: text in).

The broker reads a ``.properties`` source with ``Properties.load(InputStream)``: the bytes are
ISO-8859-1 (``\\uXXXX`` escapes for anything else), lines end at ``\\n``, ``\\r`` or ``\\r\\n``.
A logical line starts at its first character that is not a space, tab or form feed; one starting
with ``#`` or ``!`` is a comment. A line ending in an odd number of backslashes goes on in the next
natural line, whose leading blanks are skipped (and a continued line can be empty, which makes the
next one a new logical line that may even be a comment). The key ends at the first unescaped
``=``, ``:`` or blank; then blanks, at most one ``=``/``:`` and more blanks are skipped. Escapes:
``\\t \\n \\r \\f``, ``\\uXXXX`` (anything shorter or not hex: ``IllegalArgumentException:
Malformed \\uxxxx encoding.``, which rejects the whole file), and a backslash before any other
character is dropped (``^\\d+`` reads ``^d+``). At end of input a dangling backslash is dropped.

The broker's ``InsertionOrderedProperties`` is a ``LinkedHashMap``: a repeated key keeps the place
of its first line and the value of its last one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_BLANK = " \t\f"
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_HEX = "0123456789abcdefABCDEF"


class PropertiesSyntaxError(ValueError):
    """The file cannot be loaded (a malformed ``\\u`` escape): the broker records a loadError and
    applies nothing from this file."""

    def __init__(self, message: str, line: int, column: int, java: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.java = java  # the exception's toString(), the status' loadError, where arouter knows it


@dataclass(frozen=True, slots=True)
class RawEntry:
    """One ``key=value`` as Properties.load returns it, and where it was written."""

    key: str
    value: str
    line: int  # the natural line its logical line starts on (1-based)
    first_line: int = 0  # for a repeated key: where it was first written (its place in the order)
    # the value as written when Properties.load dropped a backslash before an ordinary character in it
    # (``^\\d+`` read as ``^d+``); None otherwise
    written: str | None = None


_LINE_END = re.compile(r"(\r\n|\r|\n)")
_KEY_END = re.compile(r"[=: \t\f\\]")


def _logical_lines(text: str) -> list[tuple[str, int, int]]:
    """(logical line with continuations joined, line, column) as LineReader.readLine returns them.

    Natural line by natural line: a continued logical line whose text so far is empty behaves as a
    fresh one (blank lines skipped, ``#``/``!`` starts a comment); a blank continuation line ends a
    non-empty one; the parity of the trailing backslashes of the line's own text decides whether it
    goes on (LineReader resets its flag when it drops the backslash). A backslash that ends the input,
    or is followed only by one ``\n`` or ``\r``, ends the line there, even an empty one (readLine
    looks for more input after the line end's first character)."""
    out: list[tuple[str, int, int]] = []
    buf: list[str] = []
    start = (1, 1)
    parts = _LINE_END.split(text)
    pieces, ends = parts[0::2], parts[1::2]
    last = len(pieces) - 1
    for index, raw in enumerate(pieces):
        body = raw.lstrip(_BLANK)
        if not buf:
            if not body or body[0] in "#!":
                continue
            start = (index + 1, len(raw) - len(body) + 1)
        elif not body:
            out.append(("".join(buf), *start))
            buf = []
            continue
        trailing = len(body) - len(body.rstrip("\\"))
        if trailing % 2:
            buf.append(body[:-1])
            at_end = index == last or (index == last - 1 and not pieces[last] and len(ends[index]) == 1)
            if at_end:
                out.append(("".join(buf), *start))
                buf = []
            elif not "".join(buf):
                buf = []
            continue
        buf.append(body)
        out.append(("".join(buf), *start))
        buf = []
    return out


def _convert(raw: str, line: int, column: int) -> str:
    """Properties.loadConvert: the escapes."""
    if "\\" not in raw:
        return raw
    out: list[str] = []
    i = 0
    n = len(raw)
    while i < n:
        c = raw[i]
        i += 1
        if c != "\\":
            out.append(c)
            continue
        c = raw[i]  # readLine never leaves an unescaped backslash at the end
        i += 1
        if c == "u":
            digits = raw[i:i + 4]
            if len(digits) < 4 or any(d not in _HEX for d in digits):
                raise PropertiesSyntaxError("Malformed \\uxxxx encoding.", line, column,
                                            "java.lang.IllegalArgumentException: Malformed \\uxxxx encoding.")
            out.append(chr(int(digits, 16)))
            i += 4
        else:
            out.append(_ESCAPES.get(c, c))
    return "".join(out)


# After a backslash, what Properties.load reads as meant: its escapes, and the characters one escapes
# to keep them out of the syntax (separators, comment marks, blanks, the backslash itself).
_MEANT_ESCAPES = frozenset("tnrfu\\=:#! \t\f")


def drops_backslash(raw: str) -> bool:
    """Whether Properties.load drops a backslash of ``raw`` that stands before an ordinary character
    (``\\d`` reads ``d``): silent in the broker, and never what a regex author meant."""
    i = raw.find("\\")
    while i != -1 and i + 1 < len(raw):
        if raw[i + 1] not in _MEANT_ESCAPES:
            return True
        i = raw.find("\\", i + 2)
    return False


def split_line(logical: str) -> tuple[str, str, int]:
    """(raw key, raw value, offset of the value) as Properties.load0 splits a logical line."""
    limit = len(logical)
    m = _KEY_END.search(logical)
    if m is None:
        return logical, "", limit
    if m.group() != "\\":  # no escape before the separator: the common case, without a loop
        key_len = m.start()
        sep = m.group()
        value_start = key_len + 1
        rest = logical[value_start:].lstrip(_BLANK)
        if sep in _BLANK and rest[:1] in ("=", ":"):
            rest = rest[1:].lstrip(_BLANK)
        return logical[:key_len], rest, limit - len(rest)
    key_len = 0
    value_start = limit
    has_sep = False
    backslash = False
    while key_len < limit:
        c = logical[key_len]
        if c in "=:" and not backslash:
            value_start = key_len + 1
            has_sep = True
            break
        if c in _BLANK and not backslash:
            value_start = key_len + 1
            break
        backslash = (not backslash) if c == "\\" else False
        key_len += 1
    while value_start < limit:
        c = logical[value_start]
        if c not in _BLANK:
            if not has_sep and c in "=:":
                has_sep = True
            else:
                break
        value_start += 1
    return logical[:key_len], logical[value_start:], value_start


def load_properties(text: str) -> list[RawEntry]:
    """Properties.load into an insertion-ordered map: first place, last value of each key."""
    found: dict[str, RawEntry] = {}
    for logical, line, column in _logical_lines(text):
        raw_key, raw_value, _ = split_line(logical)
        key = _convert(raw_key, line, column)
        value = _convert(raw_value, line, column)
        before = found.get(key)
        first = before.first_line if before is not None else line
        written = raw_value if "\\" in raw_value and drops_backslash(raw_value) else None
        found[key] = RawEntry(key, value, line, first, written)
    return list(found.values())  # a dict keeps a key's first place when its value is replaced
