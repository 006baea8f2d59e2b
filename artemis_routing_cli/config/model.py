"""The typed, immutable model of the broker.xml sections arouter cares about.

Every object carries ``pos`` (where it starts) and ``fields``: for each child element, the
text of the first occurrence trimmed with Java's ``String.trim`` (which is what the broker
reads), its position and how often it occurs. Values are converted with the broker's defaults and
Java parsing rules (``Boolean.parseBoolean``: anything but ``true`` in any case is false); a value
the broker parses but then rejects (``<max-hops>-1</max-hops>``) is kept as written, one it
cannot parse at all leaves the default, and either way ``BrokerConfig.problems`` says that the
broker does not start. Rules that need the raw text use ``fields``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from types import MappingProxyType
from typing import Any

from ..javastr import java_hashmap_order, java_parse_boolean, java_split, java_trim
from ..records import record
from .positions import Pos
from .transport_keys import BROKER_PROTOCOLS

EMPTY: Mapping[str, Any] = MappingProxyType({})


def _empty_mapping() -> Any:
    return EMPTY


_empty_mapping.__record_constant__ = EMPTY  # type: ignore[attr-defined]  (records: the default itself, uncalled)


def _empty() -> Any:
    return field(default_factory=_empty_mapping)

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


@record(frozen=True, slots=True)
class FieldValue:
    """A child element as written: text of its first occurrence, where, and how many there are."""

    text: str
    pos: Pos
    count: int = 1


Fields = Mapping[str, FieldValue]


@record(frozen=True, slots=True)
class TransportUrl:
    """An acceptor or connector URL as the broker holds it (see :mod:`.urls`).

    ``host`` and ``port`` are what the broker connects to and redirects to: ``host`` keeps an IPv6
    address's brackets (``[fe80::1]``) and is ``"null"`` when Java's URI found no host; ``port`` is
    -1 when none is written and 61616 when the ``port`` parameter is not a number. ``params`` are
    the transport parameters and ``extra_props`` the other query parameters, each in the order the
    broker's HashMap iterates them; a value is None for a parameter written without ``=``.
    """

    raw: str
    scheme: str
    host: str
    port: int
    params: Mapping[str, str | None] = _empty()
    extra_props: Mapping[str, str | None] = _empty()
    kind: str = "connector"  # connector | acceptor | vm
    port_is_number: bool = True  # False: the port parameter is not an int (the broker uses 61616)
    query_name: str | None = None  # ?name=..
    has_query_name: bool = False
    uri_host: str | None = None  # java.net.URI.getHost(): None when the authority is not host[:port]
    authority: str | None = None  # the raw authority as written
    fragment: str | None = None  # text after '#' (the broker reads it as more URLs, not as query)

    def param(self, name: str, default: str | None = None) -> str | None:
        value = self.params.get(name)
        return default if value is None else value

    @property
    def ssl_enabled(self) -> bool:
        return java_parse_boolean(self.params.get("sslEnabled"))

    @property
    def host_port(self) -> str:
        """``host:port`` as the broker writes it in redirects (IPv6 in brackets)."""
        return f"{self.host}:{self.port}"

    @property
    def socket_host(self) -> str:
        """The host to give a socket call: IPv6 without its brackets."""
        return socket_host(self.host)

    @property
    def host_unknown(self) -> bool:
        """Whether Java's URI refused the host, so the broker holds the text ``null`` (never connects)."""
        return self.kind != "vm" and self.host == "null" and self.uri_host is None


MASK_PASSWORD_PARAM = "activemq.usemaskedpassword"  # ActiveMQDefaultConfiguration.getPropMaskPassword()
PASSWORD_CODEC_PARAM = "activemq.passwordcodec"  # ActiveMQDefaultConfiguration.getPropPasswordCodec()
DEFAULT_PASSWORD_CODEC = "org.apache.activemq.artemis.utils.DefaultSensitiveStringCodec"


def transport_params(url: TransportUrl, mask_password: bool | None,
                     password_codec: str | None) -> Mapping[str, str | bool | None]:
    """The params map the broker's parser leaves in an acceptor's or connector's TransportConfiguration:
    the URL's params, then, when ``<mask-password>`` is written, ``activemq.usemaskedpassword``
    (a Boolean, not text) and, when it is true, ``activemq.passwordcodec``; in HashMap order."""
    if mask_password is None:
        return url.params
    added: dict[str, str | bool | None] = dict(url.params)
    added[MASK_PASSWORD_PARAM] = mask_password
    if mask_password and password_codec is not None:
        added[PASSWORD_CODEC_PARAM] = password_codec
    return MappingProxyType({key: added[key] for key in java_hashmap_order(added)})


def socket_host(host: str) -> str:
    """``[fe80::1]`` -> ``fe80::1`` (what socket and DNS calls want); other hosts unchanged."""
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


@record(frozen=True, slots=True)
class Acceptor:
    name: str
    url: TransportUrl
    pos: Pos
    # The broker's TransportConfiguration params: url.params plus what <mask-password> adds (see
    # transport_params()); empty when the model was built without them.
    params: Mapping[str, str | bool | None] = _empty()
    origins: Mapping[str, Pos] = _empty()  # bean property path -> where its value was set (XML or properties)

    @property
    def router(self) -> str | None:
        return self.url.param("router")

    def _protocol_names(self) -> list[str]:
        """Every name in ``protocol=`` (deprecated, still read) and ``protocols=``, split as the broker splits."""
        names: list[str] = []
        for key in ("protocol", "protocols"):
            value = self.url.param(key)
            if value is not None:
                names.extend(java_split(value, ","))
        return names

    @property
    def protocols(self) -> tuple[str, ...] | None:
        """The protocols this acceptor serves; None for all of them.

        RemotingServiceImpl.locateProtocols: each name is looked up exactly (case-sensitive, not
        trimmed); an unknown one is only logged; when no name matches (or none is given, or the
        value is empty) the acceptor serves every protocol.
        """
        found = tuple(dict.fromkeys(n for n in self._protocol_names() if n in BROKER_PROTOCOLS))
        return found or None

    @property
    def unknown_protocols(self) -> tuple[str, ...]:
        """Names in ``protocol(s)=`` that are no protocol of the broker (logged and ignored by it)."""
        return tuple(n for n in self._protocol_names() if n not in BROKER_PROTOCOLS)

    @property
    def ssl_enabled(self) -> bool:
        return self.url.ssl_enabled


@record(frozen=True, slots=True)
class Connector:
    """``params`` are the broker's TransportConfiguration params (see :func:`transport_params`);
    its ``extraProps`` are ``url.extra_props``."""

    name: str
    url: TransportUrl
    pos: Pos
    params: Mapping[str, str | bool | None] = _empty()
    origins: Mapping[str, Pos] = _empty()  # bean property path -> where its value was set (XML or properties)

    @property
    def host(self) -> str:
        return self.url.host

    @property
    def port(self) -> int:
        return self.url.port

    @property
    def ssl_enabled(self) -> bool:
        return self.url.ssl_enabled


@record(frozen=True, slots=True)
class BroadcastGroup:
    """``connector_refs`` are the names the broker uses: for each ``<connector-ref>`` child it reads
    the *first* one (getString), so ``(first,) * count``; ``written_refs`` are the texts as written."""

    name: str
    pos: Pos
    connector_refs: tuple[str, ...] = ()
    written_refs: tuple[str, ...] = ()
    connector_ref_pos: tuple[Pos, ...] = ()
    group_address: str | None = None
    group_port: int = -1
    local_bind_address: str | None = None
    local_bind_port: int = -1
    broadcast_period: int = 2000
    jgroups_file: str | None = None
    jgroups_channel: str | None = None
    fields: Fields = _empty()
    origins: Mapping[str, Pos] = _empty()  # bean property path -> where its value was set (XML or properties)


@record(frozen=True, slots=True)
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
    origins: Mapping[str, Pos] = _empty()  # bean property path -> where its value was set (XML or properties)


@record(frozen=True, slots=True)
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
    static_connectors: tuple[str, ...] = ()  # each <connector-ref>'s first child node, untrimmed
    static_connectors_pos: Pos | None = None
    static_connector_pos: tuple[Pos, ...] = ()
    static_connector_empty: tuple[bool, ...] = ()  # no child node: a NullPointerException in the broker
    allow_direct_connections_only: bool = False
    discovery_group: str | None = None
    discovery_group_pos: Pos | None = None
    uri: str | None = None  # <cluster-connection-uri address="...">
    fields: Fields = _empty()
    origins: Mapping[str, Pos] = _empty()  # bean property path -> where its value was set (XML or properties)


@record(frozen=True, slots=True)
class Policy:
    name: str
    pos: Pos
    properties: Mapping[str, str] = _empty()
    property_pos: Mapping[str, Pos] = _empty()


@record(frozen=True, slots=True)
class Cache:
    pos: Pos
    persisted: bool = False
    timeout: int = 0
    fields: Fields = _empty()


@record(frozen=True, slots=True)
class Pool:
    pos: Pos
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    check_period: int = DEFAULT_CHECK_PERIOD
    quorum_size: int = DEFAULT_QUORUM_SIZE
    quorum_timeout: int = DEFAULT_QUORUM_TIMEOUT
    local_target_enabled: bool = False
    cluster_connection: str | None = None
    static_connectors: tuple[str, ...] = ()  # each <connector-ref>'s first child node, untrimmed
    static_connector_pos: tuple[Pos, ...] = ()
    static_connector_empty: tuple[bool, ...] = ()  # no child node: a NullPointerException in the broker
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


@record(frozen=True, slots=True)
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
    pools: tuple[Pool, ...] = ()  # every <pool> written: the broker parses each (and keeps the last)
    has_key_transformer: bool = False
    fields: Fields = _empty()
    origins: Mapping[str, Pos] = _empty()  # bean property path -> where its value was set (XML or properties)

    def set_at(self, path: str) -> Pos | None:
        """Where the bean property ``path`` (``keyFilter``, ``poolConfiguration.password``) got its value
        when a broker properties line set or overrode it (None for a router broker.xml alone made: its
        elements' positions are in ``fields``)."""
        return self.origins.get(path) if self.origins else None

    @property
    def cache_timeout(self) -> int:
        """Cache expire-after-access in ms; -1 when there is no cache."""
        return self.cache.timeout if self.cache is not None else DEFAULT_CACHE_TIMEOUT


@record(frozen=True, slots=True)
class Transformer:
    class_name: str | None
    properties: Mapping[str, str] = _empty()


@record(frozen=True, slots=True)
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
    origins: Mapping[str, Pos] = _empty()  # bean property path -> where its value was set (XML or properties)

    @property
    def forwarding_addresses(self) -> tuple[str, ...]:
        """Composite forwarding addresses as the broker splits them: Java ``split(",")`` (trailing
        empty entries dropped), each trimmed. ``fields["forwarding-address"]`` keeps the raw text."""
        if self.forwarding_address is None:
            return ()
        return tuple(java_trim(part) for part in java_split(self.forwarding_address))


@record(frozen=True, slots=True)
class PropertyUse:
    """One ``${...}`` token the loader replaced, and where the value came from."""

    token: str
    name: str
    default: str | None
    source: str  # "property" | "env" | "default" | "empty" | "invalid" (empty name: the broker stops)
    value: str = field(repr=False)
    file: str
    line: int
    column: int


@record(frozen=True, slots=True)
class ValueProblem:
    """A value the broker's parser rejects while it reads broker.xml (it then does not start)."""

    section: str  # e.g. "cluster-connection my-cluster"
    element: str
    pos: Pos
    message: str


@record(frozen=True, slots=True)
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
    password_codec: str = DEFAULT_PASSWORD_CODEC  # <password-codec>
    # the default codec's Blowfish key (masked.codec_key), or why arouter cannot judge the codec
    codec_key: bytes | str = field(default=b"clusterpassword", repr=False)
    properties: tuple[PropertyUse, ...] = ()
    included_files: tuple[str, ...] = ()
    problems: tuple[ValueProblem, ...] = ()  # values that stop the broker (FileConfigurationParser)
    # Broker properties applied after broker.xml (config.properties): each source as the broker's
    # status shows it, what arouter found in them, and the lines of sections it keeps but does not model.
    property_sources: tuple[Any, ...] = ()
    property_findings: tuple[Any, ...] = ()
    property_kept: tuple[Any, ...] = ()  # lines for sections arouter does not model: read, kept, not judged
    property_secrets: tuple[str, ...] = field(default=(), repr=False)  # decoded ENC(...) values: never printed
    has_cdata: bool = False  # CDATA sections in the document (first child nodes need a closer look)
    encoding: Any = None  # loader.SourceEncoding of the main file
    relative_includes: tuple[Any, ...] = ()  # loader.RelativeInclude, top-level relative hrefs
    # What the broker's verdict says about each router beyond "deploys" (set by arouter.verdict):
    # the things it logs and skips, or why it would not start when the user goes on anyway.
    deploy_notes: Mapping[str, tuple[str, ...]] = _empty()
    deploy_verdicts: Mapping[str, str] = _empty()  # router name -> its verdict when not "deploys"
    fleet: Any = None  # config.properties.options.FleetView: the fleet this config is one pod of, if known
    # The lxml <core> element and the locator, for schema checks and raw-element rules.
    core: Any = field(default=None, repr=False, compare=False, hash=False)
    locator: Any = field(default=None, repr=False, compare=False, hash=False)
    # parse.elements_below(core) as the model was read from it: name -> those elements (read only)
    elements_below: Any = field(default=None, repr=False, compare=False, hash=False)

    def router(self, name: str) -> ConnectionRouter | None:
        """The router the broker deploys under ``name``: the last one written with it
        (ConnectionRouterManager keeps its routers in a map by name)."""
        found = None
        for router in self.connection_routers:
            if router.name == name:
                found = router
        return found

    def cluster_connection(self, name: str) -> ClusterConnection | None:
        for cc in self.cluster_connections:
            if cc.name == name:
                return cc
        return None

    def routed_acceptors(self) -> tuple[Acceptor, ...]:
        return tuple(a for a in self.acceptors if a.router)
