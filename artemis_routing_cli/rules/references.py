"""References (AR2xx): names that point at nothing, or at something written twice.

broker.xml ties its parts together by name: a router's pool names connectors, a discovery
group or a cluster connection; an acceptor names its router with ``router=``; a cluster
connection names its own connector and its static peers; a broadcast group names the
connectors it announces. The broker checks almost none of these at start-up: it logs a line
and quietly leaves the part out, so the mistake shows only as clients that are refused or a
cluster that never forms. Names the broker's schema wants unique across ``<core>`` (diverts,
cluster connections, broadcast and discovery groups) and discovery-group names that match
nothing at all are schema errors (AR105, AR106); these rules cover the rest.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from ..config.model import BrokerConfig, ClusterConnection, Pool
from ..config.positions import Pos
from ..diagnostics import Diagnostic, RuleMeta, Severity
from ._util import (
    child_elements,
    cluster_elements,
    connector_names,
    defined_connectors,
    local,
    real_cluster_connections,
    router_elements,
    text_content,
)
from .base import Context

_CONNECTORS = """<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
  <connector name="b2">tcp://broker2:61616</connector>
</connectors>
"""

RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR201",
        name="pool-connector-unknown",
        severity=Severity.WARNING,
        category="reference",
        summary="A pool's static `<connector-ref>` names no `<connector>`.",
        doc="""\
The broker builds a static pool from the connectors it can find and only logs
"Static connector not found" for the others, so the pool silently has fewer targets than
written. When none of the pool's connectors exist the pool has no remote target at all
(only the local broker, if `local-target-enabled`), and this is reported as an error.""",
        fail=_CONNECTORS + """<connection-routers>
  <connection-router name="r1">
    <policy name="FIRST_ELEMENT"/>
    <pool>
      <static-connectors>
        <connector-ref>b1</connector-ref>
        <connector-ref>b3</connector-ref>
      </static-connectors>
    </pool>
  </connection-router>
</connection-routers>""",
        ok=_CONNECTORS + """<connection-routers>
  <connection-router name="r1">
    <policy name="FIRST_ELEMENT"/>
    <pool>
      <static-connectors>
        <connector-ref>b1</connector-ref>
        <connector-ref>b2</connector-ref>
      </static-connectors>
    </pool>
  </connection-router>
</connection-routers>""",
    ),
    RuleMeta(
        id="AR202",
        name="discovery-group-unknown",
        severity=Severity.ERROR,
        category="reference",
        summary="A `<discovery-group-ref>` (pool or cluster connection) names something that is not a discovery group.",
        doc="""\
The broker's schema only checks that `discovery-group-name` matches *some* unique name in
`<core>` (a name that matches nothing is AR106); a broadcast group's or a divert's name
passes. The broker then finds no discovery group: a router pool fails when the router
starts (the broker does not start), and a cluster connection is logged and skipped.""",
        fail="""<broadcast-groups>
  <broadcast-group name="bg1">
    <group-address>231.7.7.7</group-address>
    <group-port>9876</group-port>
    <connector-ref>b1</connector-ref>
  </broadcast-group>
</broadcast-groups>
""" + _CONNECTORS + """<connection-routers>
  <connection-router name="r1">
    <policy name="CONSISTENT_HASH"/>
    <pool>
      <discovery-group-ref discovery-group-name="bg1"/>
    </pool>
  </connection-router>
</connection-routers>""",
        ok="""<broadcast-groups>
  <broadcast-group name="bg1">
    <group-address>231.7.7.7</group-address>
    <group-port>9876</group-port>
    <connector-ref>b1</connector-ref>
  </broadcast-group>
</broadcast-groups>
<discovery-groups>
  <discovery-group name="dg1">
    <group-address>231.7.7.7</group-address>
    <group-port>9876</group-port>
  </discovery-group>
</discovery-groups>
""" + _CONNECTORS + """<connection-routers>
  <connection-router name="r1">
    <policy name="CONSISTENT_HASH"/>
    <pool>
      <discovery-group-ref discovery-group-name="dg1"/>
    </pool>
  </connection-router>
</connection-routers>""",
    ),
    RuleMeta(
        id="AR203",
        name="pool-cluster-connection-unknown",
        severity=Severity.ERROR,
        category="reference",
        summary="A pool's `<cluster-connection>` names no cluster connection the broker deploys.",
        doc="""\
A cluster pool takes its targets from the topology of the named cluster connection. The
broker looks the name up when the router is deployed and does not check the result; the
router then fails as it starts and the broker does not start. A cluster connection whose own
`<connector-ref>` names no connector is skipped by the broker (AR206) and counts as missing.""",
        fail=_CONNECTORS + """<cluster-connections>
  <cluster-connection name="cc1">
    <connector-ref>b1</connector-ref>
  </cluster-connection>
</cluster-connections>
<connection-routers>
  <connection-router name="r1">
    <policy name="CONSISTENT_HASH"/>
    <pool>
      <cluster-connection>my-cluster</cluster-connection>
    </pool>
  </connection-router>
</connection-routers>""",
        ok=_CONNECTORS + """<cluster-connections>
  <cluster-connection name="my-cluster">
    <connector-ref>b1</connector-ref>
  </cluster-connection>
</cluster-connections>
<connection-routers>
  <connection-router name="r1">
    <policy name="CONSISTENT_HASH"/>
    <pool>
      <cluster-connection>my-cluster</cluster-connection>
    </pool>
  </connection-router>
</connection-routers>""",
    ),
    RuleMeta(
        id="AR204",
        name="acceptor-router-unknown",
        severity=Severity.ERROR,
        category="reference",
        summary="An acceptor's `router=` parameter names no connection router.",
        doc="""\
Each connection on that acceptor asks the broker for the named router; when there is none the
broker logs "connection router not found" and refuses the connection. Every client of that
acceptor is turned away.""",
        fail="""<acceptors>
  <acceptor name="artemis">tcp://0.0.0.0:61616?router=simple-routr;protocols=CORE,AMQP</acceptor>
</acceptors>
<connection-routers>
  <connection-router name="simple-router">
    <local-target-filter>.*</local-target-filter>
  </connection-router>
</connection-routers>""",
        ok="""<acceptors>
  <acceptor name="artemis">tcp://0.0.0.0:61616?router=simple-router;protocols=CORE,AMQP</acceptor>
</acceptors>
<connection-routers>
  <connection-router name="simple-router">
    <local-target-filter>.*</local-target-filter>
  </connection-router>
</connection-routers>""",
    ),
    RuleMeta(
        id="AR205",
        name="router-unused",
        severity=Severity.INFO,
        category="reference",
        summary="A connection router that no acceptor uses.",
        doc="""\
A router only sees connections that arrive on an acceptor with `router=NAME`. Without one it
is reachable only through the management API (`getTarget`), which is sometimes the point;
otherwise the router does nothing.""",
        fail="""<acceptors>
  <acceptor name="artemis">tcp://0.0.0.0:61616</acceptor>
</acceptors>
<connection-routers>
  <connection-router name="simple-router">
    <local-target-filter>.*</local-target-filter>
  </connection-router>
</connection-routers>""",
        ok="""<acceptors>
  <acceptor name="artemis">tcp://0.0.0.0:61616?router=simple-router</acceptor>
</acceptors>
<connection-routers>
  <connection-router name="simple-router">
    <local-target-filter>.*</local-target-filter>
  </connection-router>
</connection-routers>""",
    ),
    RuleMeta(
        id="AR206",
        name="cluster-connector-unknown",
        severity=Severity.ERROR,
        category="reference",
        summary="A cluster connection's `<connector-ref>` or static `<connector-ref>` names no connector.",
        doc="""\
The broker reads a cluster connection only when its own `<connector-ref>` names a defined
connector; otherwise it logs "connector-ref not found" and skips the whole cluster connection:
no clustering, no message load balancing. When a static `<connector-ref>` names no connector,
the broker drops the whole static list (it connects to none of the listed brokers).""",
        fail=_CONNECTORS + """<cluster-connections>
  <cluster-connection name="my-cluster">
    <connector-ref>netty-connector</connector-ref>
    <static-connectors>
      <connector-ref>b2</connector-ref>
    </static-connectors>
  </cluster-connection>
</cluster-connections>""",
        ok=_CONNECTORS + """<cluster-connections>
  <cluster-connection name="my-cluster">
    <connector-ref>b1</connector-ref>
    <static-connectors>
      <connector-ref>b2</connector-ref>
    </static-connectors>
  </cluster-connection>
</cluster-connections>""",
    ),
    RuleMeta(
        id="AR207",
        name="broadcast-connector-unknown",
        severity=Severity.ERROR,
        category="reference",
        summary="A broadcast group's `<connector-ref>` names no connector.",
        doc="""\
The broker logs that the broadcast group has no connector and does not create the group at
all, so this broker is never announced and discovery-based clusters and pools elsewhere never
see it.""",
        fail=_CONNECTORS + """<broadcast-groups>
  <broadcast-group name="bg1">
    <group-address>231.7.7.7</group-address>
    <group-port>9876</group-port>
    <connector-ref>netty-connector</connector-ref>
  </broadcast-group>
</broadcast-groups>""",
        ok=_CONNECTORS + """<broadcast-groups>
  <broadcast-group name="bg1">
    <group-address>231.7.7.7</group-address>
    <group-port>9876</group-port>
    <connector-ref>b1</connector-ref>
  </broadcast-group>
</broadcast-groups>""",
    ),
    RuleMeta(
        id="AR208",
        name="duplicate-name",
        severity=Severity.WARNING,
        category="reference",
        summary="Two connection routers, connectors or acceptors share a name.",
        doc="""\
The broker treats each kind differently: for connectors it keeps the **first** and logs
"already deployed"; for connection routers the **last** one replaces the earlier ones; two
acceptors with one name and different URLs make the broker fail at start-up (error), the same
acceptor written twice counts once. Duplicate names of diverts, cluster connections,
broadcast and discovery groups are schema errors (AR105).""",
        fail="""<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
  <connector name="b1">tcp://broker2:61616</connector>
</connectors>""",
        ok=_CONNECTORS,
    ),
]


def check(ctx: Context) -> Iterator[Diagnostic]:
    config = ctx.config
    yield from _pools(ctx, config)
    yield from _discovery_refs(ctx, config)
    yield from _acceptor_routers(ctx, config)
    yield from _cluster_connectors(ctx, config)
    yield from _broadcast_connectors(ctx, config)
    yield from _duplicates(ctx, config)


def _deployed_cluster_connections(config: BrokerConfig, connectors: set[str]) -> set[str]:
    return {cc.name for cc in real_cluster_connections(config)
            if cc.uri is not None or cc.connector_ref in connectors}


def _pools(ctx: Context, config: BrokerConfig) -> Iterator[Diagnostic]:
    connectors = connector_names(config)
    deployed = _deployed_cluster_connections(config, connectors)
    written = {cc.name for cc in real_cluster_connections(config)}
    for router in config.connection_routers:
        pool = router.pool
        if pool is None:
            continue
        section = f"connection-router {router.name}"
        if pool.source == "cluster":
            name = pool.cluster_connection or ""
            if name not in deployed:
                field = pool.fields.get("cluster-connection")
                why = ("which the broker skips because its <connector-ref> names no connector"
                       if name in written else "but there is no such cluster connection")
                yield ctx.report(
                    "AR203", field.pos if field else pool.pos,
                    f"pool names cluster connection '{name}', {why}: the router fails as it starts "
                    "and the broker does not start", section=section)
        elif pool.source == "static":
            yield from _static_pool(ctx, pool, connectors, section)


def _static_pool(ctx: Context, pool: Pool, connectors: set[str], section: str) -> Iterator[Diagnostic]:
    refs = zip(pool.static_connectors, pool.static_connector_pos, strict=False)
    missing = [(name, pos) for name, pos in refs if name not in connectors]
    if not missing:
        return
    none_left = len(missing) == len(pool.static_connectors)
    for name, pos in missing:
        if none_left:
            rest = ("only the local broker is left" if pool.local_target_enabled
                    else "the pool has no target and every connection not local is refused")
            yield ctx.report("AR201", pos,
                             f"connector-ref '{name}' names no connector and none of the pool's connectors "
                             f"exist: {rest}", section=section, severity=Severity.ERROR)
        else:
            yield ctx.report("AR201", pos,
                             f"connector-ref '{name}' names no connector: the broker logs 'Static connector "
                             "not found' and leaves it out of the pool", section=section)


def _schema_dangling(ctx: Context) -> set[tuple[str, int]]:
    """(file, line) of discovery-group refs the schema already reports as naming nothing (AR106)."""
    try:
        from ..config.schema_ids import id_problems
    except ImportError:  # pragma: no cover - schema layer absent
        return set()
    if ctx.config.core is None:
        return set()
    found = set()
    for problem in id_problems(ctx.config.core, ctx.locate):
        if problem.rule == "AR106":
            pos = ctx.locate(problem.element)
            found.add((pos.file, pos.line))
    return found


def _discovery_refs(ctx: Context, config: BrokerConfig) -> Iterator[Diagnostic]:
    refs: list[tuple[str, Pos, str, str]] = []
    for router in config.connection_routers:
        pool = router.pool
        if pool is not None and pool.source == "discovery":
            field = pool.fields.get("discovery-group-ref")
            refs.append((pool.discovery_group or "", field.pos if field else pool.pos,
                         f"connection-router {router.name}",
                         "the router fails as it starts and the broker does not start"))
    for cc in real_cluster_connections(config):
        if cc.discovery_group is not None:
            refs.append((cc.discovery_group, cc.discovery_group_pos or cc.pos, f"cluster-connection {cc.name}",
                         "the broker logs it and skips the cluster connection"))
    if not refs:
        return
    dangling = _schema_dangling(ctx)
    for name, pos, section, effect in refs:
        if name in config.discovery_groups or (pos.file, pos.line) in dangling:
            continue
        yield ctx.report("AR202", pos, f"discovery-group-ref '{name}' names no <discovery-group>: {effect}",
                         section=section)


def _acceptor_routers(ctx: Context, config: BrokerConfig) -> Iterator[Diagnostic]:
    routers = {r.name for r in config.connection_routers}
    used: set[str] = set()
    for acceptor in config.acceptors:
        name = acceptor.router
        if not name:
            continue
        used.add(name)
        if name not in routers:
            yield ctx.report("AR204", acceptor.pos,
                             f"acceptor '{acceptor.name}' uses router '{name}', which does not exist: the "
                             "broker refuses every connection on this acceptor", section=f"acceptor {acceptor.name}")
    for router in config.connection_routers:
        if router.name not in used:
            yield ctx.report("AR205", router.pos,
                             f"no acceptor has router={router.name}: the router sees no connection (only the "
                             "management API can use it)", section=f"connection-router {router.name}")


def _cluster_connectors(ctx: Context, config: BrokerConfig) -> Iterator[Diagnostic]:
    connectors = connector_names(config)
    for cc, el in cluster_elements(config):
        if cc.uri is not None or cc.connector_ref is None:
            continue  # -uri forms, and a router pool's <cluster-connection> (see real_cluster_connections)
        section = f"cluster-connection {cc.name}"
        field = cc.fields.get("connector-ref")
        if cc.connector_ref not in connectors:
            yield ctx.report("AR206", field.pos if field else cc.pos,
                             f"connector-ref '{cc.connector_ref}' names no connector: the broker skips the "
                             f"whole cluster connection '{cc.name}'", section=section)
        for name, pos in _static_refs(ctx, cc, el):
            if name not in connectors:
                yield ctx.report("AR206", pos,
                                 f"static connector-ref '{name}' names no connector: the broker drops the whole "
                                 "static list and connects to none of the listed brokers", section=section)


def _static_refs(ctx: Context, cc: ClusterConnection, el: etree._Element | None) -> list[tuple[str, Pos]]:
    if cc.discovery_group is not None:
        return []
    if el is None:
        return [(name, cc.static_connectors_pos or cc.pos) for name in cc.static_connectors]
    return [(text_content(ref).strip(), ctx.locate(ref))
            for static in child_elements(el, "static-connectors")
            for ref in child_elements(static, "connector-ref")]


def _broadcast_connectors(ctx: Context, config: BrokerConfig) -> Iterator[Diagnostic]:
    connectors = connector_names(config)
    for bg in config.broadcast_groups:
        for name in bg.connector_refs:
            if name not in connectors:
                field = bg.fields.get("connector-ref")
                yield ctx.report("AR207", field.pos if field else bg.pos,
                                 f"connector-ref '{name}' names no connector: the broker does not create "
                                 f"broadcast group '{bg.name}', so this broker is never announced",
                                 section=f"broadcast-group {bg.name}")


def _duplicates(ctx: Context, config: BrokerConfig) -> Iterator[Diagnostic]:
    seen_routers: dict[str, Pos] = {}
    for router, _ in router_elements(config):
        first = seen_routers.get(router.name)
        if first is not None:
            yield ctx.report("AR208", first,
                             f"connection router '{router.name}' is defined again at line {router.pos.line}: the "
                             "broker uses the last definition and drops this one",
                             section=f"connection-router {router.name}")
        seen_routers[router.name] = router.pos
    first_connector: dict[str, tuple[Pos, str]] = {}
    for el in defined_connectors(config):
        name = el.get("name") or ""
        url = (el.text or "").strip()
        pos = ctx.locate(el)
        if name in first_connector:
            where, _ = first_connector[name]
            yield ctx.report("AR208", pos,
                             f"connector '{name}' is already defined at line {where.line}: the broker keeps the "
                             "first and ignores this one", section=f"connector {name}")
        else:
            first_connector[name] = (pos, url)
    yield from _duplicate_acceptors(ctx, config)


def _duplicate_acceptors(ctx: Context, config: BrokerConfig) -> Iterator[Diagnostic]:
    if config.core is None:
        return
    first: dict[str, tuple[etree._Element, str]] = {}
    for el in config.core.iter("{*}acceptor"):
        parent = el.getparent()
        if parent is None or local(parent) != "acceptors":
            continue
        name = el.get("name") or ""
        url = "".join(el.itertext()).strip()
        if name not in first:
            first[name] = (el, url)
            continue
        pos = ctx.locate(el)
        first_el, first_url = first[name]
        where = ctx.locate(first_el)
        if url == first_url:
            yield ctx.report("AR208", pos,
                             f"acceptor '{name}' is written twice (first at line {where.line}); the broker counts it "
                             "once", section=f"acceptor {name}")
        else:
            yield ctx.report("AR208", pos,
                             f"acceptor name '{name}' is already used at line {where.line} with another URL: the "
                             "broker fails at start-up (duplicate acceptor name)", section=f"acceptor {name}",
                             severity=Severity.ERROR)
