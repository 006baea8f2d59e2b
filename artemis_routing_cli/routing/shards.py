"""A sharded router's finite domain: every value its local decision can see, enumerated.

A CONSISTENT_HASH_MODULO router with ``MODULO=M > 0`` turns every key but ``NULL`` into
``(fnv(key) & 0x7fffffff) % M`` (from 2.23) or Java's ``fnv(key) % M`` (before: ``-(M-1)..M-1``), so
its local-target-filter sees one of finitely many values, and it refuses every other key (the policy
never selects a target, with or without a pool). A router with no local-target-filter and no
redirecting pool refuses every key.

For routers that all read the key alike (key type, key-filter), the answers of all of them together
are a function of one value: the hash modulo L, the least common multiple of their moduli (every
class is reached: hashes take all 2**31 values of each sign, and L is far smaller), with its sign,
plus ``NULL`` (no key value, a key-filter without a match). ``arouter fleet`` and validate's fleet
rules (rules/fleet.py) enumerate it here, with the engine's own filter (``JavaPattern.matches``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import lcm
from typing import Optional

from .keys import NULL_KEY
from .policies import MODULO_UNSIGNED_SINCE, ConsistentHashModuloPolicy, java_remainder
from .router import Router

MAX_DOMAIN = 1 << 20  # hash classes enumerated at most (the lcm of the moduli)

# A router's transformation: (MODULO, signed) or None (the router accepts no key locally but NULL's match)
Rule = Optional[tuple[int, bool]]


@dataclass(frozen=True)
class Residue:
    """One value of the finite domain: its label, the value each router's filter sees, and its weight
    (how many of the 2·L hash classes it stands for; 0 for NULL, which is no hash)."""

    label: str
    values: tuple[str, ...]  # per router, in order
    weight: int


def rule_of(r: Router) -> tuple[Rule, str | None]:
    """A router's transformation, or why what its filter sees is not finite."""
    policy = r.policy
    if isinstance(policy, ConsistentHashModuloPolicy) and policy.modulo > 0:
        return (policy.modulo, r.broker_version < MODULO_UNSIGNED_SINCE), None
    if r.local_target_filter is None and (r.pool is None or r.policy is None):
        return None, None  # refuses every key
    if r.pool is not None and r.policy is not None and not isinstance(policy, ConsistentHashModuloPolicy):
        return None, f"{r.policy.name} with a pool redirects by the key itself: counted over keys (--keys)"
    return None, ("the local-target-filter sees the key itself (no CONSISTENT_HASH_MODULO with MODULO > 0): "
                  "counted over keys (--keys)")


def rules_of(routers: Sequence[Router | None]) -> tuple[list[Rule], str | None]:
    """Each router's transformation, or why the joint domain is not finite."""
    out: list[Rule] = []
    for r in routers:
        if r is None:
            return [], "a pod has no such router (it accepts every client): nothing to enumerate"
        rule, why = rule_of(r)
        if why is not None:
            return [], why
        out.append(rule)
    if len({(r.key_type, r.key_filter) for r in routers if r is not None}) > 1:
        return [], "the pods read the key differently (key type or key-filter): counted over keys (--keys)"
    ms = [rule[0] for rule in out if rule is not None]
    if ms and lcm(*ms) > MAX_DOMAIN:
        return [], f"the moduli's lcm is above {MAX_DOMAIN:,}: counted over keys (--keys)"
    return out, None


def _value(rule: Rule, h: int) -> str:
    if rule is None:
        return ""
    m, signed = rule
    return str(java_remainder(h, m) if signed else (h & 0x7FFFFFFF) % m)


def domain(rules: Sequence[Rule]) -> list[Residue]:
    """Every joint value: ``NULL``, then each class of the hash modulo L (the lcm of the moduli), for a
    hash of each sign, as each router's transformation prints it (classes that print alike merged)."""
    ms = [rule[0] for rule in rules if rule is not None]
    big = lcm(*ms) if ms else 1
    distinct = {rule for rule in rules if rule is not None}
    first = next((i for i, rule in enumerate(rules) if rule is not None), None)
    out: dict[tuple[str, ...], Residue] = {}
    for sign in (1, -1):
        for r in range(big):
            # a representative hash of the class (|h| <= L < 2**31): -L stands for a negative multiple of L
            h = r if sign == 1 else -(r or big)
            values = tuple(_value(rule, h) for rule in rules)
            seen = out.get(values)
            if seen is not None:
                out[values] = Residue(seen.label, values, seen.weight + 1)
                continue
            label = values[first] if len(distinct) == 1 and first is not None else \
                f"hash {'≡' if sign == 1 else '≡ -'}{r} (mod {big})"
            out[values] = Residue(label, values, 1)
    return [Residue(NULL_KEY, tuple(NULL_KEY for _ in rules), 0), *out.values()]


def accepts(router: Router | None, value: str) -> bool:
    """Whether a router takes a key of this (transformed) value locally: its local-target-filter."""
    return router is not None and router.local_target_filter is not None and router.local_target_filter.matches(value)


def homes(routers: Sequence[Router | None], rules: Sequence[Rule]) -> dict[str, list[int]]:
    """Each value's label -> the indexes of the routers that take it."""
    return {residue.label: [i for i, (r, v) in enumerate(zip(routers, residue.values, strict=True)) if accepts(r, v)]
            for residue in domain(rules)}
