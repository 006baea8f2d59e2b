"""``--format text``: one line per finding (``file:line:col: severity RULE message (name) [broker: verdict]``),
then a summary.

Colour on a terminal (through rich); the same text, written as it is, when piped or saved. Text
from the file (names, paths, messages quoting values) is never read as rich markup or emoji codes:
lines are assembled from (text, style) pieces.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from ..diagnostics import DEPLOYS, REFUSES, SKIPS, VERDICT_TEXT, Severity
from ..linting import FileReport
from ..rules import all_rules

if TYPE_CHECKING:
    from rich.console import Console

    from .coverage import Coverage

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}

_VERDICT_STYLE = {REFUSES: "bold red", SKIPS: "yellow", DEPLOYS: "dim"}

Piece = tuple[str, str]  # (text, rich style; "" for none)


def finding_lines(reports: Sequence[FileReport]) -> list[list[Piece]]:
    metas = all_rules()
    lines: list[list[Piece]] = []
    for r in reports:
        for d in r.diagnostics:
            name = metas[d.rule].name if d.rule in metas else ""
            line: list[Piece] = [(f"{d.file}:{d.line}:{d.column}", "bold"), (": ", ""),
                                 (d.severity.value, _STYLE[d.severity]), (" ", ""), (d.rule, "dim"),
                                 (f" {d.message}", "")]
            if name:
                line += [(" ", ""), (f"({name})", "dim")]
            line += [(" ", ""), (f"[{VERDICT_TEXT[d.broker]}]", _VERDICT_STYLE[d.broker])]
            lines.append(line)
            if d.hint:
                lines.append([(f"    hint: {d.hint}", "dim")])
    return lines


def summary_line(reports: Sequence[FileReport]) -> list[Piece]:
    errors = sum(r.errors for r in reports)
    warnings = sum(r.warnings for r in reports)
    infos = sum(r.infos for r in reports)
    files = len(reports)
    noun = "file" if files == 1 else "files"
    if errors == warnings == infos == 0:
        return [("✓", "green"), (f" {files} {noun} checked: no problems", "")]
    return [(f"{files} {noun} checked: ", ""), (f"{errors} error(s)", "bold red"), (", ", ""),
            (f"{warnings} warning(s)", "yellow"), (", ", ""), (f"{infos} info", "cyan")]


def render(reports: Sequence[FileReport], console: Console, *, quiet: bool = False,
           coverage: Coverage | None = None) -> None:
    """On a rich console (colour when it is a terminal)."""
    from rich.text import Text

    lines = [Text.assemble(*line) for line in finding_lines(reports)]
    if lines:  # one print for all findings: rich's per-call cost dominates long reports
        console.print(Text("\n").join(lines), soft_wrap=True)
    if not quiet:
        console.print(Text.assemble(*summary_line(reports)), soft_wrap=True)
        if coverage is not None:
            console.print(Text(coverage.text(), style="dim"), soft_wrap=True)


def plain_finding_lines(reports: Sequence[FileReport]) -> list[str]:
    """``finding_lines`` joined into plain text, made without the pieces (a long report's many lines)."""
    names = {rule: meta.name for rule, meta in all_rules().items()}
    lines: list[str] = []
    append = lines.append
    for r in reports:
        for d in r.diagnostics:
            name = names.get(d.rule, "")
            named = f" ({name})" if name else ""
            # (the severity's text as .value reads it: no enum hash or property call per finding)
            append(f"{d.file}:{d.line}:{d.column}: {d.severity._value_} {d.rule} {d.message}{named} "
                   f"[{VERDICT_TEXT[d.broker]}]")
            if d.hint:
                append(f"    hint: {d.hint}")
    return lines


def render_plain(reports: Sequence[FileReport], out: TextIO, *, quiet: bool = False,
                 coverage: Coverage | None = None) -> None:
    """The same lines without colour, written as they are (for pipes and files)."""
    lines = plain_finding_lines(reports)
    if not quiet:
        lines.append("".join(text for text, _ in summary_line(reports)))
        if coverage is not None:
            lines.append(coverage.text())
    if lines:
        out.write("\n".join(lines) + "\n")
