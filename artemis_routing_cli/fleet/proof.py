"""Proof where the domain is finite: every value a router's local decision can see, enumerated.

A CONSISTENT_HASH_MODULO router with ``MODULO=M > 0`` turns every key but ``NULL`` into
``(fnv(key) & 0x7fffffff) % M`` (from 2.23) or Java's ``fnv(key) % M`` (before: ``-(M-1)..M-1``).
So what its local-target-filter sees is one of finitely many values, and whether a pod accepts a
key depends on that value alone; the pod refuses every other key (the policy never selects a target,
with or without a pool). A pod with no local-target-filter and no redirecting pool refuses every key.

When every pod's router is one of these and all read the same key the same way (key type and
key-filter), the whole fleet's answer is a function of one finite value: the hash modulo the least
common multiple L of the pods' moduli (every residue is reached: the hashes take all 2**31 values
of each sign and L is far smaller), with its sign before 2.23, plus ``NULL`` (no key value, a
key-filter without a match). Each is enumerated with the engine's own filter
(``JavaPattern.matches``) and the engine's own transformation rule. The answer is "proven".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import lcm

from ..routing.keys import NULL_KEY
from ..routing.policies import ConsistentHashModuloPolicy, java_remainder
from ..routing.router import Router
from .pods import Pod

MAX_DOMAIN = 1 << 20  # values enumerated at most (the lcm of the pods' moduli)


@dataclass(frozen=True)
class Residue:
    """One value of the finite domain: its label, the value each pod's filter sees, and its weight
    (how many of the 2·L hash classes it stands for; 0 for NULL, which is no hash)."""

    label: str
    values: tuple[str, ...]  # per pod, in pod order
    weight: int


# A pod's transformation: (MODULO, signed) or None (the pod accepts no key locally)
Rule = tuple[int, bool] | None


@dataclass
class Proof:
    router: str
    replicas: int
    proven: bool
    why: str  # what makes it finite, or why it is not
    values: int = 0
    homeless: list[str] = field(default_factory=list)
    several: list[tuple[str, list[str]]] = field(default_factory=list)  # (value, pods)
    homes: dict[str, list[str]] = field(default_factory=dict)  # value -> pods (every value)

    idle: list[str] = field(default_factory=list)  # running pods that accept no value but NULL

    @property
    def ok(self) -> bool:
        """Proven, every value has a home, none but NULL has several (NULL|N on every pod: any pod may
        take a client without a key, as the sharding examples intend)."""
        return self.proven and not self.homeless and all(v == NULL_KEY for v, _ in self.several)


def rules_of(routers: Sequence[Router | None]) -> tuple[list[Rule], str | None]:
    """Each pod's transformation, or why the domain is not finite."""
    out: list[Rule] = []
    for r in routers:
        if r is None:
            return [], "a pod has no such router (it accepts every client): nothing to enumerate"
        policy = r.policy
        if isinstance(policy, ConsistentHashModuloPolicy) and policy.modulo > 0:
            out.append((policy.modulo, policy.signed))
        elif r.local_target_filter is None and (r.pool is None or r.policy is None):
            out.append(None)  # refuses every key
        elif r.pool is not None and r.policy is not None and not isinstance(policy, ConsistentHashModuloPolicy):
            return [], f"{r.policy.name} with a pool redirects by the key itself: counted over keys (--keys)"
        else:
            return [], ("the local-target-filter sees the key itself (no CONSISTENT_HASH_MODULO with MODULO > 0): "
                        "counted over keys (--keys)")
    return out, None


def _value(rule: Rule, h: int) -> str:
    if rule is None:
        return ""
    m, signed = rule
    return str(java_remainder(h, m) if signed else (h & 0x7FFFFFFF) % m)


def domain(rules: Sequence[Rule]) -> list[Residue]:
    """Every joint value: ``NULL``, then each class of the hash modulo L (the lcm of the moduli), for a
    hash of each sign, as each pod's transformation prints it (classes that print alike merged)."""
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
    """Whether a pod accepts a key of this (transformed) value locally: its local-target-filter."""
    return router is not None and router.local_target_filter is not None and router.local_target_filter.matches(value)


def finite(pods: Sequence[Pod], router: str) -> tuple[list[Pod], list[Router | None], list[Rule], str | None]:
    """The running pods, their routers and transformations, or why the fleet's domain is not finite."""
    running = [p for p in pods if p.config is not None]
    routers = [p.routers.get(router) for p in running]
    rules, why = rules_of(routers)
    if why is not None:
        return running, routers, [], why
    if len({(r.key_type, r.key_filter) for r in routers if r is not None}) > 1:
        return running, routers, [], ("the pods read the key differently (key type or key-filter): "
                                      "counted over keys (--keys)")
    ms = [rule[0] for rule in rules if rule is not None]
    if ms and lcm(*ms) > MAX_DOMAIN:
        return running, routers, [], f"the moduli's lcm is above {MAX_DOMAIN:,}: counted over keys (--keys)"
    return running, routers, rules, None


def prove(pods: Sequence[Pod], router: str) -> Proof:
    """The fleet's answer for ``router`` over its finite domain, or why there is none."""
    running, routers, rules, why = finite(pods, router)
    if why is not None:
        return Proof(router, len(pods), False, why)
    values = domain(rules)
    proof = Proof(router, len(pods), True, _why(rules), len(values))
    for residue in values:
        home = [p.name for p, r, v in zip(running, routers, residue.values, strict=True) if accepts(r, v)]
        proof.homes[residue.label] = home
        if not home:
            proof.homeless.append(residue.label)
        elif len(home) > 1:
            proof.several.append((residue.label, home))
    busy = {p for label, home in proof.homes.items() if label != NULL_KEY for p in home}
    proof.idle = [p.name for p in running if p.name not in busy]
    return proof


def _why(rules: Sequence[Rule]) -> str:
    ms = sorted({rule[0] for rule in rules if rule is not None})
    if not ms:
        return "no pod has a local-target-filter: every key is refused everywhere"
    signed = {rule[1] for rule in rules if rule is not None}
    rule = ("Java's fnv(key) % M, signed (before 2.23)" if signed == {True} else
            "(fnv(key) & 0x7fffffff) % M" if signed == {False} else "each pod's own sign rule")
    return f"CONSISTENT_HASH_MODULO, MODULO {', '.join(map(str, ms))}: every key is NULL or {rule}"
@dataclass
class ProofChange:
    """A change over the joint finite domain: each hash class's homes before and after."""

    router: str
    proven: bool
    why: str
    classes: int = 0  # 2·L hash classes (L: the lcm of both sides' moduli)
    pairs: Counter[tuple[int, int]] = field(default_factory=Counter)  # (homes before, homes after) -> classes
    null: tuple[int, int] = (0, 0)  # NULL's homes before and after


def prove_change(before: Sequence[Pod], after: Sequence[Pod], router: str) -> ProofChange:
    """Each hash class's homes (bit sets over each side's pods) before and after a change."""
    run_a, routers_a, rules_a, why_a = finite(before, router)
    run_b, routers_b, rules_b, why_b = finite(after, router)
    why = why_a or why_b
    if why is None and len({(r.key_type, r.key_filter) for r in [*routers_a, *routers_b] if r is not None}) > 1:
        why = "the change makes the pods read the key differently: counted over keys (--keys)"
    if why is not None:
        return ProofChange(router, False, why)
    values = domain([*rules_a, *rules_b])
    change = ProofChange(router, True, _why([*rules_a, *rules_b]))
    n = len(run_a)
    for residue in values:
        a = _mask(routers_a, residue.values[:n])
        b = _mask(routers_b, residue.values[n:])
        if residue.label == NULL_KEY:
            change.null = (a, b)
            continue
        change.classes += residue.weight
        change.pairs[(a, b)] += residue.weight
    return change


def _mask(routers: Sequence[Router | None], values: Sequence[str]) -> int:
    return sum(1 << i for i, (r, v) in enumerate(zip(routers, values, strict=True)) if accepts(r, v))
