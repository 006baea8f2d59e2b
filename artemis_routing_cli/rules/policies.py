"""Router policies (AR301-AR306, AR314, AR317): the `<policy>` of a connection router.

The policy picks a target from the pool (FIRST_ELEMENT, ROUND_ROBIN, CONSISTENT_HASH,
LEAST_CONNECTIONS) or transforms the key (CONSISTENT_HASH_MODULO, which never picks a target).
The broker resolves the name while it reads broker.xml and calls the policy's ``init`` with
the `<property>` map when it deploys the router; a wrong name or a property ``init`` cannot
parse stops the broker. A router works only with both a policy and a pool, except for the
sharding pattern (CONSISTENT_HASH_MODULO plus `local-target-filter`, no pool).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..config.model import POLICY_NAMES, ConnectionRouter, Policy
from ..diagnostics import DEPLOYS, REFUSES, Diagnostic, RuleMeta, Severity
from ._util import java_parse_int
from .base import Context

MODULO = "MODULO"  # ConsistentHashModuloPolicy.MODULO
THRESHOLD = "CONNECTION_COUNT_THRESHOLD"  # LeastConnectionsPolicy.CONNECTION_COUNT_THRESHOLD
CHM = "CONSISTENT_HASH_MODULO"

# The property keys each policy's init() reads; every other key is ignored.
PROPERTIES_READ: dict[str, tuple[str, ...]] = {
    "FIRST_ELEMENT": (),
    "ROUND_ROBIN": (),
    "CONSISTENT_HASH": (),
    "LEAST_CONNECTIONS": (THRESHOLD,),
    CHM: (MODULO,),
}

_POOL = """<pool>
      <static-connectors><connector-ref>b1</connector-ref></static-connectors>
    </pool>"""
_CONNECTORS = """<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
</connectors>
"""


def _router(body: str, name: str = "r1") -> str:
    return f"""<connection-routers>
  <connection-router name="{name}">
    {body}
  </connection-router>
</connection-routers>"""


RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR301",
        name="policy-unknown",
        severity=Severity.ERROR,
        category="semantics",
        broker=REFUSES,
        summary="`<policy name>` is not one of the broker's policies.",
        doc="""\
The broker knows exactly FIRST_ELEMENT, ROUND_ROBIN, CONSISTENT_HASH, LEAST_CONNECTIONS and
CONSISTENT_HASH_MODULO, spelled in upper case with no spaces around them. Any other name makes
it throw "No PolicyFactory found for the policy" while reading broker.xml: the broker does
not start.""",
        fail=_CONNECTORS + _router('<policy name="ROUND-ROBIN"/>\n    ' + _POOL),
        ok=_CONNECTORS + _router('<policy name="ROUND_ROBIN"/>\n    ' + _POOL),
    ),
    RuleMeta(
        id="AR302",
        name="modulo-missing",
        severity=Severity.ERROR,
        category="semantics",
        broker=REFUSES,
        summary="CONSISTENT_HASH_MODULO without a `MODULO` property, or with one that is not an integer.",
        doc="""\
The policy's init does `Integer.parseInt(properties.get("MODULO"))`: with no `MODULO`
property that is `parseInt(null)`, and a value such as `3.0`, ` 3` (Java does not trim) or
`three` fails the same way. The NumberFormatException escapes while the broker deploys its
routers, so the broker does not start. A `MODULO` of 0 or less parses but turns the
transformation off (warning): keys stay as they are.""",
        fail=_router('<local-target-filter>^0$</local-target-filter>\n    <policy name="CONSISTENT_HASH_MODULO"/>'),
        ok=_router('<local-target-filter>^0$</local-target-filter>\n'
                   '    <policy name="CONSISTENT_HASH_MODULO">\n'
                   '      <property key="MODULO" value="3"/>\n    </policy>'),
    ),
    RuleMeta(
        id="AR303",
        name="modulo-wrong-case",
        severity=Severity.ERROR,
        category="semantics",
        broker=REFUSES,
        summary="A policy property spelled `modulo` (or any case but `MODULO`); the broker reads only `MODULO`.",
        doc="""\
The user manual says CONSISTENT_HASH_MODULO "takes a single `modulo` property"; the broker
looks up the key `MODULO`, case-sensitively, and ignores `modulo`. **The manual is wrong.**
Written alone, `modulo` leaves `MODULO` missing, `Integer.parseInt(null)` fails and the broker
does not start (error); next to a `MODULO` it is merely ignored (warning).""",
        fail=_router('<local-target-filter>^0$</local-target-filter>\n'
                     '    <policy name="CONSISTENT_HASH_MODULO">\n'
                     '      <property key="modulo" value="3"/>\n    </policy>'),
        ok=_router('<local-target-filter>^0$</local-target-filter>\n'
                   '    <policy name="CONSISTENT_HASH_MODULO">\n'
                   '      <property key="MODULO" value="3"/>\n    </policy>'),
    ),
    RuleMeta(
        id="AR304",
        name="modulo-with-pool",
        severity=Severity.WARNING,
        category="semantics",
        summary="CONSISTENT_HASH_MODULO with a pool: the policy never selects a target.",
        doc="""\
CONSISTENT_HASH_MODULO only transforms the key; its target selection always returns nothing.
With a pool, every connection whose transformed key is not caught by `local-target-filter`
is refused as REFUSED_UNAVAILABLE ("not ready"), however healthy the pool is. Use it without a
pool, with a `local-target-filter` such as `^0$` on broker 0 (sharding), or pick a selecting
policy such as CONSISTENT_HASH.""",
        fail=_CONNECTORS + _router('<local-target-filter>^0$</local-target-filter>\n'
                                   '    <policy name="CONSISTENT_HASH_MODULO">\n'
                                   '      <property key="MODULO" value="3"/>\n    </policy>\n    ' + _POOL),
        ok=_router('<local-target-filter>^0$</local-target-filter>\n'
                   '    <policy name="CONSISTENT_HASH_MODULO">\n'
                   '      <property key="MODULO" value="3"/>\n    </policy>'),
    ),
    RuleMeta(
        id="AR305",
        name="policy-pool-mismatch",
        severity=Severity.WARNING,
        category="semantics",
        summary="A router with a policy but no pool, a pool but no policy, or neither and no local-target-filter.",
        doc="""\
After the local-target-filter check, the broker refuses every connection with
REFUSED_USE_ANOTHER when the router lacks a policy or a pool; half of the pair does nothing.
Two patterns are fine and not reported: CONSISTENT_HASH_MODULO without a pool but with a
`local-target-filter` (sharding), and a router with only a `local-target-filter`
(partitioning: clients that belong elsewhere are refused).""",
        fail=_router('<policy name="ROUND_ROBIN"/>'),
        ok=_CONNECTORS + _router('<policy name="ROUND_ROBIN"/>\n    ' + _POOL),
    ),
    RuleMeta(
        id="AR306",
        name="policy-repeated",
        severity=Severity.WARNING,
        category="semantics",
        summary="A router has more than one `<policy>`; the broker uses the last one.",
        doc="""\
The broker's schema lets a router's children repeat, and the broker reads every `<policy>` in
turn, each replacing the one before: the **last** one wins, with its own properties only.
The user manual's `consistent-hash-router` example carries two.""",
        fail=_CONNECTORS + _router('<policy name="CONSISTENT_HASH"/>\n    ' + _POOL
                                   + '\n    <policy name="FIRST_ELEMENT"/>'),
        ok=_CONNECTORS + _router('<policy name="CONSISTENT_HASH"/>\n    ' + _POOL),
    ),
    RuleMeta(
        id="AR314",
        name="threshold-not-integer",
        severity=Severity.ERROR,
        category="semantics",
        broker=REFUSES,
        summary="LEAST_CONNECTIONS `CONNECTION_COUNT_THRESHOLD` is not an integer.",
        doc="""\
LEAST_CONNECTIONS reads `CONNECTION_COUNT_THRESHOLD` with `Integer.parseInt` (no trimming) when
the property is present; a value that does not parse stops the broker while it deploys the
router.""",
        fail=_CONNECTORS + _router('<policy name="LEAST_CONNECTIONS">\n'
                                   '      <property key="CONNECTION_COUNT_THRESHOLD" value="10 "/>\n'
                                   '    </policy>\n    ' + _POOL),
        ok=_CONNECTORS + _router('<policy name="LEAST_CONNECTIONS">\n'
                                 '      <property key="CONNECTION_COUNT_THRESHOLD" value="10"/>\n'
                                 '    </policy>\n    ' + _POOL),
    ),
    RuleMeta(
        id="AR317",
        name="policy-property-ignored",
        severity=Severity.WARNING,
        category="semantics",
        summary="A policy `<property>` the policy never reads.",
        doc="""\
Only two properties mean anything: `MODULO` for CONSISTENT_HASH_MODULO and
`CONNECTION_COUNT_THRESHOLD` for LEAST_CONNECTIONS, both case-sensitive. Any other key is
kept in the policy's map and never looked at. (`modulo` is AR303.)""",
        fail=_CONNECTORS + _router('<policy name="ROUND_ROBIN">\n'
                                   '      <property key="CONNECTION_COUNT_THRESHOLD" value="10"/>\n'
                                   '    </policy>\n    ' + _POOL),
        ok=_CONNECTORS + _router('<policy name="ROUND_ROBIN"/>\n    ' + _POOL),
    ),
]


def check(ctx: Context) -> Iterator[Diagnostic]:
    for router in ctx.config.connection_routers:
        if not _quiet(router):
            yield from _router_findings(ctx, router)


def _router_findings(ctx: Context, router: ConnectionRouter) -> Iterator[Diagnostic]:
    """What the family says about one router (:func:`_quiet` answers "nothing" for the usual one)."""
    section = f"connection-router {router.name}"
    for policy in router.policies:
        if policy.name not in POLICY_NAMES:
            yield ctx.report("AR301", policy.pos, _unknown_message(policy.name), section=section)
    yield from _repeated(ctx, router, section)
    policy = router.policy
    if policy is not None and policy.name in POLICY_NAMES:
        yield from _properties(ctx, policy, section)
    yield from _pairing(ctx, router, section)


def _quiet(router: ConnectionRouter) -> bool:
    """True when the checks below certainly say nothing about ``router`` (the usual router: one known
    policy other than CONSISTENT_HASH_MODULO, with a pool, reading every property written), found
    without their generators; False when they must look."""
    policy, policies = router.policy, router.policies
    if policy is None or router.pool is None or len(policies) != 1 or policies[0] is not policy:
        return False
    name = policy.name
    if name == CHM or name not in POLICY_NAMES:
        return False
    props = policy.properties
    if name == "LEAST_CONNECTIONS" and THRESHOLD in props:
        return False
    if props:
        read = PROPERTIES_READ[name]
        return all(key in read for key in props)
    return True


def _unknown_message(name: str) -> str:
    guess = name.strip().upper().replace("-", "_").replace(" ", "_")
    text = f"policy '{name}' does not exist: the broker refuses to start (No PolicyFactory found)"
    if guess in POLICY_NAMES:
        text += f"; did you mean {guess}?"
    return text


def _repeated(ctx: Context, router: ConnectionRouter, section: str) -> Iterator[Diagnostic]:
    if len(router.policies) < 2:
        return
    last = router.policies[-1]
    for earlier in router.policies[:-1]:
        yield ctx.report("AR306", earlier.pos,
                         f"<policy name=\"{earlier.name}\"> is replaced: the broker uses the last <policy>: "
                         f"{last.name} (line {last.pos.line})", section=section)


def _properties(ctx: Context, policy: Policy, section: str) -> Iterator[Diagnostic]:
    props = policy.properties
    read = PROPERTIES_READ[policy.name]
    for key in props:
        if key in read:
            continue
        pos = policy.property_pos.get(key, policy.pos)
        if key.upper() == MODULO:
            if policy.name == CHM and MODULO not in props:
                yield ctx.report("AR303", pos,
                                 f"property '{key}' is ignored: the broker reads only 'MODULO' (the user manual's "
                                 "lower-case 'modulo' is wrong), so MODULO is missing and the broker refuses to "
                                 "start", section=section)
            else:
                yield ctx.report("AR303", pos,
                                 f"property '{key}' is ignored: the broker reads only 'MODULO'", section=section,
                                 severity=Severity.WARNING, broker=DEPLOYS)
        else:
            yield ctx.report("AR317", pos,
                             f"property '{key}' is ignored: {policy.name} reads "
                             + (", ".join(f"'{k}'" for k in read) if read else "no property"), section=section)
    if policy.name == CHM:
        yield from _modulo(ctx, policy, section)
    elif policy.name == "LEAST_CONNECTIONS" and THRESHOLD in props:
        value = props[THRESHOLD]
        if java_parse_int(value) is None:
            yield ctx.report("AR314", policy.property_pos.get(THRESHOLD, policy.pos),
                             f"CONNECTION_COUNT_THRESHOLD '{value}' is not an integer (Integer.parseInt does not "
                             "trim): the broker refuses to start", section=section)


def _modulo(ctx: Context, policy: Policy, section: str) -> Iterator[Diagnostic]:
    props = policy.properties
    if MODULO not in props:
        if any(k.upper() == MODULO for k in props):
            return  # AR303 says it, with the reason
        yield ctx.report("AR302", policy.pos,
                         "CONSISTENT_HASH_MODULO has no MODULO property: Integer.parseInt(null) fails and the "
                         "broker refuses to start", section=section)
        return
    value = props[MODULO]
    pos = policy.property_pos.get(MODULO, policy.pos)
    number = java_parse_int(value)
    if number is None:
        yield ctx.report("AR302", pos,
                         f"MODULO '{value}' is not an integer (Integer.parseInt does not trim): the broker "
                         "refuses to start", section=section)
    elif number <= 0:
        yield ctx.report("AR302", pos,
                         f"MODULO {number} turns the transformation off: the broker keeps every key as it is",
                         section=section, severity=Severity.WARNING, broker=DEPLOYS)


def _pairing(ctx: Context, router: ConnectionRouter, section: str) -> Iterator[Diagnostic]:
    policy, pool = router.policy, router.pool
    if policy is not None and policy.name == CHM and pool is not None:
        yield ctx.report("AR304", pool.pos,
                         "CONSISTENT_HASH_MODULO never selects a target: every connection not caught by "
                         "local-target-filter is refused as REFUSED_UNAVAILABLE, whatever the pool holds",
                         section=section)
        return
    has_filter = router.local_target_filter is not None
    if policy is not None and pool is None:
        if policy.name == CHM and has_filter:
            return  # the documented sharding pattern
        yield ctx.report("AR305", policy.pos,
                         f"policy {policy.name} without a <pool>: every connection not caught by "
                         "local-target-filter is refused as REFUSED_USE_ANOTHER", section=section)
    elif pool is not None and policy is None:
        yield ctx.report("AR305", pool.pos,
                         "<pool> without a <policy>: the pool is never used and every connection not caught by "
                         "local-target-filter is refused as REFUSED_USE_ANOTHER", section=section)
    elif pool is None and policy is None and not has_filter:
        yield ctx.report("AR305", router.pos,
                         "router has no policy, no pool and no local-target-filter: the broker refuses every "
                         "connection as REFUSED_USE_ANOTHER", section=section)
