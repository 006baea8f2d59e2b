"""The typed, immutable model of the broker.xml sections arouter cares about.

Every object carries ``pos`` (where it starts) and ``fields``: for each child element, the
trimmed text of the first occurrence (which is what the broker reads), its position and how
often it occurs. Values are already converted with the broker's defaults and Java parsing rules
(``Boolean.parseBoolean``: anything but ``true`` in any case is false); rules that need the raw
text use ``fields``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..javastr import java_split
from .positions import Pos

EMPTY: Mapping[str, Any] = MappingProxyType({})


def _empty() -> Any:
    return field(default_factory=lambda: EMPTY)

KEY_TYPES = ("CLIENT_ID", "SNI_HOST", "SOURCE_IP", "USER_NAME", "ROLE_NAME")
POLICY_NAMES = (
    "FIRST_ELEMENT",
    "ROUND_ROBIN",
    "CONSISTENT_HASH",
    "LEAST_CONNECTIONS",
    "CONSISTENT_HASH_MODULO",
)
DIVERT_ROUTING_TYPES = ("ANYCAST", "MULTICAST", "PASS", "STRIP")
LOAD_BALANCING_TYPES = ("OFF", "STRICT", "ON_DEMAND", "OFF_WITH_REDISTRIBUTION")

# Broker defaults (ActiveMQDefaultConfiguration / PoolConfiguration / CacheConfiguration).
DEFAULT_KEY_TYPE = "SOURCE_IP"
DEFAULT_CHECK_PERIOD = 5000
DEFAULT_QUORUM_SIZE = 1
DEFAULT_QUORUM_TIMEOUT = 3000
DEFAULT_CACHE_TIMEOUT = -1  # no <cache> element: no cache at all
DEFAULT_CONNECTOR_HOST = "localhost"
DEFAULT_CONNECTOR_PORT = 61616


@dataclass(frozen=True, slots=True)
class FieldValue:
    """A child element as written: text of its first occurrence, where, and how many there are."""

    text: str
    pos: Pos
    count: int = 1


Fields = Mapping[str, FieldValue]


@dataclass(frozen=True, slots=True)
class TransportUrl:
    """An acceptor or connector URL, parsed like the broker parses it."""

    raw: str
    scheme: str
    host: str
    port: int
    params: Mapping[str, str] = _empty()

    def param(self, name: str, default: str | None = None) -> str | None:
        return self.params.get(name, default)

    @property
    def ssl_enabled(self) -> bool:
        return (self.params.get("sslEnabled") or "").strip().lower() == "true"

    @property
    def host_port(self) -> str:
        return f"{self.host}:{self.port}"


@dataclass(frozen=True, slots=True)
class Acceptor:
    name: str
    url: TransportUrl
    pos: Pos

    @property
    def router(self) -> str | None:
        return self.url.param("router")

    @property
    def protocols(self) -> tuple[str, ...] | None:
        value = self.url.param("protocols")
        if value is None:
            return None
        return tuple(p.strip().upper() for p in value.split(",") if p.strip())

    @property
    def ssl_enabled(self) -> bool:
        return self.url.ssl_enabled


@dataclass(frozen=True, slots=True)
class Connector:
    name: str
    url: TransportUrl
    pos: Pos

    @property
    def host(self) -> str:
        return self.url.host

    @property
    def port(self) -> int:
        return self.url.port

    @property
    def ssl_enabled(self) -> bool:
        return self.url.ssl_enabled


@dataclass(frozen=True, slots=True)
class BroadcastGroup:
    name: str
    pos: Pos
    connector_refs: tuple[str, ...] = ()
    group_address: str | None = None
    group_port: int = -1
    local_bind_address: str | None = None
    local_bind_port: int = -1
    broadcast_period: int = 2000
    jgroups_file: str | None = None
    jgroups_channel: str | None = None
    fields: Fields = _empty()


@dataclass(frozen=True, slots=True)
class DiscoveryGroup:
    name: str
    pos: Pos
    group_address: str | None = None
    group_port: int = -1
    local_bind_address: str | None = None
    local_bind_port: int = -1
    refresh_timeout: int = 10000
    initial_wait_timeout: int = 10000
    jgroups_file: str | None = None
    jgroups_channel: str | None = None
    fields: Fields = _empty()


@dataclass(frozen=True, slots=True)
class ClusterConnection:
    name: str
    pos: Pos
    connector_ref: str | None
    address: str = ""
    message_load_balancing: str = "ON_DEMAND"
    max_hops: int = 1
    check_period: int = 30000
    connection_ttl: int = 60000
    retry_interval: int = 500
    retry_interval_multiplier: float = 1.0
    max_retry_interval: int = 2000
    reconnect_attempts: int = -1
    initial_connect_attempts: int = -1
    use_duplicate_detection: bool = True
    call_timeout: int = 30000
    static_connectors: tuple[str, ...] = ()
    static_connectors_pos: Pos | None = None
    allow_direct_connections_only: bool = False
    discovery_group: str | None = None
    discovery_group_pos: Pos | None = None
    uri: str | None = None  # <cluster-connection-uri address="...">
    fields: Fields = _empty()


@dataclass(frozen=True, slots=True)
class Policy:
    name: str
    pos: Pos
    properties: Mapping[str, str] = _empty()
    property_pos: Mapping[str, Pos] = _empty()


@dataclass(frozen=True, slots=True)
class Cache:
    pos: Pos
    persisted: bool = False
    timeout: int = 0
    fields: Fields = _empty()


@dataclass(frozen=True, slots=True)
class Pool:
    pos: Pos
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    check_period: int = DEFAULT_CHECK_PERIOD
    quorum_size: int = DEFAULT_QUORUM_SIZE
    quorum_timeout: int = DEFAULT_QUORUM_TIMEOUT
    local_target_enabled: bool = False
    cluster_connection: str | None = None
    static_connectors: tuple[str, ...] = ()
    static_connector_pos: tuple[Pos, ...] = ()
    discovery_group: str | None = None
    fields: Fields = _empty()

    @property
    def source(self) -> str:
        """Which kind of target source the broker uses: static, discovery, cluster or none."""
        if self.cluster_connection is not None:
            return "cluster"
        if self.discovery_group is not None:
            return "discovery"
        if self.static_connectors:
            return "static"
        return "none"


@dataclass(frozen=True, slots=True)
class ConnectionRouter:
    name: str
    pos: Pos
    key_type: str = DEFAULT_KEY_TYPE
    key_filter: str | None = None
    local_target_filter: str | None = None
    policy: Policy | None = None
    policies: tuple[Policy, ...] = ()  # every <policy> written; the broker uses the last one
    pool: Pool | None = None
    cache: Cache | None = None
    has_key_transformer: bool = False
    fields: Fields = _empty()

    @property
    def cache_timeout(self) -> int:
        """Cache expire-after-access in ms; -1 when there is no cache."""
        return self.cache.timeout if self.cache is not None else DEFAULT_CACHE_TIMEOUT


@dataclass(frozen=True, slots=True)
class Transformer:
    class_name: str | None
    properties: Mapping[str, str] = _empty()


@dataclass(frozen=True, slots=True)
class Divert:
    name: str
    pos: Pos
    address: str | None
    forwarding_address: str | None
    exclusive: bool = False
    filter: str | None = None
    filter_pos: Pos | None = None
    routing_name: str | None = None
    routing_type: str = "STRIP"
    transformer: Transformer | None = None
    fields: Fields = _empty()

    @property
    def forwarding_addresses(self) -> tuple[str, ...]:
        """Composite forwarding addresses as the broker splits them: Java ``split(",")`` (trailing
        empty entries dropped), each trimmed. ``fields["forwarding-address"]`` keeps the raw text."""
        if self.forwarding_address is None:
            return ()
        return tuple(part.strip() for part in java_split(self.forwarding_address))


@dataclass(frozen=True, slots=True)
class PropertyUse:
    """One ``${...}`` token the loader replaced, and where the value came from."""

    token: str
    name: str
    default: str | None
    source: str  # "property" | "env" | "default" | "empty"
    value: str = field(repr=False)
    file: str
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class BrokerConfig:
    """One broker.xml, loaded as the broker loads it."""

    path: str
    pos: Pos
    name: str | None = None
    acceptors: tuple[Acceptor, ...] = ()
    connectors: Mapping[str, Connector] = _empty()
    connector_list: tuple[Connector, ...] = ()  # every <connector> written, duplicates included
    broadcast_groups: tuple[BroadcastGroup, ...] = ()
    discovery_groups: Mapping[str, DiscoveryGroup] = _empty()
    discovery_group_list: tuple[DiscoveryGroup, ...] = ()
    cluster_connections: tuple[ClusterConnection, ...] = ()
    connection_routers: tuple[ConnectionRouter, ...] = ()
    diverts: tuple[Divert, ...] = ()
    cluster_user: str | None = None
    cluster_user_pos: Pos | None = None
    cluster_password: str | None = field(default=None, repr=False)
    cluster_password_pos: Pos | None = None
    mask_password: bool | None = None
    properties: tuple[PropertyUse, ...] = ()
    included_files: tuple[str, ...] = ()
    # The lxml <core> element and the locator, for schema checks and raw-element rules.
    core: Any = field(default=None, repr=False, compare=False, hash=False)
    locator: Any = field(default=None, repr=False, compare=False, hash=False)

    def router(self, name: str) -> ConnectionRouter | None:
        for router in self.connection_routers:
            if router.name == name:
                return router
        return None

    def cluster_connection(self, name: str) -> ClusterConnection | None:
        for cc in self.cluster_connections:
            if cc.name == name:
                return cc
        return None

    def routed_acceptors(self) -> tuple[Acceptor, ...]:
        return tuple(a for a in self.acceptors if a.router)
