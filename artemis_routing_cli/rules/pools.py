"""Values and pools (AR311, AR312): values the broker rejects while it reads them, quorums it never reaches.

The broker's parser reads each setting with `Integer.parseInt`, `Long.parseLong`,
`Double.parseDouble` or as text, then checks it with one of its validators (greater than 0, -1
or more, not empty...). The schema only checks the type, and an empty element that has a
default in the schema passes it, so many such values stop the broker with nothing but a Java
exception in its log. A pool is usable only while at least `quorum-size` of its targets are
ready; a static pool has a fixed number of targets, so a quorum larger than that is never reached.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..config import values
from ..config.model import ConnectionRouter, Pool
from ..diagnostics import REFUSES, Diagnostic, RuleMeta, Severity
from ._util import connector_names
from .base import Context

_CONNECTORS = """<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
  <connector name="b2">tcp://broker2:61616</connector>
</connectors>
"""


_SECTIONS = (
    ("router `<pool>`", values.POOL), ("router `<cache>`", values.CACHE), ("`<divert>`", values.DIVERT),
    ("`<cluster-connection>`", (values.CLUSTER_CONNECTOR, *values.CLUSTER, values.CLUSTER_LOAD_BALANCING)),
    ("`<broadcast-group>`", (values.BROADCAST_CONNECTOR, *values.BROADCAST)), ("`<discovery-group>`", values.DISCOVERY),
)
_READ_AS = {"int": "int", "long": "long", "double": "double", "bytes": "bytes (`64k`, `1MiB`)", "nonempty": "text",
            "choice": "text"}


def _table() -> str:
    """The rows of :mod:`artemis_routing_cli.config.values`, as a Markdown table (one source of truth)."""
    lines = ["| section | element | read as | must be |", "|---|---|---|---|"]
    for section, rows in _SECTIONS:
        for row in rows:
            demand = (row.check.demand if row.check is not None else "not empty" if row.parse == "nonempty"
                      else "one of " + ", ".join(row.choices))
            lines.append(f"| {section} | `{row.element}` | {_READ_AS[row.parse]} | {demand} |")
    return "\n".join(lines)


def _router(pool_settings: str) -> str:
    return _CONNECTORS + f"""<connection-routers>
  <connection-router name="r1">
    <policy name="FIRST_ELEMENT"/>
    <pool>
      {pool_settings}
      <static-connectors>
        <connector-ref>b1</connector-ref>
        <connector-ref>b2</connector-ref>
      </static-connectors>
    </pool>
  </connection-router>
</connection-routers>"""


RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR311",
        name="number-out-of-range",
        severity=Severity.ERROR,
        category="semantics",
        broker=REFUSES,
        summary="A value the schema accepts but the broker's parser rejects (empty, out of range, not a Java number).",
        doc="""\
The table the broker applies (FileConfigurationParser and its `Validators`):

""" + _table() + """

Values are trimmed first (Java's trim). An empty element is a parse error even where the
schema supplies a default (`<max-hops/>`); `INF` is not a Java double; a pool's `check-period`
beyond 2147483647 passes the schema's long but not `Integer.parseInt`. `message-load-balancing`
is read only without `forward-when-no-consumers`; a cluster connection whose `connector-ref`
names no connector is skipped before its other values are read. Any of these stops the broker
(only the values the schema lets through are reported here; AR103 reports the rest).""",
        fail=_router("<check-period>0</check-period>"),
        ok=_router("<check-period>1000</check-period>"),
    ),
    RuleMeta(
        id="AR312",
        name="quorum-unreachable",
        severity=Severity.ERROR,
        category="semantics",
        summary="A static pool's quorum-size is larger than the number of targets it can ever have.",
        doc="""\
A pool hands out targets only while at least `quorum-size` of them are ready (after waiting up
to `quorum-timeout`); below that it returns none and the router refuses the connection as
REFUSED_UNAVAILABLE. A static pool's targets are its connectors that exist (a connector named
twice is two targets), plus the local broker when `local-target-enabled` is true; a larger
quorum is never reached, so every connection not caught by `local-target-filter` is refused,
forever.""",
        fail=_router("<quorum-size>3</quorum-size>"),
        ok=_router("<quorum-size>2</quorum-size>"),
    ),
]


def check(ctx: Context) -> Iterator[Diagnostic]:
    for problem in ctx.config.problems:
        yield ctx.report("AR311", problem.pos, f"{problem.section}: {problem.message}: the broker refuses to start",
                         section=problem.section)
    connectors = ctx.shared(connector_names)
    for router in ctx.config.connection_routers:
        pool = router.pool
        # (_quorum's own first test, without a generator per router: most pools write no quorum-size)
        if pool is not None and pool.source == "static" and "quorum-size" in pool.fields:
            yield from _quorum(ctx, router, pool, connectors, f"connection-router {router.name}")


def _quorum(ctx: Context, router: ConnectionRouter, pool: Pool, connectors: set[str],
            section: str) -> Iterator[Diagnostic]:
    if pool.source != "static" or "quorum-size" not in pool.fields:
        return
    # every ref that names a connector is a target of its own, a name written twice too (the
    # broker's pool keys targets by object identity)
    existing = [name for name in pool.static_connectors if name in connectors]
    possible = len(existing) + (1 if pool.local_target_enabled else 0)
    if pool.quorum_size > possible:
        parts = f"{len(existing)} existing connector{'s' if len(existing) != 1 else ''}"
        if pool.local_target_enabled:
            parts += " and the local broker"
        yield ctx.report("AR312", pool.fields["quorum-size"].pos,
                         f"quorum-size {pool.quorum_size} can never be reached: the pool has at most {possible} "
                         f"target{'s' if possible != 1 else ''} ({parts}), so every connection not caught by "
                         "local-target-filter is refused as REFUSED_UNAVAILABLE", section=section)
