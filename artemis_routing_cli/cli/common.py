"""Small things every command shares: finding broker.xml, -D properties, consoles."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from rich.console import Console

    from ..config import LoadOptions
    from ..config.model import BrokerConfig

SAMPLE_NAME = "sample-broker.xml"


def stderr_console() -> Console:
    from rich.console import Console  # imported on first use: rich takes a while to import

    return Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


# Width for tables when stdout is a pipe or a file (rich would assume 80 columns and truncate).
PIPE_WIDTH = 160


def stdout_console(no_color: bool = False) -> Console:
    from rich.console import Console

    no_color = no_color or bool(os.environ.get("NO_COLOR"))
    console = Console(highlight=False, soft_wrap=True, no_color=no_color, emoji=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, soft_wrap=True, no_color=no_color, width=PIPE_WIDTH, emoji=False)
    return console


def colour_terminal() -> bool:
    """Whether stdout is where rich would draw colour: a terminal, or FORCE_COLOR / TTY_COMPATIBLE
    say to treat it as one (rich's own rules)."""
    if os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE") == "1":
        return True
    if os.environ.get("TTY_COMPATIBLE") == "0":
        return False
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def warn(console: Console, text: str) -> None:
    """``warning: TEXT`` on ``console``, with TEXT shown as it is (brackets and colons in names,
    keys and paths are not rich markup or emoji codes)."""
    from rich.markup import escape

    console.print(f"[yellow]warning[/yellow]: {escape(text)}", highlight=False)


def note(text: str) -> None:
    """TEXT on stderr exactly as it is: a plain line, no rich (and none of its import time)."""
    print(text, file=sys.stderr, flush=True)


def say(console: Console, text: str) -> None:
    """TEXT on ``console`` exactly as it is (no markup)."""
    console.print(text, highlight=False, markup=False)


def bundled_sample() -> str:
    """The sample broker.xml shipped as package data (a file beside the package's modules)."""
    return str(Path(__file__).resolve().parent.parent / "data" / SAMPLE_NAME)


def find_config(explicit: str | None, *, quiet: bool = False) -> str:
    """``--config``; else ./broker.xml; else $ARTEMIS_INSTANCE/etc/broker.xml; else the bundled sample."""
    if explicit:
        return explicit
    candidates = [Path("broker.xml")]
    instance = os.environ.get("ARTEMIS_INSTANCE")
    if instance:
        candidates.append(Path(instance) / "etc" / "broker.xml")
    for c in candidates:
        if c.is_file():
            if not quiet:
                note(f"arouter: using {c}")
            return str(c)
    if not quiet:
        note("arouter: no --config, ./broker.xml or $ARTEMIS_INSTANCE/etc/broker.xml: "
             "using the bundled sample broker.xml")
    return bundled_sample()


def parse_properties(items: list[str] | None) -> dict[str, str]:
    """``-D name=value`` / ``--define name=value`` → mapping (like JVM system properties)."""
    out: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"-D {item!r}: expected name=value")
        out[name.strip()] = value
    return out


def read_stdin_bytes() -> bytes:
    return sys.stdin.buffer.read()




def load_broker(config: str | None, define: list[str] | None, properties: list[str] | None = None,
                cr: str | None = None, ordinal: int | None = None) -> BrokerConfig:
    """The one way commands load their configuration: broker.xml (found as :func:`find_config` says;
    none needed when broker properties are given), ``-D`` values, then the broker properties."""
    from ..config import load

    return load(*broker_options(config, define, properties, cr, ordinal))


def load_routable(config: str | None, define: list[str] | None, ignore_invalid: bool, command: str,
                  properties: list[str] | None = None, cr: str | None = None,
                  ordinal: int | None = None, *, show_values: bool = False,
                  broker_home: object = None) -> BrokerConfig:
    """:func:`load_broker` for a command that routes (simulate, serve, analyze), judged as the broker
    would judge it (arouter.verdict): a config the broker would not start with ends the command with
    validate's finding and exit code 1, unless ``--ignore-invalid`` (then each finding is a
    warning on stderr and the command goes on). ``broker_home``: the whole file is judged against that
    installation's schema too (AR107), as that broker would judge it."""
    from ..verdict import finding_text, load_checked, refusal_error

    path, options = broker_options(config, define, properties, cr, ordinal)
    checked = load_checked(path, options, going_on=ignore_invalid, broker_home=broker_home)
    guard_output(checked.config, options, show_values)
    refusals = checked.verdict.refusals
    if refusals and not ignore_invalid:
        raise refusal_error(checked.verdict, command)
    for d in checked.verdict.read_differently:
        note(f"arouter: warning: {finding_text(d)}; {command} reads the file as the broker does")
    for d in refusals:
        note(f"arouter: warning: {finding_text(d)}; {command} goes on (--ignore-invalid)")
    return checked.config


def load_judged(config: str | None, define: list[str] | None, command: str, properties: list[str] | None = None,
                cr: str | None = None, ordinal: int | None = None, *, show_values: bool = False) -> BrokerConfig:
    """:func:`load_broker` for a command that reads the config without routing on it (probe): the
    broker's verdict is said (the broker would not start with it), and the command goes on."""
    from ..verdict import finding_text, load_checked

    path, options = broker_options(config, define, properties, cr, ordinal)
    checked = load_checked(path, options, going_on=True)
    guard_output(checked.config, options, show_values)
    for d in checked.verdict.refusals:
        note(f"arouter: warning: {finding_text(d)}; the broker would not start with this config "
             f"({command} checks its targets all the same)")
    for d in checked.verdict.read_differently:
        note(f"arouter: warning: {finding_text(d)}; {command} reads the file as the broker does")
    return checked.config


def guard_output(cfg: BrokerConfig, options: LoadOptions, show_values: bool) -> None:
    """From here on the command's output (stdout, stderr, files, management answers) shows no value
    that came from the environment, a property or an included file (unless ``show_values``) and no
    password (ever): see :mod:`artemis_routing_cli.redact_output`."""
    from ..config.properties import sources_for
    from ..redact_output import config_secrets, guard

    props = options.broker_properties
    lines: list[tuple[str, str, str]] = []
    if props is not None:
        for source in sources_for(cfg.path, props, options.properties):
            lines.extend((line.key, line.value, source.path) for line in source.lines)
    guard(config_secrets(cfg, show_values=show_values, property_lines=lines, defines=options.properties))


def broker_options(config: str | None, define: list[str] | None, properties: list[str] | None = None,
                   cr: str | None = None, ordinal: int | None = None, *,
                   quiet: bool = False) -> tuple[str, LoadOptions]:
    """The broker.xml to read and how (``-D`` values, broker properties, a CR's view of one broker)."""
    from ..config import LoadOptions
    from ..config.properties import PropertiesOptions
    from ..config.properties.sources import empty_broker_xml

    if ordinal is not None and cr is None:
        raise UsageError("--ordinal needs --cr")
    if ordinal is not None and ordinal < 0:
        raise UsageError(f"--ordinal {ordinal}: a pod ordinal is 0 or more")
    defines = parse_properties(define)
    given = bool(properties or cr or "broker.properties" in defines
                 or any(name.startswith("brokerconfig.") for name in defines))
    path = find_config(config, quiet=given or quiet) if config or not given else found_config_or_none()
    if path is None:
        if not quiet:
            note("arouter: no --config, ./broker.xml or $ARTEMIS_INSTANCE/etc/broker.xml: the broker's defaults "
                 "plus the broker properties")
        path = empty_broker_xml()
    options = PropertiesOptions(paths=tuple(properties or ()), cr=cr, ordinal=ordinal,
                                beside=path != empty_broker_xml())
    if cr is not None and not quiet:
        note(f"arouter: {cr}: the view of broker {ordinal or 0} (STATEFUL_SET_ORDINAL={ordinal or 0})")
        from ..config.properties import missing_bp_secrets

        for secret in missing_bp_secrets(options):
            note(f"arouter: {cr}: secret {secret} (-bp: broker properties the operator applies after the CR's) "
                 f"not given, left out; pass its keys as files with --properties {secret}/")
    return path, LoadOptions(defines, broker_properties=options)


def found_config_or_none() -> str | None:
    path = find_config(None, quiet=True)
    return None if path == bundled_sample() else path
