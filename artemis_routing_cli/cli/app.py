"""The ``arouter`` command: subcommands live one per module; heavy imports stay inside them."""

from __future__ import annotations

import os
import sys

import typer

from .. import __version__
from ..errors import ArouterError
from . import analyze, probe, serve, simulate, validate

app = typer.Typer(
    name="arouter",
    help="Validate, simulate, probe, serve and analyze Apache ActiveMQ Artemis connection routing — offline.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"arouter {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """arouter: the broker's routing decisions, offline and in CI."""


validate.register(app)
simulate.register(app)
probe.register(app)
serve.register(app)
analyze.register(app)


def main() -> None:
    """Console entry point: one plain line and exit 2 for user errors, never a traceback."""
    try:
        app()
    except ArouterError as err:
        print(f"arouter: {err}", file=sys.stderr)
        sys.exit(err.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as err:  # a bug in arouter, not in the user's input
        if os.environ.get("AROUTER_DEBUG"):
            raise
        print(f"arouter: internal error: {type(err).__name__}: {err} (set AROUTER_DEBUG=1 for a traceback)",
              file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
