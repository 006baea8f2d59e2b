"""The ``arouter`` typer application: subcommands live one per module; heavy imports stay inside them.

The console script is :func:`.entry.main`, which reads ``arouter validate`` without typer when it can and
hands every other command line to :data:`app` (this module imports nothing of the entry point).
"""

from __future__ import annotations

import typer

from .. import __version__
from . import analyze, diff, fleet, probe, replay, selftest, serve, simulate, validate
from .help_layout import tidy

__all__ = ["app"]

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
diff.register(app)
replay.register(app)
selftest.register(app)
fleet.register(app)
tidy(app)

