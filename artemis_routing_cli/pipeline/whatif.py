"""What-if scenarios: the same keys with one target down (``down=TARGET``) or one more (``add=NODE_ID``).

A scenario is a changed copy of a router, routed by the same engine; the analysis counts the keys
whose answer (status and target) changes with routing.transfer, the same count as ``arouter diff``'s
churn (there the changed router comes from the new config). The copy starts with an empty cache: it shows where keys
go when they are routed afresh (a live broker's cache keeps existing keys sticky until they expire).
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import deepcopy
from dataclasses import dataclass

from ..errors import UsageError
from ..routing.router import Router
from ..routing.targets import Target, TargetState

KINDS = ("down", "add")


@dataclass(frozen=True, slots=True)
class Scenario:
    kind: str  # down | add
    name: str

    @property
    def label(self) -> str:
        return f"{self.kind}={self.name}"


def parse_scenarios(items: Sequence[str]) -> list[Scenario]:
    out: list[Scenario] = []
    for item in items:
        kind, sep, name = item.partition("=")
        kind, name = kind.strip().lower(), name.strip()
        if not sep or kind not in KINDS or not name:
            raise UsageError(f"--what-if {item!r}: expected down=TARGET or add=NODE_ID")
        out.append(Scenario(kind, name))
    return out


def variant(router: Router, scenario: Scenario) -> Router | None:
    """The router under ``scenario``; None when it does not apply (no pool, unknown target)."""
    pool = router.pool
    if pool is None:
        return None
    if scenario.kind == "down":
        if not any(scenario.name in (t.name, t.node_id) for t in pool.targets):
            return None
        new_pool = pool.with_state(TargetState(down=frozenset({scenario.name})))
    else:
        added = Target(name=scenario.name, node_id=scenario.name, source="what-if")
        new_pool = pool.with_target(added)
    copy = deepcopy(router)
    copy.pool = new_pool
    copy.cache = None
    return copy


def check_applicable(routers: Sequence[Router], scenarios: Sequence[Scenario]) -> None:
    """A ``down=`` naming no target of any analysed router is a typo: say so."""
    for s in scenarios:
        if s.kind == "down" and all(variant(r, s) is None for r in routers):
            known = sorted({t.name for r in routers if r.pool is not None for t in r.pool.targets})
            raise UsageError(f"--what-if {s.label}: no analysed router has a target {s.name!r} "
                             f"(targets: {', '.join(known) or 'none'})")
