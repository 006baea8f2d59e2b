"""Whether the broker deploys a router: the ONE place ``arouter diff`` asks, on the project's deploy
verdict (:mod:`artemis_routing_cli.verdict`): every finding says what the broker does, and one
that makes it refuse to start refuses every router of the config. The findings come unsuppressed
(the broker reads no suppression comment).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..diagnostics import REFUSES, Diagnostic
from ..verdict import router_section


def router_refusals(diagnostics: Sequence[Diagnostic], router: str) -> tuple[str, ...]:
    """Why the broker would not deploy router ``router`` (empty: it deploys), one reason per finding:
    its own section's refusals first, then the rest of the file's (the broker then does not start)."""
    section = router_section(router)
    own = [d for d in diagnostics if d.broker == REFUSES and d.section == section]
    return tuple(f"{d.rule} line {d.line}: {d.message}" for d in own) + config_refusals(diagnostics, section)


def config_refusals(diagnostics: Sequence[Diagnostic], but: str | None = None) -> tuple[str, ...]:
    """Refusals outside section ``but``: with any of them the broker does not start with this file."""
    return tuple(f"{d.rule} {d.file}:{d.line}: {d.message}" for d in diagnostics
                 if d.broker == REFUSES and d.section != but)
