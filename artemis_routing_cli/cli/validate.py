"""``arouter validate``: the CI-grade linter for broker.xml routing sections."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import typer

from ..diagnostics import Severity
from ..errors import UsageError
from .common import colour_terminal, find_config, parse_properties, say, stderr_console, stdout_console

FORMATS = ("text", "json", "sarif", "junit", "github")


def register(app: typer.Typer) -> None:
    app.command("validate", no_args_is_help=False)(validate_command)


def validate_command(
    paths: Optional[list[str]] = typer.Argument(
        None, metavar="[BROKER.XML]...",
        help="Files to check ('-' reads stdin). Default: ./broker.xml, $ARTEMIS_INSTANCE/etc/broker.xml, "
             "else the bundled sample."),
    fmt: str = typer.Option("text", "--format", "-f", help="text, json, sarif, junit or github."),
    strict: bool = typer.Option(False, "--strict", help="Fail (exit 1) on warnings too."),
    fail_on: Optional[str] = typer.Option(None, "--fail-on",
                                          help="Lowest severity that fails the run: error, warning or info."),
    disable: Optional[list[str]] = typer.Option(None, "--disable", "-d", help="Rule id or name to skip (repeat)."),
    prop: Optional[list[str]] = typer.Option(None, "--property", "-D", metavar="NAME=VALUE",
                                             help="A ${NAME} value, like the broker's -DNAME=VALUE (repeat)."),
    settings: Optional[str] = typer.Option(None, "--settings", metavar="FILE",
                                           help="Project settings file (.arouter.toml or pyproject.toml)."),
    no_settings: bool = typer.Option(False, "--no-settings", help="Ignore .arouter.toml / [tool.arouter]."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write the report to FILE (atomically)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Text format: findings only, no summary."),
    docs_url: str = typer.Option("docs/rules.md", "--docs-url", help="Base of rule help links in SARIF."),
    list_rules: bool = typer.Option(False, "--list-rules", help="List every rule and exit."),
) -> None:
    """Check broker.xml: the broker's schema for routing sections plus semantic rules with IDs."""
    from ..linting import LintSettings, lint_path
    from ..projectconfig import ProjectConfig, find_project_config, load_project_config
    from ..rules import all_rules, resolve_rule

    if list_rules:
        _list_rules(all_rules())
        return
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}")
    project = ProjectConfig() if no_settings else (
        load_project_config(settings) if settings else find_project_config())
    disabled: set[str] = set()
    for name in [*project.disable, *(disable or [])]:
        meta = resolve_rule(name)
        if meta is None:
            raise UsageError(f"unknown rule {name!r} (see arouter validate --list-rules)",
                             file=project.path if name in project.disable else None)
        disabled.add(meta.id)
    severities = {}
    for name, sev in project.severity.items():
        meta = resolve_rule(name)
        if meta is None:
            raise UsageError(f"unknown rule {name!r} in severity settings", file=project.path)
        severities[meta.id] = sev
    threshold = _threshold(fail_on, strict, project.fail_on)
    props = {**project.properties, **parse_properties(prop)}
    lint_settings = LintSettings(properties=props, disabled=frozenset(disabled), severities=severities)

    targets = list(paths) if paths else [find_config(None)]
    stdin_data = sys.stdin.buffer.read() if "-" in targets else None
    reports = [lint_path(p, lint_settings, stdin_bytes=stdin_data) for p in targets]

    fatal = [r for r in reports if r.fatal is not None]
    failing = any(d.severity.rank >= threshold.rank for r in reports for d in r.diagnostics if r.fatal is None)
    code = 2 if fatal else (1 if failing else 0)
    if fatal:
        err = stderr_console()
        for r in fatal:
            say(err, f"arouter: {r.fatal}")
    _emit(fmt, reports, code, threshold, output, quiet, docs_url)
    raise typer.Exit(code)


def _threshold(fail_on: str | None, strict: bool, project: Severity | None) -> Severity:
    if fail_on is not None:
        try:
            return Severity(fail_on.lower())
        except ValueError:
            raise UsageError(f"--fail-on {fail_on!r}: choose error, warning or info") from None
    if strict:
        return Severity.WARNING
    return project or Severity.ERROR


def _emit(fmt: str, reports: list, code: int, threshold: Severity, output: str | None, quiet: bool,
          docs_url: str) -> None:
    if fmt == "text":
        from ..report import text as text_report

        if output:
            with open(output + ".tmp", "w", encoding="utf-8") as fh:
                text_report.render_plain(reports, fh, quiet=quiet)
            os.replace(output + ".tmp", output)
        elif colour_terminal():
            text_report.render(reports, stdout_console(), quiet=quiet)
        else:  # piped: the same lines without rich (and without its import)
            text_report.render_plain(reports, sys.stdout, quiet=quiet)
        return
    text = _render(fmt, reports, code, threshold, docs_url)
    if output:
        tmp = Path(output + ".tmp")
        tmp.write_text(text + "\n", encoding="utf-8")
        tmp.replace(output)
    elif text:
        sys.stdout.write(text + "\n")


def _render(fmt: str, reports: list, code: int, threshold: Severity, docs_url: str) -> str:
    """The report in a machine format (only that format's module is imported)."""
    if fmt == "json":
        from ..report import jsonfmt

        return jsonfmt.render(reports, code)
    if fmt == "sarif":
        from ..report import sarif

        return sarif.render(reports, docs_url=docs_url)
    if fmt == "junit":
        from ..report import junit

        return junit.render(reports, fail_on=threshold)
    from ..report import github

    return github.render(reports)


def _list_rules(metas: dict) -> None:
    from rich.table import Table

    table = Table("id", "name", "severity", "category", "summary", box=None)
    for meta in metas.values():
        table.add_row(meta.id, meta.name, meta.severity.value, meta.category, meta.summary)
    stdout_console().print(table)
