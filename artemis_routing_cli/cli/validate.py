"""``arouter validate``: the CI-grade linter for broker.xml routing sections.

The typer command is built from :data:`.validate_options.OPTIONS`, the table the quick reader of the
console entry point uses too: one definition of each option, its help text included.
"""

from __future__ import annotations

import inspect
from typing import Any, Optional

import typer

from .common import stdout_console
from .validate_options import OPTIONS, PATHS, Option, ValidateOptions
from .validate_run import run_validate

_TYPES: dict[str, Any] = {"flag": bool, "value": Optional[str], "repeat": Optional[list[str]],
                         "int": Optional[int]}


def register(app: typer.Typer) -> None:
    app.command("validate", no_args_is_help=False)(validate_command)


def _parameter(opt: Option) -> inspect.Parameter:
    annotation = str if opt.kind == "value" and opt.default is not None else _TYPES[opt.kind]
    info = typer.Option(opt.default, *opt.names, help=opt.help, metavar=opt.metavar, hidden=opt.hidden)
    return inspect.Parameter(opt.field, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=annotation)


def _signature() -> inspect.Signature:
    paths = inspect.Parameter(PATHS.field, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Optional[list[str]],
                              default=typer.Argument(None, metavar=PATHS.metavar, help=PATHS.help))
    return inspect.Signature([paths, *(_parameter(o) for o in OPTIONS)], return_annotation=None)


def validate_command(**given: Any) -> None:
    """Check broker.xml: the broker's schema for routing sections plus semantic rules with IDs."""
    if given.pop("list_rules", False):
        from ..rules import all_rules

        _list_rules(all_rules())
        return
    fields = dict(given)
    for name in (PATHS.field, *_REPEATED):  # typer gives lists (or None): the options hold tuples
        fields[name] = tuple(given.get(name) or ())
    raise typer.Exit(run_validate(ValidateOptions(**fields)))


_REPEATED = {o.field for o in OPTIONS if o.kind == "repeat"}
validate_command.__signature__ = _signature()  # type: ignore[attr-defined]
validate_command.__annotations__ = {p.name: p.annotation for p in _signature().parameters.values()}


def _list_rules(metas: dict) -> None:
    from rich.table import Table

    table = Table("id", "name", "severity", "category", "summary", box=None)
    for meta in metas.values():
        table.add_row(meta.id, meta.name, meta.severity.value, meta.category, meta.summary)
    stdout_console().print(table)
