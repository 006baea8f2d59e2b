"""Divert problems a rule module can report: ``divert_problems(config)``.

Each problem is ``(divert, code, message)``; the codes:

* ``filter-syntax``: the filter is invalid; the broker refuses to start (message has the column).
* ``filter-body``: the filter uses XPATH/XQUERY (works on XML bodies only; arouter cannot check it).
* ``duplicate-name``: a later divert with an earlier one's name; the broker skips it.
* ``exclusive-shadows``: an exclusive divert without a filter takes every message of its address,
  so the non-exclusive diverts there (and the address's own queues) never get anything.
* ``loop``: forwarding comes back to an address already passed (a divert forwarding to its own
  address, or a cycle such as ping-pong between two exclusive diverts); a matching message is
  re-routed without end.
* ``composite-empty``: an empty entry in a comma-separated forwarding-address.
* ``composite-repeated``: the same forwarding address twice (two copies go there).
* ``routing-name-shared``: non-exclusive diverts on one address with the same routing-name
  take turns: each message reaches only one of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from ..config.model import BrokerConfig, Divert
from ..javastr import java_split, java_trim
from .flow import active_diverts, forwarding_targets
from .selector import (
    FilterSyntaxError,
    blank_filter,
    filter_syntax_error,
    may_query_body,
    parse_filter,
    parse_optional_filter,
)

Problem = tuple[Divert, str, str]


CODES = frozenset({"filter-syntax", "filter-body", "duplicate-name", "exclusive-shadows", "loop",
                   "composite-empty", "composite-repeated", "routing-name-shared"})


def divert_problems(config: BrokerConfig, codes: Collection[str] = CODES, *,
                    active: list[Divert] | None = None) -> list[Problem]:
    """Every problem whose code is in ``codes`` (by default all), in the same order either way:
    the checks behind the other codes are skipped (a caller that reports only some saves the rest).
    ``active``: ``active_diverts(config)`` when the caller has it already."""
    problems: list[Problem] = []
    seen: dict[str, Divert] = {}
    names = "duplicate-name" in codes
    filters = "filter-syntax" in codes or "filter-body" in codes
    # filter-body alone (the rules report syntax errors themselves): only a filter that may name
    # XPATH or XQUERY can have one, so the others are not looked at
    body_only = filters and "filter-syntax" not in codes
    composites = "composite-empty" in codes or "composite-repeated" in codes
    for divert in config.diverts:
        if names:
            if divert.name in seen:
                problems.append((divert, "duplicate-name",
                                 f"divert name {divert.name!r} is already used; the broker skips this divert"))
            else:
                seen[divert.name] = divert
        if filters and divert.filter is not None and (not body_only or may_query_body(divert.filter)):
            problems.extend(_filter_problems(divert))
        if composites:
            problems.extend(_composite_problems(divert))
    if active is None:
        active = active_diverts(config)
    if "exclusive-shadows" in codes:
        problems.extend(_shadowing(active))
    if "routing-name-shared" in codes:
        problems.extend(_routing_names(active))
    if "loop" in codes:
        problems.extend(_loops(active))
    if codes is not CODES:
        problems = [p for p in problems if p[1] in codes]
    return problems


def _filter_problems(divert: Divert) -> list[Problem]:
    text = divert.filter
    if text is None:
        return []  # no filter
    err = filter_syntax_error(text)  # (an error for a blank filter, which is no filter)
    if err is not None:
        if blank_filter(text):
            return []
        return [(divert, "filter-syntax",
                 f"filter {divert.filter!r}: {err.reason} at column {err.column}; the broker refuses to start")]
    queries = parse_filter(text).body_queries if may_query_body(text) else []
    if queries:
        return [(divert, "filter-body",
                 f"filter uses {', '.join(queries)}: it only matches XML bodies and arouter "
                 "cannot evaluate it")]
    return []


def _composite_problems(divert: Divert) -> list[Problem]:
    raw = divert.forwarding_address
    if not raw or "," not in raw:
        return []
    problems: list[Problem] = []
    kept = [java_trim(part) for part in java_split(raw)]
    if any(part == "" for part in kept):
        problems.append((divert, "composite-empty",
                         f"forwarding-address {raw!r} has an empty entry: a copy goes to the empty address"))
    elif len(kept) < len(raw.split(",")):
        problems.append((divert, "composite-empty",
                         f"forwarding-address {raw!r} ends with a comma (ignored by the broker)"))
    counts = Counter(part for part in kept if part)  # one pass: a list of 100,000 entries stays linear
    for part in sorted(part for part, count in counts.items() if count > 1):
        problems.append((divert, "composite-repeated",
                         f"forwarding-address lists {part!r} {counts[part]} times: that many copies go there"))
    return problems


def non_exclusive_by_address(active: list[Divert]) -> dict[str | None, list[str]]:
    """The names of the non-exclusive diverts of ``active`` on each address, in their order: what an
    exclusive divert without a filter shadows (one pass, not a scan of every divert per such divert)."""
    found: dict[str | None, list[str]] = {}
    for d in active:
        if not d.exclusive:
            found.setdefault(d.address, []).append(d.name)
    return found


def _shadowing(active: list[Divert]) -> list[Problem]:
    problems: list[Problem] = []
    by_address: dict[str | None, list[str]] | None = None
    for divert in active:
        if not divert.exclusive or parse_optional_filter_safe(divert.filter) is not None:
            continue
        if by_address is None:
            by_address = non_exclusive_by_address(active)
        shadowed = by_address.get(divert.address, [])
        text = (f"exclusive divert without a filter takes every message sent to {divert.address!r}: "
                "its queues get nothing")
        if shadowed:
            text += f", and non-exclusive divert(s) {', '.join(shadowed)} never fire"
        problems.append((divert, "exclusive-shadows", text))
    return problems


def parse_optional_filter_safe(text: str | None) -> object:
    """The parsed filter, None for no filter, or the raw text when it does not parse."""
    try:
        return parse_optional_filter(text)
    except FilterSyntaxError:
        return text


def _routing_names(active: list[Divert]) -> list[Problem]:
    problems: list[Problem] = []
    groups: dict[tuple[str, str], list[Divert]] = {}
    for divert in active:
        if not divert.exclusive and divert.routing_name is not None:
            groups.setdefault((divert.address or "", divert.routing_name), []).append(divert)
    for (address, name), members in groups.items():
        if len(members) > 1:
            names = ", ".join(d.name for d in members)
            for divert in members[1:]:
                problems.append((divert, "routing-name-shared",
                                 f"diverts {names} on address {address!r} share routing-name {name!r}: "
                                 "each message reaches only one of them, in turn"))
    return problems


# Elementary cycles can be exponentially many: the path walk that names them stops after this many
# steps, and every strongly connected group of addresses it did not reach still gets one cycle.
MAX_LOOP_WALK_STEPS = 20_000


def _loops(active: list[Divert]) -> list[Problem]:
    edges: dict[str, list[tuple[str, Divert]]] = {}
    for divert in active:
        for target in forwarding_targets(divert):
            edges.setdefault(divert.address or "", []).append((target, divert))
    finder = _LoopFinder(edges)
    for origin in list(edges):
        finder.walk(origin, [origin], [])
    for group in cyclic_groups(edges):
        if not finder.covered.intersection(group):
            addresses, cycle = one_cycle(group, edges)
            finder.report(addresses, cycle)
    return finder.problems


class _LoopFinder:
    """The bounded path walk of :func:`_loops` and the cycles it found.

    An object rather than closures: a closure that calls itself is a reference cycle, which
    keeps every divert (and the document behind them) alive until the garbage collector runs.
    """

    def __init__(self, edges: dict[str, list[tuple[str, Divert]]]) -> None:
        self.edges = edges
        self.problems: list[Problem] = []
        self.reported: set[tuple[str, ...]] = set()
        self.covered: set[str] = set()
        self.steps = 0

    def report(self, addresses: list[str], cycle: list[Divert]) -> None:
        key = _canonical(tuple(d.name for d in cycle))
        if key not in self.reported:
            self.reported.add(key)
            self.covered.update(addresses)
            self.problems.append((cycle[0], "loop", _loop_message(addresses, cycle)))

    def walk(self, address: str, path: list[str], via: list[Divert]) -> None:
        for target, divert in self.edges.get(address, []):
            self.steps += 1
            if self.steps > MAX_LOOP_WALK_STEPS:
                return
            if target in path:
                start = path.index(target)
                self.report(path[start:] + [target], via[start:] + [divert])
            elif len(path) < 64:
                self.walk(target, path + [target], via + [divert])


def cyclic_groups(edges: dict[str, list[tuple[str, Divert]]]) -> list[set[str]]:
    """Strongly connected groups of addresses that hold a cycle (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[set[str]] = []
    counter = 0
    for root in list(edges):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            outs = edges.get(node, [])
            if i < len(outs):
                work.append((node, i + 1))
                nxt = outs[i][0]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                group: set[str] = set()
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    group.add(top)
                    if top == node:
                        break
                if len(group) > 1 or any(t == node for t, _ in edges.get(node, [])):
                    groups.append(group)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return groups


def one_cycle(group: set[str], edges: dict[str, list[tuple[str, Divert]]]) -> tuple[list[str], list[Divert]]:
    """A shortest cycle through one address of ``group`` (breadth first inside the group)."""
    start = min(group)
    previous: dict[str, tuple[str, Divert]] = {}  # address -> (address before it, divert between)
    queue = [start]
    while queue:
        node = queue.pop(0)
        for target, divert in edges.get(node, []):
            if target not in group:
                continue
            if target == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]][0])
                path.reverse()  # start ... node
                diverts = [previous[a][1] for a in path[1:]] + [divert]
                return [*path, start], diverts
            if target not in previous:
                previous[target] = (node, divert)
                queue.append(target)
    raise AssertionError("a cyclic group always holds a cycle")  # pragma: no cover


def _canonical(names: tuple[str, ...]) -> tuple[str, ...]:
    rotations = [names[i:] + names[:i] for i in range(len(names))]
    return min(rotations)


def _loop_message(addresses: list[str], cycle: list[Divert]) -> str:
    if len(cycle) == 1:
        return (f"divert {cycle[0].name} forwards to its own address {addresses[0]!r}: a matching message is "
                "re-routed through it without end")
    route = " -> ".join(addresses)
    names = ", ".join(d.name for d in cycle)
    kind = "ping-pong between exclusive diverts" if all(d.exclusive for d in cycle) else "divert loop"
    return f"{kind} {names}: {route}; a message matching every filter on the way is re-routed without end"
