"""Who moves: the transfer matrix between two answers for the same keys.

One computation for every "before → after" question: ``arouter diff`` (old config → new config)
and ``arouter analyze --what-if`` (router → router with a target down or added) both count their
per-key answer pairs here. An answer is named by its target (the connector name, ``local``, a
discovery member's node id) when the router answered OK, else by its status
(``REFUSED_USE_ANOTHER``, ``REFUSED_UNAVAILABLE``); a key moves when that name or the target's node
id changes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Union

from .router import OK, Router

# A router that does not exist on one side (added or removed by a config change).
ABSENT = "NO_ROUTER"


@dataclass(frozen=True, slots=True)
class Answer:
    """One router's answer for a key, as counted: status, target label, node id, local, NULL key."""

    status: str
    target: str | None = None
    node_id: str | None = None
    local: bool = False
    null: bool = False

    @property
    def label(self) -> str:
        return str(self.target) if self.status == OK and self.target is not None else str(self.status)

    @property
    def refused(self) -> bool:
        return self.status != OK


NO_ROUTER = Answer(ABSENT)
# A router the broker would not deploy: never routed as if it worked.
NOT_DEPLOYED = Answer("NOT_DEPLOYED")
# One side of a before/after pair: a Router, or the answer every key gets (NO_ROUTER, NOT_DEPLOYED).
Side = Union[Router, Answer]
AnswerKey = tuple[str, Union[str, None], bool, bool]  # status, target label, local, NULL key


def node_ids(router: Router) -> dict[str, str]:
    """Target label -> node id, as the router's answers name them."""
    out = {"local": router.local.node_id}
    if router.pool is not None:
        out.update({("local" if t.local else t.name): t.node_id for t in router.pool.targets})
    return out


def side_answer(side: Side, key: AnswerKey) -> Answer:
    """The counted answer of ``side`` for a routed ``key`` (a fixed Answer side ignores the key)."""
    if isinstance(side, Answer):
        return side
    status, target, local, null = key
    return Answer(status, target, node_ids(side).get(target) if target is not None else None, local, null)


def moves(before: Answer, after: Answer) -> bool:
    """Whether a key with these answers moves: its target (or refusal) or the target's node id changes."""
    return before.label != after.label or before.node_id != after.node_id


def becomes_refused(before: Answer, after: Answer) -> bool:
    return after.refused and not before.refused


@dataclass(frozen=True)
class KeyTotals:
    """Counts of keys, not of router answers: a key that moves on two routers is one key that moves."""

    keys: int
    moved: int  # keys that move on at least one router
    became_refused: int  # keys newly refused by at least one router


@dataclass
class Transfer:
    """Counts over every key: ``matrix[(from, to)]`` covers them all (unchanged keys as from == to)."""

    keys: int = 0
    moved: int = 0
    matrix: Counter[tuple[str, str]] = field(default_factory=Counter)
    became_local: int = 0
    became_remote: int = 0  # was local, now another target
    became_refused: int = 0
    became_routed: int = 0  # was refused, now OK
    became_null: int = 0  # the key now resolves to NULL (key-filter, missing value)
    left_null: int = 0
    node_ids: dict[str, set[str]] = field(default_factory=dict)  # target label -> node ids seen

    @property
    def churn(self) -> float:
        return self.moved / self.keys if self.keys else 0.0

    def add(self, before: Answer, after: Answer, count: int = 1) -> None:
        self.keys += count
        a, b = before.label, after.label
        self.matrix[(a, b)] += count
        for ans in (before, after):
            if ans.status == OK and ans.target is not None and ans.node_id is not None:
                self.node_ids.setdefault(ans.target, set()).add(ans.node_id)
        if not moves(before, after):
            return
        self.moved += count
        if after.local and not before.local:
            self.became_local += count
        if before.local and not after.local and not after.refused:
            self.became_remote += count
        if becomes_refused(before, after):
            self.became_refused += count
        if before.refused and not after.refused:
            self.became_routed += count

    def add_null(self, before: Answer, after: Answer, count: int = 1) -> None:
        if after.null and not before.null:
            self.became_null += count
        if before.null and not after.null:
            self.left_null += count

    def flows(self) -> list[tuple[str, str, int]]:
        """The cells where keys moved (from != to), sorted."""
        return [(a, b, c) for (a, b), c in sorted(self.matrix.items()) if a != b]


def count_transfer(pairs: Iterable[tuple[Answer, Answer, int]]) -> Transfer:
    """The transfer of ``(before, after, count)`` pairs (each pair: ``count`` keys with those answers)."""
    out = Transfer()
    for before, after, count in pairs:
        out.add(before, after, count)
        out.add_null(before, after, count)
    return out
