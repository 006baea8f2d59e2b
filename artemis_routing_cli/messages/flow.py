"""Where one message goes on a broker: diverts, their chains, and the cluster connections.

What the simulation follows (the broker's BindingsImpl / DivertImpl behaviour):

1. On an address, exclusive diverts are evaluated first, in configuration order. Every one
   whose filter matches diverts the message. If any matched, the message goes nowhere else on
   that address (no queues, no non-exclusive diverts).
2. Otherwise the message is delivered to the address, and every non-exclusive divert whose
   filter matches sends a copy. Diverts sharing an explicit ``routing-name`` on one address
   take turns (only one of them gets each message).
3. A copy goes to each forwarding address (comma-separated, trimmed; Java ``split`` rules)
   with its routing type set (ANYCAST/MULTICAST), cleared (STRIP) or kept (PASS), and is routed
   again there, so diverts chain. Transformers are named, not run. A divert forwarding to the
   address it sits on re-routes the very same message: an endless loop; any chain that comes
   back to an address already on its path loops as well (filters see the same message).
4. Every divert on one address sees the original message; a copy's ``AMQAddress`` is its
   forwarding address.
5. For each address a copy ends on, the cluster connections whose ``address`` matches
   (see ``messages.cluster``) are listed with their message-load-balancing.

Diverts with a missing address or forwarding address, a later duplicate name, or an invalid
filter are left out (the broker skips the first two and refuses to start on the third);
``divert_problems`` in ``messages.checks`` reports them.
"""

from __future__ import annotations

from dataclasses import field, replace
from typing import Any

from ..config.model import BrokerConfig, Divert
from ..javastr import java_split, java_trim
from ..records import record
from .cluster import cluster_matches
from .message import Message
from .selector import FilterSyntaxError, parse_optional_filter

MAX_CHAIN_DEPTH = 32  # arouter's limit on chains that do not loop back (the broker has none)
# arouter's limit on copies followed for one message: non-exclusive diverts that forward to
# addresses with more diverts multiply copies at every hop (the broker would create them all).
MAX_COPIES = 10_000


@record(frozen=True, slots=True)
class Delivery:
    address: str
    routing_type: str | None
    via: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"address": self.address, "routing_type": self.routing_type, "via": list(self.via)}


@record(frozen=True, slots=True)
class Decision:
    divert: str
    address: str
    exclusive: bool
    filter: str | None
    verdict: str  # true / false / unknown / unsupported / skipped / invalid
    reason: str
    depth: int
    forwarded_to: tuple[str, ...] = ()
    transformer: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "divert": self.divert,
            "address": self.address,
            "exclusive": self.exclusive,
            "filter": self.filter,
            "verdict": self.verdict,
            "reason": self.reason,
            "depth": self.depth,
            "forwarded_to": list(self.forwarded_to),
            "transformer": self.transformer,
        }


@record(frozen=True, slots=True)
class ClusterRoute:
    address: str
    connections: tuple[tuple[str, str], ...]  # (name, message-load-balancing)

    def to_json(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "connections": [{"name": n, "message_load_balancing": m} for n, m in self.connections],
        }


@record
class FlowResult:
    address: str
    message: Message
    original_delivered: bool = False
    deliveries: list[Delivery] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cluster: list[ClusterRoute] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "message": self.message.to_json(),
            "original_delivered": self.original_delivered,
            "deliveries": [d.to_json() for d in self.deliveries],
            "decisions": [d.to_json() for d in self.decisions],
            "warnings": list(self.warnings),
            "cluster": [c.to_json() for c in self.cluster],
        }


def forwarding_targets(divert: Divert) -> list[str]:
    """The addresses a divert forwards to, as the broker splits them (trailing empties dropped)."""
    if divert.forwarding_address is None:
        return []
    return [java_trim(part) for part in java_split(divert.forwarding_address)]


def active_diverts(config: BrokerConfig) -> list[Divert]:
    """The diverts the broker deploys: named, with address and forwarding address, first of a name."""
    seen: set[str] = set()
    active: list[Divert] = []
    for divert in config.diverts:
        if not divert.name or divert.address is None or divert.forwarding_address is None:
            continue
        if not divert.address or not divert.forwarding_address or divert.name in seen:
            continue
        seen.add(divert.name)
        active.append(divert)
    return active


def _copy_for(divert: Divert, message: Message, target: str) -> Message:
    routing = divert.routing_type.upper()
    if routing in ("ANYCAST", "MULTICAST"):
        routing_type: str | None = routing
    elif routing == "STRIP":
        routing_type = None
    else:
        routing_type = message.routing_type
    return replace(message, address=target, routing_type=routing_type)


class _Simulation:
    def __init__(self, config: BrokerConfig, result: FlowResult) -> None:
        self.result = result
        self.by_address: dict[str, list[Divert]] = {}
        for divert in active_diverts(config):
            self.by_address.setdefault(divert.address or "", []).append(divert)
        self.warned: set[str] = set()
        self.copies = 0

    def warn(self, text: str) -> None:
        if text not in self.warned:
            self.warned.add(text)
            self.result.warnings.append(text)

    def verdict(self, divert: Divert, message: Message) -> tuple[str, str]:
        try:
            compiled = parse_optional_filter(divert.filter)
        except FilterSyntaxError as err:
            return "invalid", f"{err.reason} at column {err.column}: the broker refuses to start"
        if compiled is None:
            return "true", "no filter: every message matches"
        verdict = compiled.verdict(message)
        if verdict.reason:
            if verdict.label == "unsupported":
                self.warn(f"divert {divert.name}: {verdict.reason}; treated as not matching")
            else:
                self.warn(f"divert {divert.name}: {verdict.reason}")
            return verdict.label, verdict.reason
        if verdict.label == "unknown":
            return "unknown", "the filter is unknown for this message (a property it needs is missing): no match"
        return verdict.label, "the filter matches" if verdict.matched else "the filter does not match"

    def route(self, message: Message, via: tuple[str, ...], path: tuple[str, ...]) -> None:
        self.copies += 1
        if self.copies > MAX_COPIES:
            self.warn(f"the message fans out into more than {MAX_COPIES:,} copies through diverts; arouter stops "
                      "following them (the broker would deliver every one)")
            return
        address = message.address
        depth = len(via)
        diverts = self.by_address.get(address, [])
        exclusives = [d for d in diverts if d.exclusive]
        taken: list[Divert] = []
        for divert in exclusives:
            label, reason = self.verdict(divert, message)
            self._record(divert, address, label, reason, depth, label == "true")
            if label == "true":
                taken.append(divert)
        if taken:
            for divert in taken:
                self.forward(divert, message, via, path)
            for divert in diverts:
                if not divert.exclusive:
                    self._record(divert, address, "skipped",
                                 f"exclusive divert {taken[0].name} took the message", depth, False)
            return
        self.result.deliveries.append(Delivery(address, message.routing_type, via))
        turns: dict[str, list[str]] = {}
        for divert in diverts:
            if divert.exclusive:
                continue
            group = divert.routing_name
            if group is not None and group in turns and turns[group]:
                self._record(divert, address, "skipped",
                             f"shares routing-name {group!r} with divert {turns[group][0]}, which got this "
                             "message (diverts sharing a routing-name take turns)", depth, False)
                self.warn(f"diverts {', '.join(turns[group] + [divert.name])} on address {address!r} share "
                          f"routing-name {group!r}: the broker gives each message to only one of them, in turn")
                continue
            label, reason = self.verdict(divert, message)
            self._record(divert, address, label, reason, depth, label == "true")
            if label == "true":
                if group is not None:
                    turns.setdefault(group, []).append(divert.name)
                self.forward(divert, message, via, path)

    def _record(self, divert: Divert, address: str, label: str, reason: str, depth: int, taken: bool) -> None:
        transformer = None
        if divert.transformer is not None and divert.transformer.class_name:
            transformer = divert.transformer.class_name
        self.result.decisions.append(Decision(
            divert=divert.name, address=address, exclusive=divert.exclusive, filter=divert.filter,
            verdict=label, reason=reason, depth=depth,
            forwarded_to=tuple(forwarding_targets(divert)) if taken else (), transformer=transformer if taken else None,
        ))

    def forward(self, divert: Divert, message: Message, via: tuple[str, ...], path: tuple[str, ...]) -> None:
        chain = via + (divert.name,)
        if divert.transformer is not None and divert.transformer.class_name:
            self.warn(f"divert {divert.name} runs transformer {divert.transformer.class_name} on its copies; "
                      "arouter does not run it, so later filters see the untransformed message")
        for target in forwarding_targets(divert):
            if target == "":
                self.warn(f"divert {divert.name}: an empty entry in forwarding-address {divert.forwarding_address!r} "
                          "forwards a copy to the empty address")
            if target == message.address:
                self.warn(f"loop: divert {divert.name} forwards to its own address {target!r}; the broker "
                          "re-routes the same message through it again without end")
                continue
            if target in path:
                cycle = " -> ".join(path[path.index(target):] + (target,))
                self.warn(f"loop: diverts {' -> '.join(chain)} come back to address {target!r} ({cycle}); "
                          "the broker would re-route without end")
                continue
            if len(chain) > MAX_CHAIN_DEPTH:
                self.warn(f"divert chain longer than {MAX_CHAIN_DEPTH} at {target!r}; arouter stops following it")
                continue
            self.route(_copy_for(divert, message, target), chain, path + (target,))


def simulate_message(
    config: BrokerConfig, address: str, message: Message, routing_type: str | None = None
) -> FlowResult:
    """Send ``message`` to ``address`` on the broker described by ``config`` and follow it."""
    start = replace(message, address=address, routing_type=routing_type or message.routing_type)
    result = FlowResult(address=address, message=start)
    sim = _Simulation(config, result)
    sim.route(start, (), (address,))
    result.original_delivered = any(d.address == address and not d.via for d in result.deliveries)
    seen: list[str] = []
    for delivery in result.deliveries:
        if delivery.address not in seen:
            seen.append(delivery.address)
    for target in seen:
        matches = tuple(
            (cc.name, cc.message_load_balancing)
            for cc in config.cluster_connections
            if cluster_matches(cc.address, target)
        )
        result.cluster.append(ClusterRoute(target, matches))
        if len(matches) > 1:
            sim.warn(f"address {target!r} matches {len(matches)} cluster connections "
                     f"({', '.join(name for name, _ in matches)}): a message can be forwarded more than once")
    return result
