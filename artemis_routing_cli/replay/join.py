"""One routed connection's events put together: the route line and what came before it.

The broker writes a decision's DEBUG lines (KeyResolver's key, ConnectionRouter's cache and policy
lines) on the connection's thread just before its AMQ221085/AMQ221086 line, without the connection's
id: they are kept per thread (one queue when the layout has no ``%t``) and taken by the next route
line. Audit lines (AMQ601715) name the connection id (from 2.31; 2.21 only the remote address) and
come before the route line: they are kept by id and by address, boundedly. Readiness is what the
latest pool or monitor line said of each target, and node ids are learned from every target line.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from .events import (
    Audit,
    BrokerStarted,
    CacheAnswer,
    Conn,
    Event,
    KeyValue,
    LiveFilter,
    PolicyChoice,
    Readiness,
    RoleKey,
    Routed,
    TargetText,
)

#: audit entries (and threads with pending DEBUG lines, targets named) kept while waiting for their route
#: line; the oldest go first. A busy broker authenticates far fewer connections a second than this.
MAX_PENDING = 100_000
LOCAL_NAME = "local"


@dataclass(frozen=True, slots=True)
class Where:
    source: str
    line: int
    time: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}"


@dataclass(slots=True)
class Pending:
    key_type: str | None = None
    key: str | None = None
    key_seen: bool = False
    role: str | None = None
    role_seen: bool = False
    cache_node: str | None = None
    cache_ready: bool | None = None
    candidates: tuple[TargetText, ...] | None = None
    filters: list[LiveFilter] = field(default_factory=list)
    ambiguous: bool = False


@dataclass(frozen=True, slots=True)
class Decision:
    """A routing decision as the logs tell it."""

    where: Where
    routed: Routed
    key_type: str | None  # from a DEBUG key line: which key type it was, and its value before the key-filter
    key: str | None
    key_seen: bool
    role: str | None
    role_seen: bool
    audit: Audit | None
    cache_node: str | None  # the node id the cache returned (a hit)
    cache_ready: bool | None
    candidates: tuple[TargetText, ...] | None  # the ready targets the policy chose from
    filters: tuple[LiveFilter, ...]
    down: tuple[tuple[str, Where], ...]  # targets a line last said were not ready, and that line
    ambiguous: bool = False  # its DEBUG lines may be another decision's (interleaved, no thread in the layout)

    @property
    def debug(self) -> bool:
        return self.key_seen or self.role_seen


def target_name(t: TargetText) -> str:
    if t.local:
        return LOCAL_NAME
    return t.connector if t.connector is not None else (t.node_id or "?")


class Joiner:
    def __init__(self) -> None:
        self.pending: OrderedDict[str, Pending] = OrderedDict()
        self.audit_by_id: OrderedDict[str, Audit] = OrderedDict()
        self.audit_by_remote: OrderedDict[str, Audit] = OrderedDict()
        self.down: OrderedDict[str, Where] = OrderedDict()
        self.node_ids: OrderedDict[str, str] = OrderedDict()  # target name -> node id, learned from the logs
        self.learned = False  # node_ids changed since the caller last looked
        self.broker_version: tuple[int, int] | None = None  # from the start-up line, when the log has it
        self.interleaved = 0  # decisions whose DEBUG lines overlapped another's
        self.owed = 0

    def feed(self, event: Event, thread: str, where: Where) -> Decision | None:
        if isinstance(event, BrokerStarted):
            self.broker_version = event.version
            if event.node_id and self.node_ids.get(LOCAL_NAME) != event.node_id:
                _put(self.node_ids, LOCAL_NAME, event.node_id)  # the broker's own node id: its local target's
                self.learned = True
            return None
        if isinstance(event, Routed):
            return self._decision(event, thread, where)
        if isinstance(event, Audit):
            if event.conn_id:
                _put(self.audit_by_id, event.conn_id, event)
            _put(self.audit_by_remote, event.remote.lstrip("/"), event)
            return None
        if isinstance(event, (Readiness, tuple)):
            for r in (event,) if isinstance(event, Readiness) else event:
                self._learn(r.target)
                name = target_name(r.target)
                if r.ready:
                    self.down.pop(name, None)
                else:
                    _put(self.down, name, where)
            return None
        p = self.pending.get(thread)
        if isinstance(event, (KeyValue, RoleKey)):
            # a new decision starts with its key; one whose key came before and whose route line has not
            # come yet means two decisions interleave on lines without a thread: neither key can be trusted
            overlap = p is not None and p.key_seen
            if overlap:
                self.interleaved += 1
                self.owed += 1  # the route line that finds no pending decision is the other one
            if isinstance(event, KeyValue):
                p = Pending(event.key_type, event.value, True, ambiguous=overlap)
            else:
                p = Pending("ROLE_NAME", event.role, True, event.role, True, ambiguous=overlap)
            _put(self.pending, thread, p)
            return None
        if p is None:
            p = Pending()
            _put(self.pending, thread, p)
        if isinstance(event, CacheAnswer):
            if event.ready is None:
                p.cache_node = event.node_id
            else:
                p.cache_ready = event.ready
        elif isinstance(event, PolicyChoice):
            p.candidates = event.candidates
            for t in (*event.candidates, *((event.target,) if event.target else ())):
                self._learn(t)
                self.down.pop(target_name(t), None)
        elif isinstance(event, LiveFilter):
            p.filters.append(event)
        return None

    def _learn(self, t: TargetText) -> None:
        if t.node_id:
            name = target_name(t)
            if self.node_ids.get(name) != t.node_id:
                _put(self.node_ids, name, t.node_id)
                self.learned = True

    def _decision(self, routed: Routed, thread: str, where: Where) -> Decision:
        p = self.pending.pop(thread, None)
        if p is None:
            p = Pending(ambiguous=self.owed > 0)
            self.owed = max(self.owed - 1, 0)
        conn: Conn | None = routed.conn
        audit = None
        if conn is not None and conn.id:
            audit = self.audit_by_id.pop(conn.id, None)
        if audit is None and conn is not None:
            audit = self.audit_by_remote.get(conn.remote.lstrip("/"))
        if routed.target is not None:
            self._learn(routed.target)
            self.down.pop(target_name(routed.target), None)
        return Decision(where, routed, p.key_type, p.key, p.key_seen, p.role, p.role_seen, audit,
                        p.cache_node, p.cache_ready, p.candidates, tuple(p.filters), tuple(self.down.items()),
                        p.ambiguous)


def _put(d: OrderedDict, key: str, value: object) -> None:
    d[key] = value
    d.move_to_end(key)
    if len(d) > MAX_PENDING:
        d.popitem(last=False)
