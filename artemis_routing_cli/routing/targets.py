"""Pool targets and what is known about them (node id, readiness, connection count).

Node ids are the target brokers' UUIDs: they are not in broker.xml, so they come from the user
(``--node-id``), from a targets file saved by ``arouter probe``, or — said loudly — from a
placeholder (the connector name).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from ..errors import UsageError
from ..safeio import MAX_SMALL_FILE_BYTES, JsonError, loads_json, read_regular

TARGETS_FORMAT = "arouter-targets/1"
LOCAL = "local"
INT_MAX = 2**31 - 1


@dataclass(frozen=True, slots=True)
class Target:
    """One pool member as the router sees it."""

    name: str  # connector name, "local", or the node id for discovery/cluster members
    node_id: str
    host: str | None = None
    port: int | None = None
    local: bool = False
    ready: bool = True
    connection_count: int | None = None  # None: unknown (LEAST_CONNECTIONS counts it as INT_MAX)
    node_id_known: bool = True  # False when node_id is a placeholder
    source: str = "static"  # static | discovery:NAME | cluster:NAME | local
    unready_reason: str | None = None  # why the broker could never make it ready (then ready is False)

    @property
    def address(self) -> str | None:
        if self.host is None or self.port is None:
            return None
        return f"{self.host}:{self.port}"

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "source": self.source,
            "host": self.host,
            "port": self.port,
            "node_id": self.node_id,
            "node_id_known": self.node_id_known,
            "ready": self.ready,
            "connection_count": self.connection_count,
            "local": self.local,
        }


@dataclass(frozen=True, slots=True)
class TargetState:
    """What the user told us about targets (``--node-id``, ``--down``, ``--connections``, file)."""

    node_ids: Mapping[str, str] = field(default_factory=dict)
    down: frozenset[str] = frozenset()
    connections: Mapping[str, int] = field(default_factory=dict)
    known: tuple[Target, ...] = ()  # from a targets file (probe --save) or discovery

    def merged(self, other: TargetState) -> TargetState:
        return TargetState(
            node_ids={**self.node_ids, **other.node_ids},
            down=self.down | other.down,
            connections={**self.connections, **other.connections},
            known=self.known + other.known,
        )

    def known_for(self, source: str) -> list[Target]:
        return [t for t in self.known if t.source == source]

    def known_named(self, name: str) -> Target | None:
        for t in self.known:
            if t.name == name or t.node_id == name:
                return t
        return None

    def apply(self, target: Target) -> Target:
        """Overlay the user's flags on a target (flags win over the file)."""
        node_id = self.node_ids.get(target.name) or self.node_ids.get(target.node_id)
        t = replace(target, node_id=node_id, node_id_known=True) if node_id else target
        if t.name in self.down or t.node_id in self.down or t.unready_reason is not None:
            t = replace(t, ready=False)
        count = self.connections.get(t.name, self.connections.get(t.node_id))
        if count is not None:
            t = replace(t, connection_count=count)
        return t

    def names(self) -> set[str]:
        return set(self.node_ids) | set(self.down) | set(self.connections)


def parse_assignment(text: str, option: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise UsageError(f"{option} {text!r}: expected TARGET=VALUE")
    return name.strip(), value.strip()


def state_from_options(
    node_ids: Iterable[str] = (),
    down: Iterable[str] = (),
    connections: Iterable[str] = (),
    targets_file: str | None = None,
) -> TargetState:
    ids = dict(parse_assignment(t, "--node-id") for t in node_ids)
    counts: dict[str, int] = {}
    for item in connections:
        name, value = parse_assignment(item, "--connections")
        try:
            counts[name] = int(value)
        except ValueError:
            raise UsageError(f"--connections {item!r}: {value!r} is not a whole number") from None
    state = TargetState(node_ids=ids, down=frozenset(d.strip() for d in down), connections=counts)
    if targets_file:
        state = read_targets_file(targets_file).merged(state)
    return state


def read_targets_file(path: str) -> TargetState:
    """Read the JSON a ``arouter probe --save`` wrote."""
    raw = read_regular(path, limit=MAX_SMALL_FILE_BYTES, what="targets file")
    try:
        data = loads_json(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UsageError("not valid UTF-8", file=path, line=raw.count(b"\n", 0, exc.start) + 1, column=1) from None
    except JsonError as exc:
        raise UsageError(f"not valid JSON: {exc.msg}", file=path, line=exc.line, column=exc.column) from None
    if not isinstance(data, dict) or not isinstance(data.get("targets"), list):
        raise UsageError('expected an object with a "targets" list (as arouter probe --save writes)', file=path)
    known: list[Target] = []
    for i, item in enumerate(data["targets"]):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise UsageError(f"targets[{i}] needs a string \"name\"", file=path)
        node_id = item.get("node_id")
        count = item.get("connection_count")
        flagged = item.get("node_id_known", True)
        if not isinstance(flagged, bool):
            raise UsageError(f"targets[{i}] \"node_id_known\" must be true or false", file=path)
        known.append(
            Target(
                name=item["name"],
                node_id=str(node_id) if node_id else item["name"],
                host=item.get("host"),
                port=int(item["port"]) if isinstance(item.get("port"), int) else None,
                local=bool(item.get("local", False)),
                ready=bool(item.get("ready", True)),
                connection_count=int(count) if isinstance(count, int) else None,
                node_id_known=bool(node_id) and flagged,  # probe saves placeholders as not known
                source=str(item.get("source", "static")),
            )
        )
    return TargetState(known=tuple(known))


def write_targets_file(path: str, targets: Iterable[Target], *, generated_by: str) -> None:
    """Write a targets file atomically (temp file + rename): never half-written."""
    payload = {
        "format": TARGETS_FORMAT,
        "generated_by": generated_by,
        "targets": [t.to_json() for t in targets],
    }
    from ..outfile import write_text

    write_text(path, json.dumps(payload, indent=2) + "\n", what="targets file")
