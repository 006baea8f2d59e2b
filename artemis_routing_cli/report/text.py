"""``--format text``: one line per finding (``file:line:col: severity RULE message``), then a summary.

Colour only on a terminal (rich decides); the same text without colour when piped.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape

from ..diagnostics import Severity
from ..linting import FileReport
from ..rules import all_rules

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def render(reports: Sequence[FileReport], console: Console, *, quiet: bool = False) -> None:
    metas = all_rules()
    lines: list[str] = []  # one print for all findings: rich's per-call cost dominates long reports
    for r in reports:
        for d in r.diagnostics:
            name = metas[d.rule].name if d.rule in metas else ""
            style = _STYLE[d.severity]
            line = (f"[bold]{escape(d.file)}:{d.line}:{d.column}[/bold]: [{style}]{d.severity.value}[/{style}] "
                    f"[dim]{d.rule}[/dim] {escape(d.message)}")
            if name:
                line += f" [dim]({name})[/dim]"
            lines.append(line)
            if d.hint:
                lines.append(f"    [dim]hint: {escape(d.hint)}[/dim]")
    if lines:
        console.print("\n".join(lines), highlight=False, soft_wrap=True)
    if quiet:
        return
    errors = sum(r.errors for r in reports)
    warnings = sum(r.warnings for r in reports)
    infos = sum(r.infos for r in reports)
    files = len(reports)
    noun = "file" if files == 1 else "files"
    if errors == warnings == infos == 0:
        console.print(f"[green]✓[/green] {files} {noun} checked: no problems", highlight=False)
    else:
        console.print(
            f"{files} {noun} checked: [bold red]{errors} error(s)[/bold red], "
            f"[yellow]{warnings} warning(s)[/yellow], [cyan]{infos} info[/cyan]",
            highlight=False,
        )
