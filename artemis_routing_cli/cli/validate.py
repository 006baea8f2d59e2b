"""``arouter validate``: the CI-grade linter for broker.xml routing sections."""

from __future__ import annotations

from typing import Optional

import typer

from .common import CR_HELP, ORDINAL_HELP, PROPERTIES_HELP, stdout_console
from .validate_options import DEFAULT_DOCS_URL, ValidateOptions
from .validate_run import run_validate


def register(app: typer.Typer) -> None:
    app.command("validate", no_args_is_help=False)(validate_command)


def validate_command(
    paths: Optional[list[str]] = typer.Argument(
        None, metavar="[BROKER.XML]...",
        help="Files to check ('-' reads stdin; a .yaml file is an ActiveMQArtemis CR).\n"
             "Default: ./broker.xml, $ARTEMIS_INSTANCE/etc/broker.xml, "
             "else the bundled sample."),
    fmt: str = typer.Option("text", "--format", "-f", help="text, json, sarif, junit, github or broker-status."),
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
    docs_url: str = typer.Option(DEFAULT_DOCS_URL, "--docs-url", help="Base of rule help links in SARIF."),
    list_rules: bool = typer.Option(False, "--list-rules", help="List every rule and exit."),
    broker_properties: Optional[list[str]] = typer.Option(None, "--properties", metavar="PATH[,PATH...]",
                                                          help=PROPERTIES_HELP),
    cr: Optional[str] = typer.Option(None, "--cr", metavar="CR.yaml", help=CR_HELP),
    ordinal: Optional[int] = typer.Option(None, "--ordinal", metavar="N", help=ORDINAL_HELP),
) -> None:
    """Check broker.xml: the broker's schema for routing sections plus semantic rules with IDs."""
    if list_rules:
        from ..rules import all_rules

        _list_rules(all_rules())
        return
    opts = ValidateOptions(paths=tuple(paths or ()), fmt=fmt, strict=strict, fail_on=fail_on,
                           disable=tuple(disable or ()), properties=tuple(prop or ()), settings=settings,
                           no_settings=no_settings, output=output, quiet=quiet, docs_url=docs_url,
                           broker_properties=tuple(broker_properties or ()), cr=cr, ordinal=ordinal)
    raise typer.Exit(run_validate(opts))


def _list_rules(metas: dict) -> None:
    from rich.table import Table

    table = Table("id", "name", "severity", "category", "summary", box=None)
    for meta in metas.values():
        table.add_row(meta.id, meta.name, meta.severity.value, meta.category, meta.summary)
    stdout_console().print(table)
