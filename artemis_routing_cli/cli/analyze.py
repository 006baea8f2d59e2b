"""``arouter analyze``."""

from __future__ import annotations

import typer

from ..errors import UsageError


def register(app: typer.Typer) -> None:
    app.command("analyze")(analyze_command)


def analyze_command() -> None:
    """Not available yet."""
    raise UsageError("arouter analyze is not available in this version yet")
