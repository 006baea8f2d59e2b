"""The broker's five policies: key transformation and target selection, exactly.

Each policy has ``transform_key(key)`` (only CONSISTENT_HASH_MODULO changes it) and
``select(targets, key)`` returning a target or None. ROUND_ROBIN and LEAST_CONNECTIONS keep a
position that advances with every selection, as in the broker.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..javastr import java_parse_int
from .fnv import FNV_MEMO, fnv1a32, fnv1a32_remembered
from .targets import INT_MAX, Target

INT_MIN = -(2**31)


class PolicyConfigError(ValueError):
    """The broker would refuse to deploy this policy (e.g. Integer.parseInt on a bad MODULO)."""


def parse_int_property(text: str | None) -> int:
    """Integer.parseInt as the policy's init calls it; raises where the broker throws."""
    value = java_parse_int(text)
    if value is None:
        raise PolicyConfigError("Cannot parse null string: null" if text is None else f'For input string: "{text}"')
    return value


@dataclass
class RoundRobinState:
    """The broker starts at a random int in [0, Integer.MAX_VALUE); ``--seed`` fixes it."""

    pos: int = field(default_factory=lambda: random.randrange(0, INT_MAX))

    def next_of(self, targets: Sequence[Target]) -> Target:
        self.pos = self.pos % len(targets)
        chosen = targets[self.pos]
        self.pos += 1
        return chosen


class Policy:
    name = ""
    deterministic = True  # the same key and targets always give the same answer
    transforms = False  # transform_key may change a key (else the engine need not ask)

    def __init__(self, properties: Mapping[str, str]) -> None:
        self.properties = dict(properties)

    def transform_key(self, key: str) -> str:
        return key

    def select(self, targets: Sequence[Target], key: str) -> Target | None:
        raise NotImplementedError

    def explain(self) -> str:
        return self.name


class FirstElementPolicy(Policy):
    name = "FIRST_ELEMENT"

    def select(self, targets: Sequence[Target], key: str) -> Target | None:
        return targets[0] if targets else None

    def explain(self) -> str:
        return "FIRST_ELEMENT picks the first ready target in pool order"


class RoundRobinPolicy(Policy):
    name = "ROUND_ROBIN"
    deterministic = False

    def __init__(self, properties: Mapping[str, str], start: int | None = None) -> None:
        super().__init__(properties)
        self.state = RoundRobinState() if start is None else RoundRobinState(start)

    def select(self, targets: Sequence[Target], key: str) -> Target | None:
        return self.state.next_of(targets) if targets else None

    def explain(self) -> str:
        return f"ROUND_ROBIN takes position {self.state.pos} modulo the ready targets, then advances"


@dataclass(frozen=True, slots=True)
class Ring:
    """CONSISTENT_HASH's TreeMap: one point per target at fnv(node id); later targets overwrite."""

    hashes: tuple[int, ...]
    targets: tuple[Target, ...]

    @classmethod
    def build(cls, targets: Sequence[Target]) -> Ring:
        points: dict[int, Target] = {}
        for t in targets:
            points[fnv1a32(t.node_id)] = t
        ordered = sorted(points.items())
        return cls(tuple(h for h, _ in ordered), tuple(t for _, t in ordered))

    def lookup(self, key_hash: int) -> Target:
        # floorEntry(hash), else firstEntry()
        idx = bisect.bisect_right(self.hashes, key_hash) - 1
        return self.targets[idx if idx >= 0 else 0]


class ConsistentHashPolicy(Policy):
    name = "CONSISTENT_HASH"

    def __init__(self, properties: Mapping[str, str]) -> None:
        super().__init__(properties)
        self._ring_for: tuple[Target, ...] = ()
        self._ring: Ring | None = None

    def ring(self, targets: Sequence[Target]) -> Ring:
        """The broker builds its TreeMap on every call; the result only depends on the targets."""
        ring = self._ring
        if ring is not None and targets is self._ring_for:  # the pool's own tuple (Pool.ready_targets)
            return ring
        key = tuple(targets)
        if ring is None or key != self._ring_for:
            ring = Ring.build(key)
            self._ring_for, self._ring = key, ring
        return ring

    def select(self, targets: Sequence[Target], key: str) -> Target | None:
        if len(targets) > 1:
            # self.ring(targets).lookup(fnv1a32(key)), with the ring's usual case and its lookup inline
            ring = self._ring
            if ring is None or targets is not self._ring_for:
                ring = self.ring(targets)
            h = FNV_MEMO.get(key)  # fnv1a32(key), remembered for keys seen lately
            if h is None:
                h = fnv1a32_remembered(key)
            idx = bisect.bisect_right(ring.hashes, h) - 1  # floorEntry(hash), else firstEntry()
            return ring.targets[idx if idx >= 0 else 0]
        return targets[0] if targets else None

    def explain(self) -> str:
        return ("CONSISTENT_HASH picks the target with the greatest fnv(node id) <= fnv(key), "
                "else the smallest")


# ARTEMIS-3823 (2.23.0): the hash's sign bit is cleared before the modulo; before it, Java's ``%`` of
# the signed hash, negative for a negative hash (so keys move when a fleet is upgraded across it).
UNSIGNED_MODULO_SINCE = (2, 23)


def java_remainder(a: int, b: int) -> int:
    """Java's ``a % b`` on ints: truncated toward zero, the sign of ``a``."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


class ConsistentHashModuloPolicy(ConsistentHashPolicy):
    name = "CONSISTENT_HASH_MODULO"
    transforms = True

    def __init__(self, properties: Mapping[str, str]) -> None:
        super().__init__(properties)
        self.signed = False  # the rule before 2.23 (Router.follow_version sets it)
        self.error: str | None = None
        try:
            self.modulo = parse_int_property(self.properties.get("MODULO"))
        except PolicyConfigError as exc:
            # The broker fails to deploy the router here; we simulate modulo 0 and say so.
            self.modulo = 0
            self.error = str(exc)

    def transform_key(self, key: str) -> str:
        if self.modulo > 0:
            if self.signed:
                return str(java_remainder(fnv1a32(key), self.modulo))
            return str((fnv1a32(key) & INT_MAX) % self.modulo)
        return key

    def select(self, targets: Sequence[Target], key: str) -> Target | None:
        return None

    def explain(self) -> str:
        rule = "fnv(key) % {} (Java's remainder: negative for a negative hash, before 2.23)" if self.signed else \
            "(fnv(key) & 0x7fffffff) % {}"
        return f"CONSISTENT_HASH_MODULO turns the key into {rule.format(self.modulo)} and never selects a target"


class LeastConnectionsPolicy(RoundRobinPolicy):
    name = "LEAST_CONNECTIONS"

    def __init__(self, properties: Mapping[str, str], start: int | None = None) -> None:
        super().__init__(properties, start)
        self.error: str | None = None
        self.threshold = 0
        if "CONNECTION_COUNT_THRESHOLD" in self.properties:
            try:
                self.threshold = parse_int_property(self.properties["CONNECTION_COUNT_THRESHOLD"])
            except PolicyConfigError as exc:
                self.error = str(exc)

    def effective_count(self, target: Target) -> int:
        if target.connection_count is None:
            return INT_MAX
        return 0 if target.connection_count < self.threshold else target.connection_count

    def select(self, targets: Sequence[Target], key: str) -> Target | None:
        if len(targets) > 1:
            lowest = min(self.effective_count(t) for t in targets)
            tied = [t for t in targets if self.effective_count(t) == lowest]
            return super().select(tied, key) if len(tied) > 1 else tied[0]
        return targets[0] if targets else None

    def explain(self) -> str:
        return (f"LEAST_CONNECTIONS picks the lowest connection count (below {self.threshold} counts as 0, "
                "unknown as 2147483647); ties go round-robin")


POLICIES: dict[str, type[Policy]] = {
    p.name: p
    for p in (FirstElementPolicy, RoundRobinPolicy, ConsistentHashPolicy, ConsistentHashModuloPolicy,
              LeastConnectionsPolicy)
}


def make_policy(name: str, properties: Mapping[str, str], *, seed: int | None = None) -> Policy:
    """Instantiate a policy by its broker name; unknown names raise KeyError."""
    cls = POLICIES[name]
    if issubclass(cls, RoundRobinPolicy):
        return cls(properties, seed)
    return cls(properties)
