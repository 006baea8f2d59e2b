"""Router pools and caches (AR311, AR312): numbers the broker rejects, quorums it can never reach.

The broker reads a pool's `check-period`, `quorum-size` and `quorum-timeout` and a cache's
`timeout` with `Integer.parseInt` and a range check; the schema only asks for an `xs:long`,
so values out of range or beyond 2147483647 pass the schema and stop the broker. A pool is
usable only while at least `quorum-size` of its targets are ready; a static pool has a fixed
number of targets, so a quorum larger than that is never reached.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..config.model import ConnectionRouter, Fields, Pool
from ..diagnostics import Diagnostic, RuleMeta, Severity
from ._util import INT_MAX, INT_MIN, connector_names, xsd_integer
from .base import Context

# (element, what the broker's validator demands, test) - FileConfigurationParser's GT_ZERO / GE_ZERO.
_POOL_LIMITS = (
    ("check-period", "greater than 0", lambda v: v > 0),
    ("quorum-size", "greater than 0", lambda v: v > 0),
    ("quorum-timeout", "0 or more", lambda v: v >= 0),
)
_CACHE_LIMITS = (("timeout", "0 or more", lambda v: v >= 0),)

_CONNECTORS = """<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
  <connector name="b2">tcp://broker2:61616</connector>
</connectors>
"""


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
        summary="A pool's check-period/quorum-size <= 0, quorum-timeout or a cache timeout < 0, or beyond a Java int.",
        doc="""\
The broker's validators demand `check-period` > 0, `quorum-size` > 0, `quorum-timeout` >= 0
and cache `timeout` >= 0, and parse each as a 32-bit Java int. A value outside that range
passes the schema (which only asks for a long) and makes the broker refuse to start with
"must be greater than 0" or "must be an integer".""",
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
REFUSED_UNAVAILABLE. A static pool's targets are its connectors that exist, plus the local
broker when `local-target-enabled` is true; a larger quorum is never reached, so every
connection not caught by `local-target-filter` is refused, forever.""",
        fail=_router("<quorum-size>3</quorum-size>"),
        ok=_router("<quorum-size>2</quorum-size>"),
    ),
]


def check(ctx: Context) -> Iterator[Diagnostic]:
    connectors = connector_names(ctx.config)
    for router in ctx.config.connection_routers:
        section = f"connection-router {router.name}"
        if router.pool is not None:
            yield from _limits(ctx, router.pool.fields, _POOL_LIMITS, "pool", section)
            yield from _quorum(ctx, router, router.pool, connectors, section)
        if router.cache is not None:
            yield from _limits(ctx, router.cache.fields, _CACHE_LIMITS, "cache", section)


def _limits(ctx: Context, fields: Fields, limits: tuple, where: str, section: str) -> Iterator[Diagnostic]:
    for name, demand, ok in limits:
        field = fields.get(name)
        if field is None:
            continue
        value = xsd_integer(field.text)
        if value is None:
            continue  # not a number at all: a schema error (AR103)
        if not INT_MIN <= value <= INT_MAX:
            yield ctx.report("AR311", field.pos,
                             f"{where} {name} {value} does not fit a Java int: the broker refuses to start "
                             "(must be an integer)", section=section)
        elif not ok(value):
            yield ctx.report("AR311", field.pos,
                             f"{where} {name} {value} must be {demand}: the broker refuses to start",
                             section=section)


def _quorum(ctx: Context, router: ConnectionRouter, pool: Pool, connectors: set[str],
            section: str) -> Iterator[Diagnostic]:
    if pool.source != "static" or "quorum-size" not in pool.fields:
        return
    existing = {name for name in pool.static_connectors if name in connectors}
    possible = len(existing) + (1 if pool.local_target_enabled else 0)
    if pool.quorum_size > possible:
        parts = f"{len(existing)} existing connector{'s' if len(existing) != 1 else ''}"
        if pool.local_target_enabled:
            parts += " and the local broker"
        yield ctx.report("AR312", pool.fields["quorum-size"].pos,
                         f"quorum-size {pool.quorum_size} can never be reached: the pool has at most {possible} "
                         f"target{'s' if possible != 1 else ''} ({parts}), so every connection not caught by "
                         "local-target-filter is refused as REFUSED_UNAVAILABLE", section=section)
