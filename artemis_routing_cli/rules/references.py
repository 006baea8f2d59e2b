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

from ..config.model import Acceptor, BrokerConfig, ClusterConnection, Pool
from ..config.positions import Pos
from ..diagnostics import DEPLOYS, REFUSES, SKIPS, Diagnostic, RuleMeta, Severity
from ..javastr import java_trim
from ._util import (
    connector_names,
    defined_connectors,
    deployed_cluster_connections,
    real_cluster_connections,
    router_elements,
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
        broker=SKIPS,
        summary="A pool's static `<connector-ref>` names no `<connector>`.",
        doc="""\
The broker builds a static pool from the connectors it can find and only logs
"Static connector not found" for the others, so the pool silently has fewer targets than
written. When none of the pool's connectors exist the pool has no remote target at all
(only the local broker, if `local-target-enabled`), and this is reported as an error.
The broker reads a static `<connector-ref>` as its first child node, **untrimmed**:
`<connector-ref> b1 </connector-ref>` names " b1 ", which matches nothing; a comment in front
becomes the name; an empty `<connector-ref/>` is a NullPointerException and the broker does
not start (error).""",
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
        broker=REFUSES,
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
        broker=REFUSES,
        summary="A pool's `<cluster-connection>` names no cluster connection the broker deploys.",
        doc="""\
A cluster pool takes its targets from the topology of the named cluster connection. The
broker looks the name up when the router is deployed and does not check the result; the
router then fails as it starts and the broker does not start. A cluster connection the broker
does not deploy counts as missing: one whose own `<connector-ref>` names no connector (AR206)
or whose `<discovery-group-ref>` names no discovery group (AR202).""",
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
        broker=SKIPS,
        summary="A cluster connection's `<connector-ref>` or static `<connector-ref>` names no connector.",
        doc="""\
The broker reads a cluster connection only when its own `<connector-ref>` names a defined
connector; otherwise it logs "connector-ref not found" and skips the whole cluster connection:
no clustering, no message load balancing. When a static `<connector-ref>` names no connector,
the broker drops the whole static list (it connects to none of the listed brokers). Static
`<connector-ref>`s are read untrimmed, as their first child node (see AR201); an empty one
stops the broker.""",
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
        broker=SKIPS,
        summary="A broadcast group's `<connector-ref>` names no connector.",
        doc="""\
The broker logs that the broadcast group has no connector and does not create the group at
all, so this broker is never announced and discovery-based clusters and pools elsewhere never
see it. Only the first `<connector-ref>` matters: the broker reads it once for every
`<connector-ref>` child (AR209).""",
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
acceptors with one name and different transport parameters make the broker fail at start-up
(error); two that the broker reads as the same parameters (the same URL written with `;` or `&`,
other whitespace or another parameter order) count once. Duplicate names of diverts, cluster
connections, broadcast and discovery groups are schema errors (AR105).""",
        fail="""<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
  <connector name="b1">tcp://broker2:61616</connector>
</connectors>""",
        ok=_CONNECTORS,
    ),
    RuleMeta(
        id="AR209",
        name="broadcast-connector-refs",
        severity=Severity.WARNING,
        category="reference",
        summary="A broadcast group with several `<connector-ref>`s: the broker announces the first one, repeated.",
        doc="""\
For each `<connector-ref>` child the broker calls `getString(group, "connector-ref")`, which
returns the **first** one every time: a group listing `b1` and `b2` announces `b1` twice and
never `b2`. Clients and pools that discover this broker only learn the first connector. Keep
one `<connector-ref>` per broadcast group (a second group can announce another connector).""",
        fail=_CONNECTORS + """<broadcast-groups>
  <broadcast-group name="bg1">
    <group-address>231.7.7.7</group-address>
    <group-port>9876</group-port>
    <connector-ref>b1</connector-ref>
    <connector-ref>b2</connector-ref>
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
]


def check(ctx: Context) -> Iterator[Diagnostic]:
    config = ctx.config
    yield from _pools(ctx, config)
    yield from _discovery_refs(ctx, config)
    yield from _acceptor_routers(ctx, config)
    yield from _cluster_connectors(ctx, config)
    yield from _broadcast_connectors(ctx, config)
    yield from _duplicates(ctx, config)


def _pools(ctx: Context, config: BrokerConfig) -> Iterator[Diagnostic]:
    connectors = ctx.shared(connector_names)
    deployed = {cc.name for cc in ctx.shared(deployed_cluster_connections)}
    written = {cc.name: cc for cc in ctx.shared(real_cluster_connections)}
    for router in config.connection_routers:
        pool = router.pool
        if pool is None:
            continue
        section = f"connection-router {router.name}"
        if pool.source == "cluster":
            name = pool.cluster_connection or ""
            if name not in deployed:
                field = pool.fields.get("cluster-connection")
                set_at = router.set_at("poolConfiguration.clusterConnection")
                cc = written.get(name)
                if cc is None:
                    why = "but there is no such cluster connection" + _ref_reason(name, set(written))
                elif cc.connector_ref not in connectors:
                    why = "which the broker skips because its <connector-ref> names no connector"
                else:
                    why = (f"which the broker skips because its <discovery-group-ref> names no discovery group "
                           f"('{cc.discovery_group}')")
                yield ctx.report(
                    "AR203", set_at or (field.pos if field else pool.pos),
                    f"pool names cluster connection {name!r}, {why}: the router fails as it starts "
                    "and the broker does not start", section=section)
        elif pool.source == "static":
            if not any(pool.static_connector_empty) and connectors.issuperset(pool.static_connectors):
                continue  # every ref has text and names a connector: nothing to say
            yield from _static_pool(ctx, pool, connectors, section, _refs(pool.static_connectors,
                                                                          pool.static_connector_pos,
                                                                          pool.static_connector_empty))


def _refs(names: tuple[str, ...], positions: tuple[Pos, ...], empty: tuple[bool, ...]) -> list[tuple[str | None, Pos]]:
    """The model's static refs, None where the element has no child node (as the broker reads them)."""
    return [(None if gone else name, pos) for name, pos, gone in zip(names, positions, empty or (False,) * len(names),
                                                                   strict=False)]


def _static_pool(ctx: Context, pool: Pool, connectors: set[str], section: str,
                 refs: list[tuple[str | None, Pos]]) -> Iterator[Diagnostic]:
    for value, pos in refs:
        if value is None:
            yield ctx.report("AR201", pos, "<connector-ref> has no text: the broker reads its first child node, gets "
                             "none and fails with a NullPointerException (it does not start)", section=section,
                             severity=Severity.ERROR, broker=REFUSES)
    named = [(value, pos) for value, pos in refs if value is not None]
    missing = [(name, pos) for name, pos in named if name not in connectors]
    if not missing:
        return
    none_left = len(missing) == len(named)
    for name, pos in missing:
        why = _ref_reason(name, connectors)
        if none_left:
            rest = ("only the local broker is left" if pool.local_target_enabled
                    else "the pool has no target and every connection not local is refused")
            yield ctx.report("AR201", pos,
                             f"connector-ref {name!r} names no connector{why} and none of the pool's connectors "
                             f"exist: {rest}", section=section, severity=Severity.ERROR)
        else:
            yield ctx.report("AR201", pos,
                             f"connector-ref {name!r} names no connector{why}: the broker logs 'Static connector "
                             "not found' and leaves it out of the pool", section=section)


def _ref_reason(name: str, names: set[str]) -> str:
    """Why a reference the user probably meant as an existing name does not match one."""
    trimmed = java_trim(name)
    if trimmed != name and trimmed in names:
        return (f" (the broker does not trim static connector-refs: {name!r} is not {trimmed!r}; "
                "remove the whitespace)")
    if name.strip() in names:
        return f" (it holds a character Java's trim keeps, such as a no-break space: {name!r})"
    return ""


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
            set_at = router.set_at("poolConfiguration.discoveryGroupName")
            refs.append((pool.discovery_group or "", set_at or (field.pos if field else pool.pos),
                         f"connection-router {router.name}",
                         "the router fails as it starts and the broker does not start"))
    for cc in ctx.shared(real_cluster_connections):
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
                         section=section, broker=REFUSES if section.startswith("connection-router") else SKIPS)


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
    connectors = ctx.shared(connector_names)
    for cc in ctx.shared(real_cluster_connections):
        if cc.uri is not None or cc.connector_ref is None:
            continue  # -uri forms, and a router pool's <cluster-connection> (see real_cluster_connections)
        section = f"cluster-connection {cc.name}"
        field = cc.fields.get("connector-ref")
        if not cc.connector_ref:
            continue  # an empty <connector-ref> stops the broker: AR311 says so
        if cc.connector_ref not in connectors:
            yield ctx.report("AR206", field.pos if field else cc.pos,
                             f"connector-ref {cc.connector_ref!r} names no connector"
                             f"{_ref_reason(cc.connector_ref, connectors)}: the broker skips the whole cluster "
                             f"connection '{cc.name}'", section=section)
            continue  # the broker reads nothing more of it
        for name, pos in _static_refs(cc):
            if name is None:
                yield ctx.report("AR206", pos, "<connector-ref> has no text: the broker reads its first child node, "
                                 "gets none and fails with a NullPointerException (it does not start)",
                                 section=section, broker=REFUSES)
            elif name not in connectors:
                yield ctx.report("AR206", pos,
                                 f"static connector-ref {name!r} names no connector{_ref_reason(name, connectors)}: "
                                 "the broker drops the whole static list and connects to none of the listed brokers",
                                 section=section)


def _static_refs(cc: ClusterConnection) -> list[tuple[str | None, Pos]]:
    if cc.discovery_group is not None:
        return []
    return _refs(cc.static_connectors, cc.static_connector_pos, cc.static_connector_empty)


def _broadcast_connectors(ctx: Context, config: BrokerConfig) -> Iterator[Diagnostic]:
    connectors = ctx.shared(connector_names)
    for bg in config.broadcast_groups:
        if not bg.connector_refs:
            continue
        section = f"broadcast-group {bg.name}"
        first = bg.connector_refs[0]
        if len(bg.written_refs) > 1:
            others = [ref for ref in bg.written_refs[1:] if ref != first]
            lost = f"; {', '.join(repr(r) for r in dict.fromkeys(others))} never" if others else ""
            yield ctx.report("AR209", bg.connector_ref_pos[1],
                             f"broadcast group '{bg.name}' has {len(bg.written_refs)} <connector-ref>s: the broker "
                             f"reads the first one for each, so it announces {first!r} {len(bg.written_refs)} "
                             f"times{lost}", section=section)
        if first and first not in connectors:
            yield ctx.report("AR207", bg.connector_ref_pos[0],
                             f"connector-ref {first!r} names no connector: the broker does not create "
                             f"broadcast group '{bg.name}', so this broker is never announced", section=section)


def _duplicates(ctx: Context, config: BrokerConfig) -> Iterator[Diagnostic]:
    seen_routers: dict[str, Pos] = {}
    for router, _ in ctx.shared(router_elements):
        first = seen_routers.get(router.name)
        if first is not None:
            yield ctx.report("AR208", first,
                             f"connection router '{router.name}' is defined again at line {router.pos.line}: the "
                             "broker uses the last definition and drops this one",
                             section=f"connection-router {router.name}", broker=DEPLOYS)
        seen_routers[router.name] = router.pos
    first_connector: dict[str, etree._Element] = {}  # positions only for what is reported
    for el in ctx.shared(defined_connectors):
        name = el.get("name") or ""
        if name in first_connector:
            where = ctx.locate(first_connector[name])
            yield ctx.report("AR208", ctx.locate(el),
                             f"connector '{name}' is already defined at line {where.line}: the broker keeps the "
                             "first and ignores this one", section=f"connector {name}", broker=SKIPS)
        else:
            first_connector[name] = el
    yield from _duplicate_acceptors(ctx, config)


def _duplicate_acceptors(ctx: Context, config: BrokerConfig) -> Iterator[Diagnostic]:
    """The broker keeps acceptors in a HashSet (TransportConfiguration.equals: name, factory, params,
    extraProps) and then maps them by name: equal ones count once, others with one name throw."""
    first: dict[str, Acceptor] = {}
    for acceptor in config.acceptors:
        name = acceptor.name
        if name not in first:
            first[name] = acceptor
            continue
        earlier = first[name]
        section = f"acceptor {name}"
        if _same_transport(acceptor, earlier):
            yield ctx.report("AR208", acceptor.pos,
                             f"acceptor '{name}' is written twice (first at line {earlier.pos.line}); the broker reads "
                             "the same transport parameters and counts it once", section=section, broker=DEPLOYS)
        else:
            yield ctx.report("AR208", acceptor.pos,
                             f"acceptor name '{name}' is already used at line {earlier.pos.line} with other "
                             "transport parameters: the broker fails at start-up (duplicate acceptor name)",
                             section=section, severity=Severity.ERROR, broker=REFUSES)


def _same_transport(a: Acceptor, b: Acceptor) -> bool:
    return (a.url.kind == b.url.kind and dict(a.url.params) == dict(b.url.params)
            and dict(a.url.extra_props) == dict(b.url.extra_props))
