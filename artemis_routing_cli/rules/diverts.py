"""Diverts (AR501-AR508): forwarding addresses, filters and how diverts interact.

A divert copies (or, when exclusive, takes) messages sent to its `address` and routes the
copy again at each of its comma-separated `forwarding-address` entries, so diverts chain. On
one address the exclusive diverts are evaluated first; if any matches, the message goes
nowhere else there. The broker has no loop guard: a chain that comes back to where it started
routes a matching message again and again. The filter is the JMS-selector language; a filter
the broker cannot parse stops it at start-up.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import repeat

from ..config.model import Divert
from ..config.positions import Pos
from ..diagnostics import REFUSES, Diagnostic, RuleMeta, Severity
from ..javastr import JAVA_TRIMMED, java_trim
from ..messages.checks import cyclic_groups, non_exclusive_by_address, one_cycle
from .base import Context

try:
    from ..messages.checks import divert_problems
    from ..messages.flow import active_diverts, forwarding_targets
    from ..messages.selector import filter_syntax_error
except ImportError:  # pragma: no cover - the messages package is part of arouter
    divert_problems = None  # type: ignore[assignment]

# Longest divert chain searched for loops (far more than any broker.xml holds).
MAX_CHAIN = 64
#: Steps of the loop walk over all start addresses; loops beyond it are found per group of addresses.
MAX_WALK_STEPS = 20_000


def _divert(name: str, address: str, forward: str, extra: str = "") -> str:
    return (f'  <divert name="{name}">\n    <address>{address}</address>\n'
            f"    <forwarding-address>{forward}</forwarding-address>\n{extra}  </divert>\n")


def _diverts(*items: str) -> str:
    return "<diverts>\n" + "".join(items) + "</diverts>"


RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR501",
        name="forwarding-address-empty-entry",
        severity=Severity.WARNING,
        category="semantics",
        summary="A composite `forwarding-address` has an empty entry (`a,,b`) or ends with a comma.",
        doc="""\
The broker splits `forwarding-address` on commas (Java `String.split`, entries trimmed). An
empty entry in the middle sends a copy to the empty address, where nothing receives it; a
trailing comma is dropped by the split (info).""",
        fail=_diverts(_divert("fan-out", "orders", "orders.audit,,orders.archive")),
        ok=_diverts(_divert("fan-out", "orders", "orders.audit,orders.archive")),
    ),
    RuleMeta(
        id="AR502",
        name="forwarding-address-repeated",
        severity=Severity.WARNING,
        category="semantics",
        summary="A composite `forwarding-address` lists the same address twice.",
        doc="""\
Each entry gets its own copy: an address listed twice receives every diverted message twice.""",
        fail=_diverts(_divert("fan-out", "orders", "orders.audit, orders.audit")),
        ok=_diverts(_divert("fan-out", "orders", "orders.audit")),
    ),
    RuleMeta(
        id="AR503",
        name="divert-loop",
        severity=Severity.WARNING,
        category="semantics",
        summary="Divert chains that come back to an address already passed (the cycle is shown).",
        doc="""\
The copy a divert makes is routed again at the forwarding address, through that address's
diverts. A chain that returns to its start (a divert forwarding to its own address, or
`a -> b -> a`) routes a message that passes every filter on the way again and again; the
broker has no guard and the send fails deep in a recursion. Filters that exclude each other
break the loop; check that they do.""",
        fail=_diverts(_divert("a-to-b", "a", "b"), _divert("b-to-c", "b", "c"), _divert("c-to-a", "c", "a")),
        ok=_diverts(_divert("a-to-b", "a", "b"), _divert("b-to-c", "b", "c")),
    ),
    RuleMeta(
        id="AR504",
        name="divert-filter-invalid",
        severity=Severity.ERROR,
        category="semantics",
        broker=REFUSES,
        summary="A divert's `<filter string>` is not valid filter syntax; the broker refuses to start.",
        doc="""\
The broker parses divert filters while it deploys diverts; an invalid one ("invalid filter")
stops the broker. The diagnostic points at the column inside the filter where parsing failed.""",
        fail=_diverts(_divert("vip", "orders", "orders.vip", "    <filter string=\"priority &gt; \"/>\n")),
        ok=_diverts(_divert("vip", "orders", "orders.vip", "    <filter string=\"priority &gt; 5\"/>\n")),
    ),
    RuleMeta(
        id="AR505",
        name="exclusive-divert-shadows",
        severity=Severity.WARNING,
        category="semantics",
        summary="An exclusive divert without a filter shares its address with non-exclusive diverts (they never fire).",
        doc="""\
An exclusive divert without a filter matches every message on its address, and a message an
exclusive divert took goes nowhere else on that address: the address's queues and every
non-exclusive divert there get nothing.""",
        fail=_diverts(_divert("all-away", "orders", "orders.eu", "    <exclusive>true</exclusive>\n"),
                      _divert("audit", "orders", "audit")),
        ok=_diverts(_divert("eu-away", "orders", "orders.eu",
                            "    <exclusive>true</exclusive>\n    <filter string=\"region = 'eu'\"/>\n"),
                    _divert("audit", "orders", "audit")),
    ),
    RuleMeta(
        id="AR506",
        name="divert-ping-pong",
        severity=Severity.WARNING,
        category="semantics",
        summary="A divert forwards to an address whose exclusive divert sends the message back.",
        doc="""\
Two diverts that forward to each other's address, at least one of them exclusive, pass a
message that matches both filters back and forth without end (a two-step AR503 that is easy
to write when moving traffic between two addresses).""",
        fail=_diverts(_divert("to-new", "orders.old", "orders.new", "    <exclusive>true</exclusive>\n"),
                      _divert("to-old", "orders.new", "orders.old", "    <exclusive>true</exclusive>\n")),
        ok=_diverts(_divert("to-new", "orders.old", "orders.new", "    <exclusive>true</exclusive>\n")),
    ),
    RuleMeta(
        id="AR507",
        name="divert-filter-body",
        severity=Severity.INFO,
        category="semantics",
        summary="A divert filter uses XPATH or XQUERY, which arouter cannot evaluate.",
        doc="""\
XPATH filters match against XML message bodies. The broker accepts them; `arouter` cannot
decide them, so simulations mark such diverts as unsupported.""",
        fail=_diverts(_divert("xml", "orders", "orders.xml",
                              "    <filter string=\"XPATH '/order[@vip]'\"/>\n")),
        ok=_diverts(_divert("xml", "orders", "orders.xml", "    <filter string=\"vip = true\"/>\n")),
    ),
    RuleMeta(
        id="AR508",
        name="divert-routing-name-shared",
        severity=Severity.WARNING,
        category="semantics",
        summary="Non-exclusive diverts on one address share a `routing-name`: they take turns.",
        doc="""\
Bindings with the same routing name on an address are load-balanced by the broker: each
message goes to only one of them, in turn. Two non-exclusive diverts with one routing-name
therefore each see only part of the traffic. Give each its own routing-name (the default is
a unique one).""",
        fail=_diverts(_divert("copy-1", "orders", "audit", "    <routing-name>copy</routing-name>\n"),
                      _divert("copy-2", "orders", "archive", "    <routing-name>copy</routing-name>\n")),
        ok=_diverts(_divert("copy-1", "orders", "audit", "    <routing-name>copy-1</routing-name>\n"),
                    _divert("copy-2", "orders", "archive", "    <routing-name>copy-2</routing-name>\n")),
    ),
]

_CODES = {
    "composite-empty": "AR501",
    "composite-repeated": "AR502",
    "filter-body": "AR507",
    "routing-name-shared": "AR508",
}


def check(ctx: Context) -> Iterator[Diagnostic]:
    if divert_problems is None:
        return
    config = ctx.config
    active = ctx.shared(active_diverts)
    for divert, code, message in divert_problems(config, _CODES.keys(), active=active):
        rule = _CODES.get(code)
        if rule is None:
            continue
        severity = None
        if code == "composite-empty" and "ends with a comma" in message:
            severity = Severity.INFO
        yield ctx.report(rule, divert.pos, message, section=f"divert {divert.name}", severity=severity)
    for divert in config.diverts:
        text = divert.filter
        if text is not None and filter_syntax_error(text) is not None:  # (no generator per divert: most parse)
            yield from _filter(ctx, divert)
    yield from _shadowing(ctx, active)
    yield from _loops(ctx, active)


def _filter_column(ctx: Context, divert: Divert, column: int) -> Pos:
    """Where column ``column`` of the filter text sits in the file (best effort)."""
    pos = divert.filter_pos or divert.pos
    line = ctx.config.locator.line_text(pos.file, pos.line) if ctx.config.locator is not None else ""
    start = pos.column - 1
    for quote in ('"', "'"):
        idx = line.find(f"string={quote}", start)
        if idx >= 0:
            return Pos(pos.file, pos.line, idx + len("string=") + 1 + column)
    return pos


def _filter(ctx: Context, divert: Divert) -> Iterator[Diagnostic]:
    text = divert.filter
    if text is None:
        return
    err = filter_syntax_error(text)
    if err is not None and java_trim(text):  # FilterImpl.createFilter trims with String.trim: blank is no filter
        yield ctx.report("AR504", _filter_column(ctx, divert, err.column),
                         f"divert filter {text!r} is invalid at column {err.column} of the filter: {err.reason}; "
                         "the broker refuses to start", section=f"divert {divert.name}")


def _no_filter(divert: Divert) -> bool:
    return divert.filter is None or not java_trim(divert.filter)


def _shadowing(ctx: Context, active: list[Divert]) -> Iterator[Diagnostic]:
    by_address: dict[str | None, list[str]] | None = None
    for divert in active:
        if not divert.exclusive or not _no_filter(divert):
            continue
        if by_address is None:
            by_address = non_exclusive_by_address(active)
        shadowed = by_address.get(divert.address, [])
        if shadowed:
            yield ctx.report("AR505", divert.pos,
                             f"exclusive divert '{divert.name}' has no filter, so it takes every message sent to "
                             f"'{divert.address}': non-exclusive divert(s) {', '.join(shadowed)} never fire and the "
                             "address's queues get nothing", section=f"divert {divert.name}")


def _walk(edges: dict[str, list[tuple[str, Divert]]], order: dict[int, int],
          cycles: dict[tuple[int, ...], tuple[list[str], list[Divert]]],
          address: str, path: list[str], via: list[Divert], budget: list[int]) -> None:
    """Every simple divert chain from ``path``, at most ``budget[0]`` steps in all: the cycles it
    closes go into ``cycles``.

    A module function, not a closure: a closure calling itself is a reference cycle that keeps
    every divert (and the whole document behind them) alive until the garbage collector runs.
    """
    for target, divert in edges.get(address, []):
        budget[0] -= 1
        if budget[0] < 0:
            return
        if target in path:
            start = path.index(target)
            _keep(cycles, order, path[start:], [*via[start:], divert])
        elif len(path) < MAX_CHAIN:
            _walk(edges, order, cycles, target, [*path, target], [*via, divert], budget)


def _keep(cycles: dict[tuple[int, ...], tuple[list[str], list[Divert]]], order: dict[int, int],
          addresses: list[str], cycle: list[Divert]) -> None:
    """Record a loop once, however it was entered: rotated to start at its first divert."""
    ids = tuple(order[id(d)] for d in cycle)
    pivot = ids.index(min(ids))
    key = ids[pivot:] + ids[:pivot]
    if key not in cycles:
        cycles[key] = (addresses[pivot:] + addresses[:pivot], cycle[pivot:] + cycle[:pivot])


def _no_chain(active: list[Divert]) -> bool:
    """True when no divert forwards to an address some divert leaves from (so no loop): the usual
    file, answered from two sets without the forwarding graph being built."""
    written = [divert.forwarding_address or "" for divert in active]
    if any("," in text for text in written):
        return False  # composite targets: the graph is built
    targets = set(map(str.strip, written, repeat(JAVA_TRIMMED, len(written))))  # java_trim of each
    targets.discard("")
    return targets.isdisjoint({divert.address or "" for divert in active})


def _loops(ctx: Context, active: list[Divert]) -> Iterator[Diagnostic]:
    if _no_chain(active):
        return
    edges: dict[str, list[tuple[str, Divert]]] = {}
    targets: set[str] = set()
    for divert in active:
        written = divert.forwarding_address or ""
        # one address (no comma) is that address trimmed, as forwarding_targets splits it
        for target in (java_trim(written),) if "," not in written else forwarding_targets(divert):
            if target:
                edges.setdefault(divert.address or "", []).append((target, divert))
                targets.add(target)
    if targets.isdisjoint(edges):
        return  # no divert forwards to an address some divert leaves from: no loop
    order = {id(d): i for i, d in enumerate(active)}
    cycles: dict[tuple[int, ...], tuple[list[str], list[Divert]]] = {}
    budget = [MAX_WALK_STEPS]
    for origin in list(edges):
        _walk(edges, order, cycles, origin, [origin], [], budget)
    if budget[0] < 0:
        # The walk stopped early (a dense graph has exponentially many loops): every group of
        # addresses that loops but got no finding still gets one, its shortest loop.
        covered = {a for addresses, _ in cycles.values() for a in addresses}
        for group in cyclic_groups(edges):
            if not covered.intersection(group):
                addresses, cycle = one_cycle(group, edges)
                _keep(cycles, order, addresses[:-1], cycle)
    for addresses, cycle in cycles.values():
        route = " -> ".join([*addresses, addresses[0]])
        names = ", ".join(d.name for d in cycle)
        section = f"divert {cycle[0].name}"
        if len(cycle) == 1:
            yield ctx.report("AR503", cycle[0].pos,
                             f"divert '{cycle[0].name}' forwards to its own address '{addresses[0]}': a matching "
                             "message is routed through it again and again", section=section)
        elif len(cycle) == 2 and any(d.exclusive for d in cycle):
            yield ctx.report("AR506", cycle[0].pos,
                             f"diverts {names} send messages back and forth ({route}): a message matching both "
                             "filters never stops", section=section)
        else:
            yield ctx.report("AR503", cycle[0].pos,
                             f"divert loop {route} (diverts {names}): a message passing every filter on the way "
                             "is routed again and again", section=section)
