"""Source positions (file, line, column) for elements of a loaded broker.xml.

lxml records the line of each element but not its column; the column is recovered from the
text of that line (the first ``<tag`` there), which is what editors and CI annotations want.
Elements that came in through XInclude are remembered with the file they came from.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import FrozenInstanceError
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the routing engine (and Spark's executors) use Pos without lxml
    from lxml import etree


def _frozen_set(name: str) -> Callable[[Pos, object], None]:
    def refuse(self: Pos, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    return refuse


def _frozen_del(name: str) -> Callable[[Pos], None]:
    def refuse(self: Pos) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
    return refuse


class Pos:
    """A place in a file: ``file``, ``line`` and ``column`` (1-based); immutable, compared by value.

    ``Pos(file, line, column)`` is a plain position. The ones a :class:`Locator` hands out are
    worked out on first use: a large broker.xml has tens of thousands of elements whose position
    is never reported, and finding a column means searching the line's text. ``file``, ``line`` and
    ``column`` cannot be set or deleted (FrozenInstanceError, as on a frozen dataclass); the slots
    behind them are set with plain assignments, which a class-wide ``__setattr__`` would slow down.
    """

    __slots__ = ("_file", "_line", "_column", "_lazy")
    __match_args__ = ("file", "line", "column")

    def __init__(self, file: str, line: int, column: int) -> None:
        self._file = file
        self._line = line
        self._column = column
        self._lazy: tuple[Locator, etree._Element] | None = None

    def _resolve(self) -> None:
        locator, el = self._lazy  # type: ignore[misc]
        self._file, self._line, self._column = locator._place(el)
        self._lazy = None

    def _get_file(self) -> str:
        if self._lazy is not None:
            self._resolve()
        return self._file

    def _get_line(self) -> int:
        if self._lazy is not None:
            self._resolve()
        return self._line

    def _get_column(self) -> int:
        if self._lazy is not None:
            self._resolve()
        return self._column

    file = property(_get_file, _frozen_set("file"), _frozen_del("file"))
    line = property(_get_line, _frozen_set("line"), _frozen_del("line"))
    column = property(_get_column, _frozen_set("column"), _frozen_del("column"))

    def _key(self) -> tuple[str, int, int]:
        if self._lazy is not None:
            self._resolve()
        return (self._file, self._line, self._column)

    def place(self) -> tuple[str, int, int]:
        """``(file, line, column)`` in one call (a finding reads all three)."""
        if self._lazy is not None:
            self._resolve()
        return (self._file, self._line, self._column)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._key() == other._key()  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        file, line, column = self._key()
        return f"Pos(file={file!r}, line={line!r}, column={column!r})"

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def __reduce__(self) -> tuple[type[Pos], tuple[str, int, int]]:
        return (Pos, self._key())  # copies and pickles hold the place itself, not the element

    def __copy__(self) -> Pos:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Pos:
        file, line, column = self._key()
        return Pos(file, line, column)


_new = object.__new__


def _lines(text: str) -> list[str]:
    """The lines libxml2 numbers: it ends a line at LF only. (``splitlines`` also ends one at a lone
    CR, U+0085, U+2028 and U+2029, which XML text may hold: every later line would be off.) A line
    of a CRLF file keeps its CR; only columns are looked for in it."""
    return text.split("\n")


class Locator:
    """Maps elements of one loaded document (XIncluded files included) to positions."""

    def __init__(self, main_file: str, main_text: str) -> None:
        self.main_file = main_file
        # the main file's text when the tree says exactly what it does (no include, no second
        # substitution pass, no CDATA section): set by the loader
        self.verbatim_text: str | None = None
        self._texts: dict[str, str] = {main_file: main_text}  # split into lines when a position is first asked
        self._lines: dict[str, list[str]] = {}
        # lxml keeps one proxy per node while a Python reference exists, so holding the
        # elements here keeps identity lookups valid.
        self._origin: dict[etree._Element, str] = {}
        self._tag_starts: dict[tuple[str, int, str], list[int]] = {}
        self._ranks: dict[etree._Element, int] | None = None
        self.text_includes: list[tuple[str, str]] = []  # (file, text) of each <xi:include parse="text">

    def add_file(self, display: str, text: str) -> None:
        self._texts[display] = text
        self._lines.pop(display, None)

    def mark(self, root: etree._Element, display: str) -> None:
        """Record that ``root`` and everything below it came from file ``display``."""
        for el in root.iter():
            self._origin.setdefault(el, display)

    @property
    def has_includes(self) -> bool:
        """Whether some element came from another file (through XInclude)."""
        return bool(self._origin)

    def file_of(self, el: etree._Element) -> str:
        return self._origin.get(el, self.main_file) if self._origin else self.main_file

    def text_of(self, file: str) -> str | None:
        """The text ``file``'s elements were parsed from (the main file's after substitution)."""
        return self._texts.get(file)

    def _lines_of(self, file: str) -> list[str] | None:
        lines = self._lines.get(file)
        if lines is None:
            text = self._texts.get(file)
            if text is None:
                return None
            lines = self._lines[file] = _lines(text)
        return lines

    def line_text(self, file: str, line: int) -> str:
        lines = self._lines_of(file) or []
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def locate(self, el: etree._Element) -> Pos:
        """Where ``el`` starts (worked out when the position is first read)."""
        pos = _new(Pos)  # a large file has tens of thousands: one slot set, no other call
        pos._lazy = (self, el)
        return pos

    def _place(self, el: etree._Element) -> tuple[str, int, int]:
        file = self._origin.get(el, self.main_file) if self._origin else self.main_file
        line = el.sourceline or 1
        lines = self._lines.get(file)
        if lines is None:
            lines = self._lines_of(file)
        text = lines[line - 1] if lines is not None and 0 < line <= len(lines) else ""
        column = 1
        if text:
            raw_tag = el.tag
            idx = -1
            if isinstance(raw_tag, str):
                starts = self._starts(file, line, text, raw_tag.rpartition("}")[2])
                if len(starts) == 1:  # the only one on its line: no rank needed
                    idx = starts[0]
                elif starts:
                    rank = self._rank(el, file, line)
                    idx = starts[rank] if rank < len(starts) else starts[0]
            else:
                idx = text.find("<!--")
            if idx < 0:
                idx = len(text) - len(text.lstrip())
            column = idx + 1
        return file, line, column

    def _starts(self, file: str, line: int, text: str, name: str) -> list[int]:
        """Where each start tag called ``name`` (any prefix) on one line begins (each line and name read once)."""
        key = (file, line, name)
        found = self._tag_starts.get(key)
        if found is None:
            pattern = _START_TAG.get(name)
            if pattern is None:
                if len(_START_TAG) >= 1024:  # bounded: a hostile file may hold any number of names
                    _START_TAG.clear()
                # a name the pattern cannot spell (``é…``, ``a·b``) is never found: the tag's indentation is used
                pattern = _START_TAG[name] = re.compile(_START_TAG_OF.format(re.escape(name)) if _NAME.fullmatch(name)
                                                        else "(?!)")
            found = self._tag_starts[key] = start_tags(text, name, pattern)
        return found

    def _rank(self, el: etree._Element, file: str, line: int) -> int:
        """How many elements of ``el``'s tag start on its line (of its file) before it, in document order.

        Worked out for the whole tree at once the first time a line holds more than one start tag:
        one pass, however many positions are asked for."""
        ranks = self._ranks
        if ranks is None:
            from lxml import etree

            ranks = self._ranks = {}
            counts: dict[tuple[str, int, str], int] = {}
            origin, main = self._origin, self.main_file
            for node in el.getroottree().getroot().iter(etree.Element):
                k = (origin.get(node, main) if origin else main, node.sourceline or 1, node.tag)
                n = counts.get(k, 0)
                if n:
                    ranks[node] = n
                counts[k] = n + 1
        return ranks.get(el, 0)


# ``<tag`` or ``<prefix:tag`` for one local name (``<divert`` is not ``<diverts``); compiled once per name.
_START_TAG_OF = r"<(?:[A-Za-z_][\w.-]*:)?{}(?=[\s/>]|$)"
_START_TAG: dict[str, re.Pattern[str]] = {}
_NAME = re.compile(r"[A-Za-z_][\w.-]*")


def start_tags(text: str, name: str, pattern: re.Pattern[str]) -> list[int]:
    """``[m.start() for m in pattern.finditer(text)]`` for ``pattern``, the start-tag pattern of
    ``name`` (``_START_TAG``), tried only where ``name`` occurs right after ``<`` or after a
    ``prefix:`` instead of at every ``<`` of the line. A match starts at a ``<`` and holds no other,
    so matches never overlap; each ``<`` is tried once and the line read a bounded number of times."""
    found: list[int] = []
    if not name:
        return found
    nearest = -1  # the last '<' before ``scanned``
    scanned = 0
    tried = -1
    at = text.find(name, 1)
    while at >= 0:
        before = text[at - 1]
        start = -1
        if before == "<":
            start = at - 1
        elif before == ":":  # ``<prefix:name``: the prefix holds no '<', so its '<' is the nearest one
            lt = text.rfind("<", scanned, at - 1)
            if lt >= 0:
                nearest = lt
            scanned = at - 1
            start = nearest
        if start > tried:
            tried = start
            if pattern.match(text, start) is not None:
                found.append(start)
        at = text.find(name, at + 1)
    return found
