"""A log record's message as a routing event (or None: a line replay does not use).

The texts are the broker's (ActiveMQServerLogger AMQ221085/AMQ221086, the audit logger's AMQ601715,
the DEBUG lines of ``org.apache.activemq.artemis.core.server.routing``: KeyResolver, ConnectionRouter,
pools.AbstractPool, targets.TargetMonitor), the same from 2.21 to 2.41 (2.21 wrote AMQ601715 without
the connection id), and ``arouter serve``'s route lines (which add the router and the key).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KEY_TYPES = ("CLIENT_ID", "SNI_HOST", "SOURCE_IP", "USER_NAME", "ROLE_NAME")


@dataclass(frozen=True, slots=True)
class TargetText:
    """A target as the broker prints it: ``ActiveMQTarget [connector=..., nodeID=...]``."""

    kind: str  # ActiveMQTarget, LocalTarget, ...
    connector: str | None  # the connector's name (None: the local target's null connector)
    node_id: str | None

    @property
    def local(self) -> bool:
        return self.kind == "LocalTarget"


@dataclass(frozen=True, slots=True)
class Conn:
    """The connection as ``NettyServerConnection@…[ID=…, local= /ip:port, remote=/ip:port]`` prints it."""

    id: str
    local: str  # the acceptor's address, "ip:port"
    remote: str  # the client's address as getRemoteAddress() gives it ("/ip:port")


@dataclass(frozen=True, slots=True)
class Routed:
    """AMQ221085 (``target`` set) or AMQ221086 (``target`` None)."""

    conn: Conn | None
    target: TargetText | None
    # from arouter serve's lines: the router, key type, key and the target's name
    router: str | None = None
    key_type: str | None = None
    key: str | None = None
    serve_target: str | None = None
    serve_refusal: str | None = None


@dataclass(frozen=True, slots=True)
class KeyValue:
    key_type: str
    value: str | None  # None: the broker printed null


@dataclass(frozen=True, slots=True)
class RoleKey:
    role: str


@dataclass(frozen=True, slots=True)
class LiveFilter:
    """A DEBUG line naming the filter the router used: ``which`` is key-filter or local-target-filter."""

    which: str
    pattern: str
    key_type: str


@dataclass(frozen=True, slots=True)
class CacheAnswer:
    node_id: str | None  # None: the cache had nothing
    ready: bool | None = None  # the "is ready" / "is not ready" line that follows a hit


@dataclass(frozen=True, slots=True)
class PolicyChoice:
    target: TargetText | None
    candidates: tuple[TargetText, ...]


@dataclass(frozen=True, slots=True)
class Readiness:
    """A target seen ready or not (TargetMonitor, AbstractPool's monitor list)."""

    target: TargetText
    ready: bool


@dataclass(frozen=True, slots=True)
class BrokerStarted:
    """AMQ221001: the broker's version (which logging configuration it reads) and its own node id."""

    version: tuple[int, int]
    node_id: str | None


@dataclass(frozen=True, slots=True)
class Audit:
    """AMQ601715: who authenticated, with which roles, from where, on which connection."""

    user: str
    roles: tuple[str, ...]
    remote: str
    conn_id: str | None


Event = (Routed | KeyValue | RoleKey | LiveFilter | CacheAnswer | PolicyChoice | Readiness | Audit
         | BrokerStarted | tuple[Readiness, ...])

_CONN = r"\S*?\[ID=([^,\]]*), local= ?([^,\]]*), remote=([^\]]*)\]"
_TARGET = r"(\w*Target) \[connector=(.*?), nodeID=([^\]\s,]*)\]"
_ROUTE = re.compile(rf"AMQ221085: Route {_CONN} to {_TARGET}\s*")
_CANNOT = re.compile(rf"AMQ221086: Cannot route {_CONN}\s*")
_SERVE_ROUTE = re.compile(r"AMQ221085: Route (\S+) to (.*?) \(.*?\) \[[^,\]]*, [^,\]]*, router (.*?), (\w+) key (.*)\]")
_SERVE_CANNOT = re.compile(r"AMQ221086: Cannot route (\S+) \[[^,\]]*, [^,\]]*, router (.*?), (\w+) key (.*)\]: (\w+)")
_TARGET_ANY = re.compile(_TARGET)
_CONNECTOR_NAME = re.compile(r"TransportConfiguration\(name=(.*?), factory=")
_KEY = re.compile(r"keyValue for (\w+): (.*)", re.S)
_KEY_FILTER = re.compile(r"keyValue for (\w+) (?:matches filter (.*): .*|doesn't matches filter (.*))", re.S)
_ROLE = re.compile(r"(?:role match for (.*) via .*|first role match: (.*))", re.S)
_LOCAL_FILTER = re.compile(r"The (\w+)\[.*\] matches the localTargetFilter (.*)", re.S)
_CACHE = re.compile(r"The cache returns target \[(.*?)\] for \w+\[.*\]", re.S)
_CACHED_READY = re.compile(r"The target \[.*?\] is (not )?ready for \w+\[.*\]", re.S)
_POLICY = re.compile(r"The policy selects \[(.*?)\] from \[(.*)\] for \w+\[.*\]", re.S)
_MONITOR = re.compile(rf"({_TARGET}) is (not )?ready")
_MONITOR_ERROR = re.compile(rf"Error monitoring ({_TARGET})")
_POOL = re.compile(r"Ready targets are \[.*\] / \[(.*)\] and quorumSize is \d+", re.S)
_POOL_MONITOR = re.compile(rf"TargetMonitor \[target={_TARGET}, targetReady=(true|false)\]")
_STARTED = re.compile(r"AMQ221001: Apache ActiveMQ Artemis Message Broker version (\d+)\.(\d+)[^\[]*"
                      r"(?:\[.*nodeID=([^\]\s,]+).*)?", re.S)
_AUDIT = re.compile(r"AMQ601715: User (.*)\(([^()]*)\)@(\S*) successfully authenticated(?: on connection (\S+))?\s*")


def target_text(kind: str, connector: str, node: str) -> TargetText:
    m = _CONNECTOR_NAME.search(connector)
    name = m[1] if m else (None if connector == "null" else connector)
    return TargetText(kind, name, None if node == "null" else node)


def _targets(text: str) -> tuple[TargetText, ...]:
    return tuple(target_text(*m.groups()) for m in _TARGET_ANY.finditer(text))


def parse_event(message: str, logger: str = "") -> Event | None:
    """The routing event ``message`` says, or None."""
    head = message[:9]
    if head == "AMQ221085":
        m = _ROUTE.fullmatch(message)
        if m:
            return Routed(Conn(m[1], m[2], m[3]), target_text(m[4], m[5], m[6]))
        m = _SERVE_ROUTE.fullmatch(message)
        if m:
            return Routed(Conn("", "", m[1]), None, m[3], m[4], _unrepr(m[5]), serve_target=m[2])
        raise ValueError("an AMQ221085 line replay cannot read")
    if head == "AMQ221086":
        m = _CANNOT.fullmatch(message)
        if m:
            return Routed(Conn(m[1], m[2], m[3]), None)
        m = _SERVE_CANNOT.fullmatch(message)
        if m:
            return Routed(Conn("", "", m[1]), None, m[2], m[3], _unrepr(m[4]), serve_refusal=m[5])
        raise ValueError("an AMQ221086 line replay cannot read")
    if head == "AMQ221001":
        m = _STARTED.fullmatch(message)
        return BrokerStarted((int(m[1]), int(m[2])), m[3]) if m else None
    if head == "AMQ601715":
        m = _AUDIT.fullmatch(message)
        if not m:
            raise ValueError("an AMQ601715 line replay cannot read")
        roles = tuple(r for r in m[2].split(",") if r) if m[2] else ()
        return Audit(m[1], roles, m[3], m[4])
    if "routing" not in logger and logger:
        return None
    return _debug(message)


def _debug(message: str) -> Event | None:
    first = message[:4]
    if first == "keyV":
        m = _KEY_FILTER.fullmatch(message)
        if m:
            return LiveFilter("key-filter", m[2] if m[2] is not None else m[3], m[1])
        m = _KEY.fullmatch(message)
        if m and m[1] in KEY_TYPES:
            return KeyValue(m[1], None if m[2] == "null" else m[2])
        return None
    if first in ("role", "firs"):
        m = _ROLE.fullmatch(message)
        return RoleKey(m[1] if m[1] is not None else m[2]) if m else None
    if first == "The ":
        m = _CACHE.fullmatch(message)
        if m:
            return CacheAnswer(None if m[1] == "null" else m[1])
        m = _CACHED_READY.fullmatch(message)
        if m:
            return CacheAnswer("", ready=m[1] is None)
        m = _POLICY.fullmatch(message)
        if m:
            chosen = _targets(m[1])
            return PolicyChoice(chosen[0] if chosen else None, _targets(m[2]))
        m = _LOCAL_FILTER.fullmatch(message)
        if m:
            return LiveFilter("local-target-filter", m[2], m[1])
        return None
    if first == "Read":
        m = _POOL.fullmatch(message)
        if m:
            return tuple(Readiness(target_text(a, b, c), r == "true") for a, b, c, r in _POOL_MONITOR.findall(m[1]))
        return None
    if first == "Erro":
        m = _MONITOR_ERROR.match(message)
        return Readiness(target_text(m[2], m[3], m[4]), False) if m else None
    m = _MONITOR.fullmatch(message.strip())
    if m:
        return Readiness(target_text(m[2], m[3], m[4]), m[5] is None)
    return None


def _unrepr(text: str) -> str | None:
    """serve's key as it wrote it (Python's repr of the text, or ``'a' -> 'b'`` after a transform)."""
    import ast

    text = text.split(" -> ", 1)[0] if text[:1] in "'\"" and " -> " in text else text
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None
