"""``arouter probe``."""

from __future__ import annotations

import typer

from ..errors import UsageError


def register(app: typer.Typer) -> None:
    app.command("probe")(probe_command)


def probe_command() -> None:
    """Not available yet."""
    raise UsageError("arouter probe is not available in this version yet")
