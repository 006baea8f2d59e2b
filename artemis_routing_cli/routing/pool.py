"""A router's pool: its targets in the broker's order, readiness and quorum.

Order: the local target first when ``local-target-enabled`` (the broker adds it before the pool
starts), then static connectors as written (unknown names are skipped, as the broker only logs
them; a name written twice is two targets, as the broker's pool keys targets by identity), or
the members of a discovery group / cluster connection in the order they are known.

A connector whose host Java's URI refused (``my_broker``, ``node-1.10``) holds the host ``null``:
the broker's target never connects, so it is never ready, whatever a targets file says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..config.model import BrokerConfig, ConnectionRouter
from ..config.model import Pool as PoolConfig
from .targets import LOCAL, Target, TargetState


@dataclass(frozen=True, slots=True)
class Pool:
    targets: tuple[Target, ...]
    quorum_size: int = 1
    quorum_timeout: int = 3000
    check_period: int = 5000
    source: str = "static"
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: :meth:`ready` as a tuple, worked out with the pool (a pool and its targets never change: readiness
    #: and addresses change by replacing the pool); the engine reads it for every connection
    ready_targets: tuple[Target, ...] = field(init=False, repr=False, compare=False)
    #: how many targets are ready, quorum or not
    ready_count: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ready = tuple(t for t in self.targets if t.ready)
        object.__setattr__(self, "ready_count", len(ready))  # frozen: set once, here
        object.__setattr__(self, "ready_targets", ready if len(ready) >= self.quorum_size else ())

    def ready(self) -> list[Target]:
        """AbstractPool.getTargets: the ready targets, or none when fewer than quorum-size."""
        return list(self.ready_targets)

    def below_quorum(self) -> bool:
        """Fewer targets ready than ``quorum-size``."""
        return self.ready_count < self.quorum_size

    def ready_target(self, node_id: str) -> Target | None:
        """AbstractPool.getReadyTarget: a ready target with this node id (quorum not required)."""
        for t in self.targets:
            if t.ready and t.node_id == node_id:
                return t
        return None

    @property
    def placeholders(self) -> list[Target]:
        return [t for t in self.targets if not t.node_id_known]

    def with_target(self, target: Target) -> Pool:
        return replace(self, targets=(*self.targets, target))

    def without(self, name: str) -> Pool:
        return replace(self, targets=tuple(t for t in self.targets if name not in (t.name, t.node_id)))

    def with_state(self, state: TargetState) -> Pool:
        return replace(self, targets=tuple(state.apply(t) for t in self.targets))


def local_target(state: TargetState) -> Target:
    known = state.known_named(LOCAL)
    base = known if known is not None else Target(name=LOCAL, node_id=LOCAL, local=True,
                                                  node_id_known=False, source="local")
    return state.apply(replace(base, local=True, name=LOCAL, source="local"))


def _placeholder(name: str, host: str | None, port: int | None, source: str) -> Target:
    return Target(name=name, node_id=name, host=host, port=port, node_id_known=False, source=source)


def _from_known(t: Target, known: Target | None) -> Target:
    if known is None:
        return t
    return replace(t, node_id=known.node_id, node_id_known=known.node_id_known, ready=known.ready,
                   connection_count=known.connection_count)


def build_pool(config: BrokerConfig, router: ConnectionRouter, state: TargetState) -> Pool | None:
    """The pool of ``router`` with what ``state`` says about its targets; None without <pool>."""
    pc: PoolConfig | None = router.pool
    if pc is None:
        return None
    targets: list[Target] = []
    notes: list[str] = []
    if pc.local_target_enabled:
        targets.append(local_target(state))
    members: Sequence[Target] = []
    if pc.source == "static":
        members = _static_members(config, pc.static_connectors, "static", state, notes)
    elif pc.source == "cluster":
        members = _cluster_members(config, pc.cluster_connection or "", state, notes)
    elif pc.source == "discovery":
        members = _discovery_members(pc.discovery_group or "", state, notes)
    targets.extend(state.apply(t) for t in members)
    notes.extend(_shared_node_ids(targets))
    return Pool(tuple(targets), pc.quorum_size, pc.quorum_timeout, pc.check_period, pc.source, tuple(notes))


def _static_members(config: BrokerConfig, names: Sequence[str], source: str, state: TargetState,
                    notes: list[str]) -> list[Target]:
    members = []
    for name in names:
        connector = config.connectors.get(name)
        if connector is None:
            notes.append(f"static connector {name!r} does not exist: the broker skips it")
            continue
        t = _from_known(_placeholder(name, connector.host, connector.port, source), state.known_named(name))
        if connector.url.host_unknown:
            t = replace(t, ready=False, unready_reason=unreachable_reason(connector.url.authority))
            notes.append(f"static connector {name!r}: {t.unready_reason}")
        members.append(t)
    return members


def unreachable_reason(authority: str | None) -> str:
    """Why a connector whose host java.net.URI refused is never ready."""
    shown = "****@" + authority.rsplit("@", 1)[1] if authority and "@" in authority else authority
    return (f"java.net.URI takes no host from {shown!r}, so the broker's connector holds the host "
            "'null' and never connects: never ready")


def _cluster_members(config: BrokerConfig, cc_name: str, state: TargetState, notes: list[str]) -> list[Target]:
    source = f"cluster:{cc_name}"
    known = state.known_for(source)
    if known:
        return known
    cc = config.cluster_connection(cc_name)
    if cc is None:
        notes.append(f"cluster connection {cc_name!r} does not exist")
        return []
    if cc.discovery_group:
        found = state.known_for(f"discovery:{cc.discovery_group}")
        if not found:
            notes.append(f"cluster connection {cc_name!r} finds members through discovery group "
                         f"{cc.discovery_group!r}: none known offline (use --targets from arouter probe)")
        return found
    notes.append(f"cluster connection {cc_name!r}: members taken from its static connectors "
                 "(the live topology may differ)")
    return _static_members(config, cc.static_connectors, source, state, notes)


def _discovery_members(group: str, state: TargetState, notes: list[str]) -> list[Target]:
    found = state.known_for(f"discovery:{group}")
    if not found:
        notes.append(f"discovery group {group!r}: no members known offline (use --targets from arouter probe)")
    return found


def _shared_node_ids(targets: Sequence[Target]) -> list[str]:
    """A note for each node id that several targets were given: brokers' node ids are unique, and the
    broker's pool finds a target by its node id (cache hits, CONSISTENT_HASH), so such targets are not
    told apart and the answers for them mean nothing."""
    by_id: dict[str, list[str]] = {}
    for t in targets:
        if t.node_id_known:
            by_id.setdefault(t.node_id, []).append(t.name)
    return [f"targets {', '.join(names)} share the node id {node_id!r}: real brokers have distinct node ids "
            "(give each its own with --node-id or --targets)"
            for node_id, names in by_id.items() if len(set(names)) > 1]
