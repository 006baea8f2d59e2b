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

from dataclasses import dataclass

_BLANK = " \t\f"
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_HEX = "0123456789abcdefABCDEF"


class PropertiesSyntaxError(ValueError):
    """The file cannot be loaded (a malformed ``\\u`` escape): the broker records a loadError and
    applies nothing from this file."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True, slots=True)
class RawEntry:
    """One ``key=value`` as Properties.load returns it, and where it was written."""

    key: str
    value: str
    line: int  # the natural line its logical line starts on (1-based)
    first_line: int = 0  # for a repeated key: where it was first written (its place in the order)


def _logical_lines(text: str) -> list[tuple[str, int, int]]:
    """(logical line with continuations joined, line, column) as LineReader.readLine returns them."""
    out: list[tuple[str, int, int]] = []
    buf: list[str] = []
    n = len(text)
    i = 0
    line = 1
    skip_blank = True
    appended = False
    backslash = False
    start_line, start_col = 1, 1
    line_start = 0
    while i < n:
        c = text[i]
        i += 1
        if skip_blank:
            if c in _BLANK:
                continue
            if not appended and c in "\r\n":
                if c == "\r" and i < n and text[i] == "\n":
                    i += 1
                line += 1
                line_start = i
                continue
            skip_blank = False
            appended = False
        if not buf and c in "#!":
            while i < n and text[i] not in "\r\n":
                i += 1
            skip_blank = True
            continue
        if c not in "\r\n":
            if not buf:
                start_line, start_col = line, i - line_start
            buf.append(c)
            backslash = (not backslash) if c == "\\" else False
            continue
        # end of a natural line
        more = i < n  # LineReader looks for more input before it skips the \n of a \r\n
        if c == "\r" and i < n and text[i] == "\n":
            i += 1
        line += 1
        line_start = i
        if not buf:
            skip_blank = True
            continue
        if backslash and more:
            buf.pop()
            skip_blank = True
            appended = True
            backslash = False
            continue
        if backslash:
            buf.pop()
        out.append(("".join(buf), start_line, start_col))
        buf = []
        backslash = False
        skip_blank = True
    if buf:
        if backslash:
            buf.pop()
        out.append(("".join(buf), start_line, start_col))
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
                raise PropertiesSyntaxError("Malformed \\uxxxx encoding.", line, column)
            out.append(chr(int(digits, 16)))
            i += 4
        else:
            out.append(_ESCAPES.get(c, c))
    return "".join(out)


def split_line(logical: str) -> tuple[str, str, int]:
    """(raw key, raw value, offset of the value) as Properties.load0 splits a logical line."""
    limit = len(logical)
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
        found[key] = RawEntry(key, value, line, first)
    return list(found.values())  # a dict keeps a key's first place when its value is replaced
