"""Sharded fleets (AR330-AR333): does every client id have exactly one pod that takes it?

The operator's sharding runs one router on every pod of a StatefulSet: CONSISTENT_HASH_MODULO turns a
key into a number below `MODULO`, and pod N's `local-target-filter` (`NULL|${STATEFUL_SET_ORDINAL}`,
or a `broker-N.` line) takes the keys whose number is N; every other pod refuses them and the client
walks on. Each value the filters can see is looked at (routing/shards.py), for the whole fleet when
arouter knows it: an operator CR (its `deploymentPlan.size` pods, each checked as the operator
configures it) or `arouter validate --replicas R` (R pods running this broker.xml, each with its
STATEFUL_SET_ORDINAL). `arouter fleet` gives the whole answer, over keys and changes too.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..config.model import BrokerConfig, ConnectionRouter
from ..config.positions import Pos
from ..diagnostics import Diagnostic, RuleMeta, Severity
from ..errors import ArouterError
from .base import Context

if TYPE_CHECKING:  # the engine is imported only for a config with a sharded router (validate's start-up)
    from ..routing.router import Router

_CR = """# cr.yaml
apiVersion: broker.amq.io/v1beta1
kind: ActiveMQArtemis
metadata:
  name: shard
spec:
  deploymentPlan:
    size: {size}
  brokerProperties:
    - connectionRouters.shard.keyType=CLIENT_ID
    - connectionRouters.shard.localTargetFilter={ltf}
    - connectionRouters.shard.policyConfiguration=CONSISTENT_HASH_MODULO
    - connectionRouters.shard.policyConfiguration.properties.MODULO={modulo}
"""


def _cr(size: int, modulo: int, ltf: str = "NULL|${{STATEFUL_SET_ORDINAL}}") -> str:
    return _CR.format(size=size, modulo=modulo, ltf=ltf.replace("{{", "{").replace("}}", "}"))


RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR330",
        name="fleet-modulo-not-pod-count",
        severity=Severity.WARNING,
        category="semantics",
        summary="A sharded router's `MODULO` is not the fleet's pod count.",
        doc="""\
With `MODULO=M` on P pods, the values P..M-1 have no pod when M > P (those clients retry for ever)
and pods M..P-1 take nobody when M < P. Scaling the StatefulSet does not change `MODULO`: change
both together (and expect most clients to move: `arouter fleet --new-cr` shows who).""",
        fail=_cr(2, 3),
        ok=_cr(3, 3),
    ),
    RuleMeta(
        id="AR331",
        name="fleet-value-without-home",
        severity=Severity.ERROR,
        category="semantics",
        summary="A value of a sharded router that no pod of the fleet takes: its clients are refused everywhere.",
        doc="""\
Every pod refuses a client whose value no pod's `local-target-filter` takes, so the client retries
for ever. Proven over every value (MODULO's residues and NULL). Before Artemis 2.23 the value of a
negative hash was negative: filters then need `N|-N` (`--broker-version`).""",
        fail=_cr(3, 3, "NULL|0|1"),
        ok=_cr(3, 3),
    ),
    RuleMeta(
        id="AR332",
        name="fleet-value-several-homes",
        severity=Severity.ERROR,
        category="semantics",
        summary="A value of a sharded router that several pods take: one client's sessions split between brokers.",
        doc="""\
A client id two pods take may connect to either, so its sessions, subscriptions and messages are
split between brokers. Write each pod's own number in its filter (`${STATEFUL_SET_ORDINAL}` or a
`broker-N.` line), not the same list on every pod. `NULL` (a client without an id) on every pod is
the sharding examples' intent and is not reported.""",
        fail=_cr(2, 2, "NULL|0|1"),
        ok=_cr(2, 2),
    ),
    RuleMeta(
        id="AR333",
        name="fleet-ordinal-missing",
        severity=Severity.WARNING,
        category="semantics",
        summary="A sharded router's `local-target-filter` takes no MODULO value: its ordinal is missing.",
        doc="""\
The filter matches none of `0..MODULO-1`: this pod takes only clients without a key. Usually the
pod's number came from a variable that is not defined where the broker runs (the broker substitutes
the empty string: `NULL|${STATEFULSET_ORDINAL}` becomes `NULL|`). The operator sets
`STATEFUL_SET_ORDINAL`; elsewhere pass it, or write the number.""",
        fail="""<connection-routers>
  <connection-router name="shard">
    <key-type>CLIENT_ID</key-type>
    <local-target-filter>NULL|${ARouterDocsUnsetOrdinal}</local-target-filter>
    <policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="3"/></policy>
  </connection-router>
</connection-routers>""",
        ok="""<connection-routers>
  <connection-router name="shard">
    <key-type>CLIENT_ID</key-type>
    <local-target-filter>NULL|${ARouterDocsUnsetOrdinal:0}</local-target-filter>
    <policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="3"/></policy>
  </connection-router>
</connection-routers>""",
    ),
]


def _sharded(config: BrokerConfig) -> dict[str, Router]:
    """The config's routers that shard (CONSISTENT_HASH_MODULO with MODULO > 0 and a local-target-filter)."""
    out: dict[str, Router] = {}
    for cfg in config.connection_routers:
        if cfg.policy is None or cfg.policy.name != "CONSISTENT_HASH_MODULO" or cfg.local_target_filter is None:
            continue
        if config.fleet is None and _takes_a_value(cfg.local_target_filter, cfg.policy.properties.get("MODULO")):
            continue  # one pod alone: only AR333 could apply, and the filter takes a MODULO value
        from ..routing.policies import ConsistentHashModuloPolicy
        from ..routing.router import build_routers

        try:
            (router,) = build_routers(config, names=[cfg.name])
        except (ArouterError, ValueError):
            continue  # not a router the broker deploys: other rules say why
        if isinstance(router.policy, ConsistentHashModuloPolicy) and router.policy.modulo > 0:
            out[cfg.name] = router
    return out


def _takes_a_value(pattern: str, modulo_text: str | None) -> bool:
    """Whether a plain local-target-filter (jregex.plain's subset) matches one of the MODULO values
    ``0..MODULO-1`` (``Matcher.matches``), answered without the engine (validate's start-up: the Java
    regex parser and the routing engine are not imported for a config whose sharded routers take their
    values). On these texts, ASCII digits without a line terminator, the plain subset means the same in
    ``re`` as in java.util.regex (tests/rules/test_fleet_quick.py holds it against the engine). False:
    not known here, or none taken - the engine answers."""
    from ..javastr import java_parse_int
    from ..jregex.plain import plain_notes

    modulo = java_parse_int(modulo_text)
    if modulo is None or not 0 < modulo <= 4096 or plain_notes(pattern) is None:
        return False
    import re

    try:
        found = re.compile(pattern).fullmatch  # Matcher.matches(), as the router asks its local-target-filter
    except re.error:
        return False
    return any(found(str(value)) is not None for value in range(modulo))


def _where(r: ConnectionRouter, config: BrokerConfig) -> Pos:
    for key in ("localTargetFilter", "local-target-filter"):
        if key in r.origins:
            return r.origins[key]
    field = r.fields.get("local-target-filter")
    return field.pos if field is not None else r.pos


def _fleet_routers(view: Any) -> tuple[tuple[str, tuple[Router | None, ...]], ...]:
    """Every pod's router of each name this fleet shards with (pods 0..size-1, read as each runs): worked
    out once per fleet, whichever pod's config asks (validate checks each pod of a CR)."""
    from dataclasses import replace

    return _fleet_of(replace(view, ordinal=0))


@lru_cache(maxsize=8)
def _fleet_of(view: Any) -> tuple[tuple[str, tuple[Router | None, ...]], ...]:
    import os

    from ..config import LoadOptions, load
    from ..config.properties import PropertiesOptions
    from ..config.properties.fleet import ORDINAL_VARIABLE

    configs = []
    for n in range(view.size):
        env = {**os.environ, ORDINAL_VARIABLE: str(n)}
        props = PropertiesOptions(paths=view.paths, cr=view.cr, ordinal=n if view.cr else None, beside=view.beside)
        try:
            configs.append(load(view.xml_path, LoadOptions(dict(view.defines), environ=env, broker_properties=props)))
        except ArouterError:
            return ()
    per_pod = [_sharded(c) for c in configs]
    names = dict.fromkeys(name for pods in per_pod for name in pods)
    return tuple((name, tuple(pods.get(name) for pods in per_pod)) for name in names)


def check(ctx: Context) -> Iterator[Diagnostic]:
    config = ctx.config
    sharded = ctx.shared(_sharded)
    if sharded:
        from ..routing.keys import NULL_KEY
        from ..routing.shards import domain, rule_of
    for name, router in sharded.items():
        rule, _ = rule_of(router)
        values = [v for v in domain([rule]) if v.label != NULL_KEY]
        if not any(router.local_target_filter is not None and router.local_target_filter.matches(v.values[0])
                   for v in values):
            cfg = config.router(name)
            assert cfg is not None
            yield ctx.report("AR333", _where(cfg, config),
                             f"connection router {name!r}: local-target-filter "
                             f"{router.local_target_filter.source if router.local_target_filter else ''!r} takes none "
                             f"of the MODULO values 0..{rule[0] - 1 if rule else 0}: this pod takes only clients "
                             "without a key", section=f"connection-router {name}",
                             hint="is its ordinal an undefined variable? The broker substitutes \"\" for one")
    view = config.fleet
    if view is None or not sharded:
        return
    for name, routers in _fleet_routers(view):
        cfg = config.router(name)
        if cfg is None or name not in sharded:
            continue
        yield from _fleet_findings(ctx, cfg, view.size, list(routers))


def _fleet_findings(ctx: Context, cfg: ConnectionRouter, size: int,
                    routers: list[Router | None]) -> Iterator[Diagnostic]:
    from ..routing.keys import NULL_KEY
    from ..routing.policies import ConsistentHashModuloPolicy
    from ..routing.shards import homes, rules_of

    where, section = _where(cfg, ctx.config), f"connection-router {cfg.name}"
    moduli = sorted({r.policy.modulo for r in routers if r is not None and isinstance(r.policy,
                                                                                      ConsistentHashModuloPolicy)})
    if any(m != size for m in moduli):
        yield ctx.report("AR330", where, f"connection router {cfg.name!r}: MODULO {', '.join(map(str, moduli))} on "
                         f"a fleet of {size} pod(s)", section=section,
                         hint=f"MODULO={size}, or as many pods as MODULO")
    rules, why = rules_of(routers)
    if why is not None:
        return
    found = homes(routers, rules)
    none = [v for v, pods in found.items() if not pods]
    several = [(v, pods) for v, pods in found.items() if len(pods) > 1 and v != NULL_KEY]
    if none:
        yield ctx.report("AR331", where, f"connection router {cfg.name!r}: no pod of {size} takes the value(s) "
                         f"{', '.join(none[:8])} (proven over every value)", section=section,
                         hint="arouter fleet shows each value's pods")
    if several:
        shown = "; ".join(f"{v} on pods {', '.join(map(str, pods))}" for v, pods in several[:8])
        yield ctx.report("AR332", where, f"connection router {cfg.name!r}: several pods take {shown}", section=section,
                         hint="write each pod's own number in its filter")
