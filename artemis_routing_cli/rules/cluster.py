"""Cluster connections (AR601, AR602): which addresses they carry and whom they connect to.

A cluster connection's `<address>` is a comma-separated list of prefixes (`!` excludes, an
exclusion beats an inclusion, an empty list means every address). Each cluster connection
builds its own bridges and remote bindings, so an address carried by two of them is forwarded
twice. A cluster connection finds its peers through `<static-connectors>` or a
`<discovery-group-ref>`; with neither, it only learns about brokers that connect to it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator

from ..config.model import ClusterConnection
from ..diagnostics import Diagnostic, RuleMeta, Severity
from ._util import deployed_cluster_connections, real_cluster_connections
from .base import Context

try:
    from ..messages.cluster import cluster_matches, java_split
except ImportError:  # pragma: no cover - the messages package is part of arouter
    cluster_matches = None  # type: ignore[assignment]

_CONNECTORS = """<connectors>
  <connector name="self">tcp://broker1:61616</connector>
  <connector name="peer">tcp://broker2:61616</connector>
</connectors>
"""


def _cc(name: str, address: str | None) -> str:
    addr = f"    <address>{address}</address>\n" if address is not None else ""
    return (f'  <cluster-connection name="{name}">\n{addr}    <connector-ref>self</connector-ref>\n'
            "    <static-connectors><connector-ref>peer</connector-ref></static-connectors>\n"
            "  </cluster-connection>\n")


RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR601",
        name="cluster-addresses-overlap",
        severity=Severity.WARNING,
        category="semantics",
        summary="Two cluster connections carry some of the same addresses: those messages are forwarded twice.",
        doc="""\
Addresses match by prefix: `europe` also covers `europe.news`, and an empty `<address>` covers
everything. When two cluster connections both cover an address, each forwards its messages to
the other brokers, and consumers there can receive a message twice. Make the lists disjoint,
for example with `!europe.news` in the broader one.""",
        fail=_CONNECTORS + "<cluster-connections>\n" + _cc("europe", "europe") + _cc("news", "europe.news")
        + "</cluster-connections>",
        ok=_CONNECTORS + "<cluster-connections>\n" + _cc("europe", "europe,!europe.news")
        + _cc("news", "europe.news") + "</cluster-connections>",
    ),
    RuleMeta(
        id="AR602",
        name="cluster-without-peers",
        severity=Severity.INFO,
        category="semantics",
        summary="A cluster connection with neither `<static-connectors>` nor `<discovery-group-ref>`.",
        doc="""\
Without a way to find its peers, the cluster connection only learns about brokers that
connect to it first. That is right for a broker that others list statically; otherwise it
never forms a cluster.""",
        fail=_CONNECTORS + """<cluster-connections>
  <cluster-connection name="my-cluster">
    <connector-ref>self</connector-ref>
  </cluster-connection>
</cluster-connections>""",
        ok=_CONNECTORS + "<cluster-connections>\n" + _cc("my-cluster", None) + "</cluster-connections>",
    ),
]


def check(ctx: Context) -> Iterator[Diagnostic]:
    plain = [cc for cc in ctx.shared(real_cluster_connections) if cc.uri is None]
    for cc in plain:
        if not cc.static_connectors and cc.discovery_group is None and cc.static_connectors_pos is None:
            yield ctx.report("AR602", cc.pos,
                             f"cluster connection '{cc.name}' has no <static-connectors> and no "
                             "<discovery-group-ref>: it only learns about brokers that connect to it",
                             section=f"cluster-connection {cc.name}")
    if cluster_matches is None:
        return
    # the others are skipped by the broker (AR206, AR202)
    deployed = [cc for cc in ctx.shared(deployed_cluster_connections) if cc.uri is None]
    # Cluster connections with the same <address> text are one group: one finding names them all
    # (n copies would otherwise make n*(n-1)/2 findings).
    groups: dict[str, list[ClusterConnection]] = {}
    for cc in deployed:
        groups.setdefault(cc.address, []).append(cc)
    for members in groups.values():
        own = _includes(members[0].address) or [""]
        if len(members) > 1 and _overlap(members[0].address, own, members[0].address, own) is not None:
            yield _same_address(ctx, members)
    heads = [members[0] for members in groups.values()]
    includes = [_includes(cc.address) or [""] for cc in heads]
    index = _PrefixIndex(includes)
    for j, second in enumerate(heads):
        # one finding per group: the first earlier group it overlaps. Only groups with an inclusion
        # nested in (or around) one of this group's can overlap it: those are the ones compared.
        nested = index.nested_before(j)
        for i in range(j) if nested is None else nested:
            first = heads[i]
            witness = _overlap(first.address, includes[i], second.address, includes[j])
            if witness is None:
                continue
            shown = f"'{witness}'" if witness else "every address"
            yield ctx.report("AR601", second.pos,
                             f"cluster connections '{first.name}' ({_describe(first)}) and '{second.name}' "
                             f"({_describe(second)}) both carry {shown}: messages there are forwarded twice",
                             section=f"cluster-connection {second.name}")
            break


class _PrefixIndex:
    """Which groups have an inclusion that is a prefix of, or starts with, a given group's.

    Two groups can only overlap through such a nested pair (see :func:`overlap`). Finding them by
    lookup, not by comparing every pair, keeps the rule linear in the number of groups when their
    addresses are disjoint (the usual case): each group is compared only with the groups it nests
    with. A lookup that would cost more steps than comparing with every earlier group (thousands of
    inclusions of distinct lengths nested in each other) gives up, and the caller compares them all.
    """

    def __init__(self, includes: list[list[str]]) -> None:
        self.includes = includes
        self.exact: dict[str, list[int]] = {}
        for i, entries in enumerate(includes):
            for entry in dict.fromkeys(entries):
                self.exact.setdefault(entry, []).append(i)
        self.lengths = sorted({len(entry) for entry in self.exact})
        self.ordered = sorted(self.exact)

    def nested_before(self, j: int) -> list[int] | None:
        """The groups before ``j`` (ascending) with an inclusion nested with one of ``j``'s.

        None when finding them took more than ``j`` steps (plus a small allowance).
        """
        found: set[int] = set()
        budget = j + 16
        for entry in self.includes[j]:
            for length in self.lengths:  # inclusions that are a prefix of this one
                if length > len(entry):
                    break
                budget -= 1
                budget = self._take(self.exact.get(entry[:length], ()), j, found, budget)
                if budget < 0:
                    return None
            at = bisect_left(self.ordered, entry)  # inclusions that start with this one sort after it
            while at < len(self.ordered) and self.ordered[at].startswith(entry):
                budget = self._take(self.exact[self.ordered[at]], j, found, budget - 1)
                if budget < 0:
                    return None
                at += 1
        return sorted(found)

    @staticmethod
    def _take(groups: Iterable[int], j: int, found: set[int], budget: int) -> int:
        """Add the groups before ``j`` (``groups`` ascending) to ``found``; the budget left."""
        for i in groups:
            if i >= j or budget < 0:
                break
            found.add(i)
            budget -= 1
        return budget


def _same_address(ctx: Context, members: list[ClusterConnection]) -> Diagnostic:
    first, second = members[0], members[1]
    names = f"'{first.name}' and '{second.name}'"
    if len(members) > 2:
        names = f"'{first.name}', '{second.name}' and {len(members) - 2:,} more"
    what = f"address '{first.address}'" if first.address else "every address"
    return ctx.report("AR601", second.pos,
                      f"cluster connections {names} all carry {what}: messages there are forwarded "
                      f"{'twice' if len(members) == 2 else f'{len(members):,} times'}",
                      section=f"cluster-connection {second.name}")


def _describe(cc: ClusterConnection) -> str:
    return f"address '{cc.address}'" if cc.address else "all addresses"


def _includes(address: str) -> list[str]:
    entries = java_split(address) if address else []
    return [e for e in entries if not e.startswith("!")]


def overlap(a: str, b: str) -> str | None:
    """An address both lists carry (the longer of two nested prefixes), or None.

    An exclusion is a prefix too, so if it rules out the longer prefix it rules out everything
    under it: checking that one candidate per pair of inclusions is enough.
    """
    return _overlap(a, _includes(a) or [""], b, _includes(b) or [""])


def _overlap(a: str, inc_a: list[str], b: str, inc_b: list[str]) -> str | None:
    """:func:`overlap` given each list's inclusions (``[""]`` when it has none)."""
    for pa in inc_a:
        for pb in inc_b:
            if pa.startswith(pb):
                candidate = pa
            elif pb.startswith(pa):
                candidate = pb
            else:
                continue
            if cluster_matches(a, candidate) and cluster_matches(b, candidate):
                return candidate
    return None
