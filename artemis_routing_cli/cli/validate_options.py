"""The options of ``arouter validate``: one table that builds both typer's command and a quick reader.

``arouter validate`` runs in pre-commit hooks and CI steps, often once per commit: its start-up is
most of its time on a typical broker.xml, and importing typer (with click) costs about as much as the
whole check. So :data:`OPTIONS` declares every option once - spellings, kind, default, metavar and help
text - and two readers are made from it:

* :func:`parse_validate_args` (no typer) reads the forms people write (``--format json``,
  ``--format=json``, ``-f json``, ``-fjson``, ``-Dname=value``, repeated ``-d``/``-D``, ``--``) and gives
  up - returns ``None`` - on anything else (``--help``, ``--list-rules``, an unknown option, a missing
  value, a value that looks like an option, combined short flags);
* ``cli/validate.py`` builds the typer command's signature from the same table (help text included),
  and typer reads every line the quick reader gave up on, with its own help and error messages.

Both build the same :class:`ValidateOptions`; a test holds them equal over a table of command lines.
"""

from __future__ import annotations

from ..records import record
from ..report import FORMATS

__all__ = ["FORMATS", "OPTIONS", "PATHS", "Option", "ValidateOptions", "parse_validate_args"]
DEFAULT_DOCS_URL = "docs/rules.md"


@record(frozen=True)
class ValidateOptions:
    paths: tuple[str, ...] = ()
    fmt: str = "text"
    strict: bool = False
    fail_on: str | None = None
    disable: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()
    old_properties: tuple[str, ...] = ()  # --property, the old spelling of -D/--define
    settings: str | None = None
    no_settings: bool = False
    output: str | None = None
    quiet: bool = False
    docs_url: str = DEFAULT_DOCS_URL
    show_values: bool = False
    broker_properties: tuple[str, ...] = ()  # --properties
    cr: str | None = None
    ordinal: int | None = None
    broker_home: str | None = None
    no_broker_home: bool = False
    replicas: int | None = None


@record(frozen=True)
class Option:
    """One option of ``arouter validate``."""

    field: str  # the ValidateOptions field (or, when not fast, the typer parameter)
    names: tuple[str, ...]  # spellings, long first
    kind: str  # "flag", "value" (the last one wins), "int" (a value, digits) or "repeat" (a tuple of every value)
    help: str
    default: object = None
    metavar: str | None = None
    fast: bool = True  # False: only typer handles it (the quick reader steps aside)
    hidden: bool = False  # read, not shown in --help (an old spelling)


@record(frozen=True)
class Positional:
    field: str
    metavar: str
    help: str


PATHS = Positional("paths", "[BROKER.XML]...",
                   "Files to check ('-' reads stdin; a .yaml file is an ActiveMQArtemis CR). Default: ./broker.xml, "
                   "$ARTEMIS_INSTANCE/etc/broker.xml, else the bundled sample.")
SHOW_VALUES_HELP = ("Show values that came from the environment, -D/properties and included files "
                    "(shown as ${NAME} or <from FILE> by default; passwords never are).")
PROPERTIES_HELP = ("Broker properties applied after broker.xml, as `artemis run --properties`: files, and "
                   "directories ending in '/' (their *.properties and *.json, sorted); comma list, repeatable. "
                   "Default: broker.properties beside broker.xml.")
CR_HELP = "An ActiveMQArtemis custom resource: its spec.brokerProperties as the operator gives them to a broker."
BROKER_HOME_HELP = ("Your Artemis installation (the folder with bin/artemis and lib/; default $ARTEMIS_HOME when it "
                    "holds one): its version is the --broker-version; validate checks the whole file against its "
                    "schema and runs its own loader in a JVM.")
NO_BROKER_HOME_HELP = "Ignore $ARTEMIS_HOME: judge with arouter's own model only."
REPLICAS_HELP = ("The fleet's pod count: R pods run this broker.xml, each with STATEFUL_SET_ORDINAL = its "
                 "ordinal (with a CR: instead of deploymentPlan.size); the fleet rules AR330-AR333 look at them all.")
ORDINAL_HELP = "With --cr: the broker (pod ordinal) to view: its broker-N. lines and STATEFUL_SET_ORDINAL (default 0)."

# Help texts are shown through rich by typer: no square brackets (they would be read as markup).
OPTIONS: tuple[Option, ...] = (
    Option("fmt", ("--format", "-f"), "value", "text, json, sarif, junit, github or broker-status.", default="text"),
    Option("strict", ("--strict",), "flag", "Fail (exit 1) on warnings too.", default=False),
    Option("fail_on", ("--fail-on",), "value", "Lowest severity that fails the run: error, warning or info."),
    Option("disable", ("--disable", "-d"), "repeat", "Rule id or name to skip (repeat)."),
    Option("properties", ("--define", "-D"), "repeat", "A ${NAME} value, like the broker's -DNAME=VALUE (repeat).",
           metavar="NAME=VALUE"),
    # the old spelling of --define (a message property in simulate and diff): still read, with a note
    Option("old_properties", ("--property",), "repeat", "Old spelling of --define.", metavar="NAME=VALUE",
           hidden=True),
    Option("settings", ("--settings",), "value", "Project settings file (.arouter.toml or pyproject.toml).",
           metavar="FILE"),
    Option("no_settings", ("--no-settings",), "flag",
           "Ignore the project settings (.arouter.toml, the tool.arouter table of pyproject.toml).", default=False),
    Option("output", ("--output", "-o"), "value", "Write the report to FILE (atomically)."),
    Option("quiet", ("--quiet", "-q"), "flag", "Text format: findings only, no summary.", default=False),
    Option("docs_url", ("--docs-url",), "value", "Base of rule help links in SARIF.", default=DEFAULT_DOCS_URL),
    Option("show_values", ("--show-values",), "flag", SHOW_VALUES_HELP, default=False),
    Option("broker_properties", ("--properties",), "repeat", PROPERTIES_HELP, metavar="PATH[,PATH...]"),
    Option("cr", ("--cr",), "value", CR_HELP, metavar="CR.yaml"),
    Option("ordinal", ("--ordinal",), "int", ORDINAL_HELP, metavar="N"),
    Option("broker_home", ("--broker-home",), "value", BROKER_HOME_HELP, metavar="DIR"),
    Option("no_broker_home", ("--no-broker-home",), "flag", NO_BROKER_HOME_HELP, default=False),
    Option("replicas", ("--replicas",), "int", REPLICAS_HELP, metavar="R"),
    Option("list_rules", ("--list-rules",), "flag", "List every rule and exit.", default=False, fast=False),
)

_BY_NAME = {name: opt for opt in OPTIONS if opt.fast for name in opt.names}


def parse_validate_args(args: list[str]) -> ValidateOptions | None:
    """``args`` (what follows ``validate``) as options, or ``None`` to let typer parse them."""
    values: dict[str, object] = {}
    repeated: dict[str, list[str]] = {o.field: [] for o in OPTIONS if o.kind == "repeat"}
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
        opt = _BY_NAME.get(name)
        if opt is None:
            return None  # --help, --list-rules, unknown or combined options: typer decides
        if opt.kind == "flag":
            if has_attached:
                return None
            values[opt.field] = True
            continue
        if has_attached:
            value = attached
        elif i < len(args) and not args[i].startswith("-"):
            value = args[i]
            i += 1
        else:
            return None  # no value, or one that looks like an option: typer says what is wrong
        if opt.kind == "repeat":
            repeated[opt.field].append(value)
        elif opt.field in values:
            from ..errors import UsageError

            raise UsageError(f"{opt.names[0]} given twice: it takes one value; give it once")
        elif opt.kind == "int":
            if not (value.isascii() and value.isdigit()):
                return None  # typer says what is wrong
            values[opt.field] = int(value)
        else:
            values[opt.field] = value
    fields = {field: tuple(items) for field, items in repeated.items()}
    return ValidateOptions(paths=tuple(paths), **fields, **values)  # type: ignore[arg-type]
