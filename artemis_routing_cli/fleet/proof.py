"""Proof where the domain is finite: the fleet's answer over every value its pods' routers can see
(routing/shards.py enumerates them), for one pod count or a change.

When every pod's router is a sharded one (CONSISTENT_HASH_MODULO with MODULO > 0, or one that refuses
every key) and all read the key alike, the whole fleet's answer is a function of one finite value, and
each is looked at: the answer is "proven".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..routing.keys import NULL_KEY
from ..routing.router import Router
from ..routing.shards import Rule, accepts, domain, rules_of
from .pods import Pod


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
    # each running pod's share of the keys it alone takes, for hashes spread evenly (FNV-1a of real ids
    # is close to even: the hash classes are equally likely)
    shares: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Proven, every value has a home, none but NULL has several (NULL|N on every pod: any pod may
        take a client without a key, as the sharding examples intend)."""
        return self.proven and not self.homeless and all(v == NULL_KEY for v, _ in self.several)


def finite(pods: Sequence[Pod], router: str) -> tuple[list[Pod], list[Router | None], list[Rule], str | None]:
    """The running pods, their routers and transformations, or why the fleet's domain is not finite."""
    running = [p for p in pods if p.config is not None]
    routers = [p.routers.get(router) for p in running]
    rules, why = rules_of(routers)
    return running, routers, rules, why


def prove(pods: Sequence[Pod], router: str) -> Proof:
    """The fleet's answer for ``router`` over its finite domain, or why there is none."""
    running, routers, rules, why = finite(pods, router)
    if why is not None:
        return Proof(router, len(pods), False, why)
    values = domain(rules)
    proof = Proof(router, len(pods), True, _why(rules), len(values))
    total = sum(residue.weight for residue in values)
    proof.shares = dict.fromkeys((p.name for p in running), 0.0)
    for residue in values:
        home = [p.name for p, r, v in zip(running, routers, residue.values, strict=True) if accepts(r, v)]
        proof.homes[residue.label] = home
        if len(home) == 1 and total:
            proof.shares[home[0]] += residue.weight / total
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
    why = why_a or why_b or rules_of([*routers_a, *routers_b])[1]  # both sides alike, and not too many classes
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
