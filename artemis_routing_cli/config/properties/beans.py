"""The broker's configuration beans that arouter models, as the properties pass sees them.

Each kind lists its bean properties (the getter/setter names BeanUtils finds) and their types, from
the broker's classes: ``ConfigurationImpl`` (the collections), ``ConnectionRouterConfiguration``,
``PoolConfiguration``, ``CacheConfiguration``, ``NamedPropertyConfiguration``,
``TransportConfiguration``, ``ClusterConnectionConfiguration``, ``DivertConfiguration``,
``DiscoveryGroupConfiguration``, ``BroadcastGroupConfiguration``. A type ``OTHER`` is a property
arouter keeps but does not model (anything below it is accepted as written, not judged).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import DIVERT_ROUTING_TYPES, KEY_TYPES, LOAD_BALANCING_TYPES
from ..positions import Pos

STR, INT, LONG, DOUBLE, BOOL, LIST, MAP, NAMED, OTHER = ("str", "int", "long", "double", "bool", "list", "map",
                                                        "named", "other")


@dataclass(frozen=True, slots=True)
class Enum:
    constants: tuple[str, ...]
    java: str = ""  # the enum class (Enum.valueOf's message names it)


@dataclass(frozen=True, slots=True)
class Nested:
    """A nested bean, created with its no-argument constructor when a key goes through it while null."""

    kind: str


@dataclass(frozen=True, slots=True)
class Coll:
    """A collection of named entries: ``coll.NAME`` finds the entry whose name is NAME or creates it."""

    kind: str


Type = str | Enum | Nested | Coll

_ARTEMIS = "org.apache.activemq.artemis."
_SERVER = _ARTEMIS + "core.server."
_KEY_TYPE = Enum(KEY_TYPES, _SERVER + "routing.KeyType")
_LOAD_BALANCING = Enum(LOAD_BALANCING_TYPES, _SERVER + "cluster.impl.MessageLoadBalancingType")
_DIVERT_ROUTING = Enum(DIVERT_ROUTING_TYPES, _SERVER + "ComponentConfigurationRoutingType")

SCHEMAS: dict[str, dict[str, Type]] = {
    "Configuration": {
        "connectionRouters": Coll("ConnectionRouter"),
        "acceptorConfigurations": Coll("Acceptor"),
        "connectorConfigurations": Coll("Connector"),
        "clusterConfigurations": Coll("ClusterConnection"),
        "divertConfigurations": Coll("Divert"),
        "discoveryGroupConfigurations": Coll("DiscoveryGroup"),
        "broadcastGroupConfigurations": Coll("BroadcastGroup"),
    },
    "ConnectionRouter": {
        "name": STR, "keyType": _KEY_TYPE, "keyFilter": STR, "localTargetFilter": STR,
        "cacheConfiguration": Nested("Cache"), "poolConfiguration": Nested("Pool"), "policyConfiguration": NAMED,
    },
    "Cache": {"persisted": BOOL, "timeout": INT},
    "Pool": {
        "username": STR, "password": STR, "checkPeriod": INT, "quorumSize": INT, "quorumTimeout": INT,
        "localTargetEnabled": BOOL, "clusterConnection": STR, "discoveryGroupName": STR, "staticConnectors": LIST,
    },
    "Named": {"name": STR, "properties": MAP},
    "Acceptor": {"name": STR, "factoryClassName": STR, "params": MAP, "extraParams": MAP},
    "Connector": {"name": STR, "factoryClassName": STR, "params": MAP, "extraParams": MAP},
    "ClusterConnection": {
        "name": STR, "address": STR, "connectorName": STR, "clientFailureCheckPeriod": LONG, "connectionTTL": LONG,
        "retryInterval": LONG, "retryIntervalMultiplier": DOUBLE, "maxRetryInterval": LONG,
        "initialConnectAttempts": INT, "reconnectAttempts": INT, "callTimeout": LONG, "callFailoverTimeout": LONG,
        "duplicateDetection": BOOL, "messageLoadBalancingType": _LOAD_BALANCING, "maxHops": INT,
        "confirmationWindowSize": INT, "producerWindowSize": INT, "staticConnectors": LIST,
        "discoveryGroupName": STR, "allowDirectConnectionsOnly": BOOL, "minLargeMessageSize": INT,
        "clusterNotificationInterval": LONG, "clusterNotificationAttempts": INT, "clientId": STR,
        "topologyScannerAttempts": INT,
    },
    "Divert": {
        "name": STR, "routingName": STR, "address": STR, "forwardingAddress": STR, "exclusive": BOOL,
        "filterString": STR, "transformerConfiguration": OTHER, "routingType": _DIVERT_ROUTING,
    },
    "DiscoveryGroup": {
        "name": STR, "refreshTimeout": LONG, "discoveryInitialWaitTimeout": LONG, "stoppingTimeout": LONG,
        "broadcastEndpointFactory": OTHER,
    },
    "BroadcastGroup": {"name": STR, "broadcastPeriod": LONG, "connectorInfos": LIST, "endpointFactory": OTHER},
}

# What a named entry's class is called in the broker (for messages that read like its own).
JAVA_NAMES = {
    "Configuration": "ConfigurationImpl", "ConnectionRouter": "ConnectionRouterConfiguration",
    "Cache": "CacheConfiguration", "Pool": "PoolConfiguration", "Named": "NamedPropertyConfiguration",
    "Acceptor": "TransportConfiguration", "Connector": "TransportConfiguration",
    "ClusterConnection": "ClusterConnectionConfiguration", "Divert": "DivertConfiguration",
    "DiscoveryGroup": "DiscoveryGroupConfiguration", "BroadcastGroup": "BroadcastGroupConfiguration",
}
# Their packages: Class.toString() is "class " + the full name, which the broker's status reasons quote.
_PACKAGES = {
    "Configuration": "core.config.impl.", "ConnectionRouter": "core.config.routing.", "Cache": "core.config.routing.",
    "Pool": "core.config.routing.", "Named": "core.config.routing.", "Acceptor": "api.core.", "Connector": "api.core.",
    "ClusterConnection": "core.config.", "Divert": "core.config.", "DiscoveryGroup": "api.core.",
    "BroadcastGroup": "api.core.",
}
JAVA_CLASSES = {kind: _ARTEMIS + _PACKAGES[kind] + name for kind, name in JAVA_NAMES.items()}


@dataclass(eq=False, slots=True)
class Bean:
    """A mutable stand-in for one broker bean while the properties are applied."""

    kind: str
    values: dict[str, object] = field(default_factory=dict)
    origins: dict[str, Pos] = field(default_factory=dict)  # property path below this bean -> where set
    created: Pos | None = None  # the properties line that created it (None: it came from broker.xml)
    source: object = None  # the model object it was made from
    touched: bool = False  # a properties line set something in or below it
    other: dict[str, str] = field(default_factory=dict)  # keys below OTHER properties, as written
    failed_below: list[Pos] = field(default_factory=list)  # lines that failed for want of a map in it

    @property
    def name(self) -> str | None:
        value = self.values.get("name")
        return value if isinstance(value, str) else None


@dataclass(eq=False, slots=True)
class Entries:
    """A collection property: its named entries in order."""

    kind: str
    items: list[Bean] = field(default_factory=list)

    def find(self, name: str) -> Bean | None:
        for bean in self.items:
            if bean.name == name:
                return bean
        return None
