"""``arouter serve``."""

from __future__ import annotations

import typer

from ..errors import UsageError


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_command)


def serve_command() -> None:
    """Not available yet."""
    raise UsageError("arouter serve is not available in this version yet")
