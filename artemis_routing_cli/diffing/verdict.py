"""Whether the broker deploys a router: the ONE place ``arouter diff`` asks.

Today the verdict is validate's error findings (``linting``) in the router's own section
(``connection-router NAME``: a policy that does not exist, CONSISTENT_HASH_MODULO without
``MODULO``, …), plus errors elsewhere in the file, which stop the whole broker (then every router is
refused). The findings come unsuppressed (the broker reads no suppression comment).
:func:`router_refusals` is meant to be swapped for the project's shared deploy-verdict
function when there is one; nothing else in ``diff`` decides deployability.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..diagnostics import Diagnostic, Severity


def router_refusals(diagnostics: Sequence[Diagnostic], router: str) -> tuple[str, ...]:
    """Why the broker would refuse router ``router`` (empty: it deploys), one reason per finding."""
    section = f"connection-router {router}"
    own = [d for d in diagnostics if d.severity == Severity.ERROR and d.section == section]
    return tuple(f"{d.rule} line {d.line}: {d.message}" for d in own) + config_refusals(diagnostics)


def config_refusals(diagnostics: Sequence[Diagnostic]) -> tuple[str, ...]:
    """Errors outside any router's section: the broker does not start with this file at all."""
    return tuple(f"{d.rule} {d.file}:{d.line}: {d.message}" for d in diagnostics
                 if d.severity == Severity.ERROR and not (d.section or "").startswith("connection-router "))
