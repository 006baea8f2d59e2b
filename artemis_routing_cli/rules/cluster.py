"""Cluster connections (AR601, AR602): which addresses they carry and whom they connect to.

A cluster connection's `<address>` is a comma-separated list of prefixes (`!` excludes, an
exclusion beats an inclusion, an empty list means every address). Each cluster connection
builds its own bridges and remote bindings, so an address carried by two of them is forwarded
twice. A cluster connection finds its peers through `<static-connectors>` or a
`<discovery-group-ref>`; with neither, it only learns about brokers that connect to it.
"""

from __future__ import annotations

from collections.abc import Iterator

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
    plain = [cc for cc in real_cluster_connections(ctx.config) if cc.uri is None]
    for cc in plain:
        if not cc.static_connectors and cc.discovery_group is None and cc.static_connectors_pos is None:
            yield ctx.report("AR602", cc.pos,
                             f"cluster connection '{cc.name}' has no <static-connectors> and no "
                             "<discovery-group-ref>: it only learns about brokers that connect to it",
                             section=f"cluster-connection {cc.name}")
    if cluster_matches is None:
        return
    # the others are skipped by the broker (AR206, AR202)
    deployed = [cc for cc in deployed_cluster_connections(ctx.config) if cc.uri is None]
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
    for j, second in enumerate(heads):
        # one finding per group: the first earlier group it overlaps
        for i in range(j):
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
