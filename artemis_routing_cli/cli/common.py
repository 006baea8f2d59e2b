"""Small things every command shares: finding broker.xml, -D properties, consoles."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from rich.console import Console

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
    """``-D name=value`` / ``--property name=value`` → mapping (like JVM system properties)."""
    out: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"-D {item!r}: expected name=value")
        out[name.strip()] = value
    return out


def read_stdin_bytes() -> bytes:
    return sys.stdin.buffer.read()


def load_routable(path: str, define: list[str] | None, ignore_invalid: bool, command: str) -> BrokerConfig:
    """broker.xml for a command that routes (simulate, serve, analyze), judged as the broker would
    judge it (arouter.verdict): a config the broker would not start with ends the command with
    validate's finding and exit code 1, unless ``--ignore-invalid`` (then each finding is a
    warning on stderr and the command goes on)."""
    from ..config import LoadOptions
    from ..verdict import finding_text, load_checked, refusal_error

    checked = load_checked(path, LoadOptions(parse_properties(define)), going_on=ignore_invalid)
    refusals = checked.verdict.refusals
    if refusals and not ignore_invalid:
        raise refusal_error(checked.verdict, command)
    for d in refusals:
        note(f"arouter: warning: {finding_text(d)}; {command} goes on (--ignore-invalid)")
    return checked.config
