"""Source positions (file, line, column) for elements of a loaded broker.xml.

lxml records the line of each element but not its column; the column is recovered from the
text of that line (the first ``<tag`` there), which is what editors and CI annotations want.
Elements that came in through XInclude are remembered with the file they came from.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree


@dataclass(frozen=True, slots=True)
class Pos:
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class Locator:
    """Maps elements of one loaded document (XIncluded files included) to positions."""

    def __init__(self, main_file: str, main_text: str) -> None:
        self.main_file = main_file
        self._lines: dict[str, list[str]] = {main_file: main_text.splitlines()}
        # lxml keeps one proxy per node while a Python reference exists, so holding the
        # elements here keeps identity lookups valid.
        self._origin: dict[etree._Element, str] = {}

    def add_file(self, display: str, text: str) -> None:
        self._lines[display] = text.splitlines()

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

    def line_text(self, file: str, line: int) -> str:
        lines = self._lines.get(file, [])
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def locate(self, el: etree._Element) -> Pos:
        file = self._origin.get(el, self.main_file) if self._origin else self.main_file
        line = el.sourceline or 1
        lines = self._lines.get(file)
        text = lines[line - 1] if lines is not None and 0 < line <= len(lines) else ""
        column = 1
        if text:
            raw_tag = el.tag
            is_element = isinstance(raw_tag, str)
            tag = raw_tag.rpartition("}")[2] if is_element else ""
            idx = text.find("<" + tag) if tag else -1
            if idx < 0 and not is_element:
                idx = text.find("<!--")
            if idx < 0:
                idx = len(text) - len(text.lstrip())
            column = idx + 1
        return Pos(file, line, column)
