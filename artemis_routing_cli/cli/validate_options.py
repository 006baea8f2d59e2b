"""The options of ``arouter validate``, and a quick reading of its command line without typer.

``arouter validate`` runs in pre-commit hooks and CI steps, often once per commit: its start-up is
most of its time on a typical broker.xml. Importing typer (and the click it carries) costs about as
much as the whole check, so the console entry point first tries :func:`parse_validate_args`. It
understands the documented options in the forms people write them (``--format json``,
``--format=json``, ``-f json``, ``-fjson``, ``-Dname=value``, repeated ``-d``/``-D``, ``--``) and
gives up - returns ``None`` - on anything else (``--help``, ``--list-rules``, an unknown option,
a missing value, a value that looks like an option, combined short flags). Then typer parses the
line as always, with its own help and error messages. Both paths build the same
:class:`ValidateOptions`; a test holds them equal over a table of command lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..report import FORMATS

__all__ = ["FORMATS", "ValidateOptions", "parse_validate_args"]
DEFAULT_DOCS_URL = "docs/rules.md"


@dataclass(frozen=True)
class ValidateOptions:
    paths: tuple[str, ...] = ()
    fmt: str = "text"
    strict: bool = False
    fail_on: str | None = None
    disable: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()
    settings: str | None = None
    no_settings: bool = False
    output: str | None = None
    quiet: bool = False
    docs_url: str = DEFAULT_DOCS_URL
    broker_properties: tuple[str, ...] = ()  # --properties
    cr: str | None = None
    ordinal: int | None = None


# option spelling -> ValidateOptions field; keep in step with cli/validate.py (a test compares them)
_VALUE_OPTIONS = {
    "--format": "fmt", "-f": "fmt",
    "--fail-on": "fail_on",
    "--disable": "disable", "-d": "disable",
    "--property": "properties", "-D": "properties",
    "--settings": "settings",
    "--output": "output", "-o": "output",
    "--docs-url": "docs_url",
    "--properties": "broker_properties",
    "--cr": "cr",
    "--ordinal": "ordinal",
}
_FLAG_OPTIONS = {"--strict": "strict", "--no-settings": "no_settings", "--quiet": "quiet", "-q": "quiet"}
_REPEATED = frozenset({"disable", "properties", "broker_properties"})


def parse_validate_args(args: list[str]) -> ValidateOptions | None:
    """``args`` (what follows ``validate``) as options, or ``None`` to let typer parse them."""
    values: dict[str, object] = {}
    repeated: dict[str, list[str]] = {"disable": [], "properties": [], "broker_properties": []}
    paths: list[str] = []
    only_paths = False
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if only_paths or arg == "-" or not arg.startswith("-"):
            paths.append(arg)
            continue
        if arg == "--":
            only_paths = True
            continue
        if arg.startswith("--"):
            name, eq, attached = arg.partition("=")
            has_attached = bool(eq)
        else:  # -f json, -fjson
            name, attached = arg[:2], arg[2:]
            has_attached = bool(attached)
        if name in _FLAG_OPTIONS and not has_attached:
            values[_FLAG_OPTIONS[name]] = True
            continue
        field = _VALUE_OPTIONS.get(name)
        if field is None:
            return None  # --help, --list-rules, unknown or combined options: typer decides
        if has_attached:
            value = attached
        elif i < len(args) and not args[i].startswith("-"):
            value = args[i]
            i += 1
        else:
            return None  # no value, or one that looks like an option: typer says what is wrong
        if field in _REPEATED:
            repeated[field].append(value)
        elif field == "ordinal":
            if not (value.isascii() and value.isdigit()):
                return None  # typer says what is wrong
            values[field] = int(value)
        else:
            values[field] = value
    return ValidateOptions(paths=tuple(paths), disable=tuple(repeated["disable"]),
                           properties=tuple(repeated["properties"]),
                           broker_properties=tuple(repeated["broker_properties"]), **values)  # type: ignore[arg-type]
