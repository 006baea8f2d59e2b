"""``--format github``: workflow commands that GitHub Actions turns into annotations."""

from __future__ import annotations

from collections.abc import Sequence

from ..diagnostics import VERDICT_TEXT, Severity
from ..linting import FileReport

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(reports: Sequence[FileReport]) -> str:
    lines = []
    for r in reports:
        for d in r.diagnostics:
            props = (f"file={_escape_property(d.file)},line={d.line},col={d.column},"
                     f"title={_escape_property(d.rule)}")
            text = f"{d.message} [{VERDICT_TEXT[d.broker]}]"
            lines.append(f"::{_LEVEL[d.severity]} {props}::{_escape_data(text)}")
    return "\n".join(lines)
