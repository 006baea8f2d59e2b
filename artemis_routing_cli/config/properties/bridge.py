"""broker.xml's model to the broker's beans and back, keeping where every value came from.

``to_beans`` turns the sections arouter models into :class:`.beans.Bean` s (their XML positions as
origins); after the properties pass ``from_beans`` builds the immutable model again. An object no
properties line touched is handed back unchanged; a touched one is rebuilt from its bean, keeping
what only broker.xml knows (its ``fields``, the element positions) where it came from there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ...javastr import java_hashmap_order, java_parse_int
from ..model import (
    DEFAULT_CHECK_PERIOD,
    DEFAULT_KEY_TYPE,
    DEFAULT_QUORUM_SIZE,
    DEFAULT_QUORUM_TIMEOUT,
    Acceptor,
    BroadcastGroup,
    BrokerConfig,
    Cache,
    ClusterConnection,
    ConnectionRouter,
    Connector,
    DiscoveryGroup,
    Divert,
    Fields,
    Policy,
    Pool,
    TransportUrl,
)
from ..positions import Pos
from .beans import Bean, Entries

_NETTY = "org.apache.activemq.artemis.core.remoting.impl.netty."
_INVM = "org.apache.activemq.artemis.core.remoting.impl.invm."
_FACTORIES = {("Acceptor", False): _NETTY + "NettyAcceptorFactory",
              ("Acceptor", True): _INVM + "InVMAcceptorFactory",
              ("Connector", False): _NETTY + "NettyConnectorFactory",
              ("Connector", True): _INVM + "InVMConnectorFactory"}
_ROUTER_FIELDS = {"keyType": "key-type", "keyFilter": "key-filter", "localTargetFilter": "local-target-filter"}
_POOL_FIELDS = {"username": "username", "password": "password", "checkPeriod": "check-period",
                "quorumSize": "quorum-size", "quorumTimeout": "quorum-timeout",
                "localTargetEnabled": "local-target-enabled", "clusterConnection": "cluster-connection"}
_CLUSTER = (  # bean property, model attribute, XML element
    ("address", "address", "address"), ("connectorName", "connector_ref", "connector-ref"),
    ("clientFailureCheckPeriod", "check_period", "check-period"), ("connectionTTL", "connection_ttl", "connection-ttl"),
    ("retryInterval", "retry_interval", "retry-interval"),
    ("retryIntervalMultiplier", "retry_interval_multiplier", "retry-interval-multiplier"),
    ("maxRetryInterval", "max_retry_interval", "max-retry-interval"),
    ("initialConnectAttempts", "initial_connect_attempts", "initial-connect-attempts"),
    ("reconnectAttempts", "reconnect_attempts", "reconnect-attempts"), ("callTimeout", "call_timeout", "call-timeout"),
    ("duplicateDetection", "use_duplicate_detection", "use-duplicate-detection"),
    ("messageLoadBalancingType", "message_load_balancing", "message-load-balancing"),
    ("maxHops", "max_hops", "max-hops"), ("discoveryGroupName", "discovery_group", None),
    ("allowDirectConnectionsOnly", "allow_direct_connections_only", None),
)
_DIVERT = (("routingName", "routing_name", "routing-name"), ("address", "address", "address"),
           ("forwardingAddress", "forwarding_address", "forwarding-address"), ("exclusive", "exclusive", "exclusive"),
           ("filterString", "filter", "filter"), ("routingType", "routing_type", "routing-type"))
_DISCOVERY = (("refreshTimeout", "refresh_timeout", "refresh-timeout"),
              ("discoveryInitialWaitTimeout", "initial_wait_timeout", "initial-wait-timeout"))
_BROADCAST = (("broadcastPeriod", "broadcast_period", "broadcast-period"),)


def _field_origins(fields: Fields, table: Mapping[str, str], fallback: Pos) -> dict[str, Pos]:
    return {prop: fields[element].pos if element in fields else fallback for prop, element in table.items()
            if element in fields}


def to_beans(config: BrokerConfig) -> Bean:
    root = Bean("Configuration", source=config)
    root.values["connectionRouters"] = Entries("ConnectionRouter", [_router_bean(r) for r in config.connection_routers])
    root.values["acceptorConfigurations"] = Entries("Acceptor", [_transport_bean("Acceptor", a) for a in
                                                                 config.acceptors])
    root.values["connectorConfigurations"] = Entries("Connector", [_transport_bean("Connector", c) for c in
                                                                   config.connectors.values()])
    root.values["clusterConfigurations"] = Entries("ClusterConnection", [
        _table_bean("ClusterConnection", cc, _CLUSTER, {"staticConnectors": cc.static_connectors or None})
        for cc in config.cluster_connections if cc.uri is None])
    root.values["divertConfigurations"] = Entries("Divert", [_table_bean("Divert", d, _DIVERT) for d in config.diverts])
    root.values["discoveryGroupConfigurations"] = Entries("DiscoveryGroup", [
        _table_bean("DiscoveryGroup", g, _DISCOVERY) for g in config.discovery_groups.values()])
    root.values["broadcastGroupConfigurations"] = Entries("BroadcastGroup", [
        _table_bean("BroadcastGroup", b, _BROADCAST, {"connectorInfos": b.connector_refs})
        for b in config.broadcast_groups])
    return root


def _router_bean(r: ConnectionRouter) -> Bean:
    bean = Bean("ConnectionRouter", {"name": r.name, "keyType": r.key_type, "keyFilter": r.key_filter,
                                     "localTargetFilter": r.local_target_filter}, source=r)
    bean.origins = {"name": r.pos, **_field_origins(r.fields, _ROUTER_FIELDS, r.pos)}
    if r.policy is not None:
        p = r.policy
        policy = Bean("Named", {"name": p.name, "properties": dict(p.properties)}, {"name": p.pos}, source=p)
        policy.origins.update({f"properties.{k}": pos for k, pos in p.property_pos.items()})
        bean.values["policyConfiguration"] = policy
        bean.origins["policyConfiguration"] = p.pos
    if r.pool is not None:
        p2 = r.pool
        pool = Bean("Pool", {"username": p2.username, "password": p2.password, "checkPeriod": p2.check_period,
                             "quorumSize": p2.quorum_size, "quorumTimeout": p2.quorum_timeout,
                             "localTargetEnabled": p2.local_target_enabled, "clusterConnection": p2.cluster_connection,
                             "discoveryGroupName": p2.discovery_group,
                             "staticConnectors": p2.static_connectors or None}, source=p2)
        pool.origins = _field_origins(p2.fields, _POOL_FIELDS, p2.pos)
        bean.values["poolConfiguration"] = pool
        bean.origins["poolConfiguration"] = p2.pos
    if r.cache is not None:
        c = r.cache
        cache = Bean("Cache", {"persisted": c.persisted, "timeout": c.timeout}, source=c)
        cache.origins = _field_origins(c.fields, {"persisted": "persisted", "timeout": "timeout"}, c.pos)
        bean.values["cacheConfiguration"] = cache
        bean.origins["cacheConfiguration"] = c.pos
    return bean


def _transport_bean(kind: str, t: Acceptor | Connector) -> Bean:
    params = dict(t.url.params)
    factory = _FACTORIES[(kind, t.url.kind == "vm")]
    bean = Bean(kind, {"name": t.name, "factoryClassName": factory, "params": params,
                       "extraParams": dict(t.url.extra_props)}, {"name": t.pos}, source=t)
    bean.origins.update({f"params.{k}": t.pos for k in params})
    return bean


def _table_bean(kind: str, obj: Any, table: tuple[tuple[str, str, str | None], ...],
                extra: Mapping[str, object] | None = None) -> Bean:
    bean = Bean(kind, {"name": obj.name}, {"name": obj.pos}, source=obj)
    fields: Fields = getattr(obj, "fields", {})
    for prop, attr, element in table:
        bean.values[prop] = getattr(obj, attr)
        if element is not None and element in fields:
            bean.origins[prop] = fields[element].pos
    bean.values.update(extra or {})
    return bean


# -- back to the model -------------------------------------------------------------------------
def _items(root: Bean, name: str) -> list[Bean]:
    entries = root.values.get(name)
    return entries.items if isinstance(entries, Entries) else []


def _pos(bean: Bean, fallback: Pos) -> Pos:
    src = bean.source
    if src is not None and hasattr(src, "pos"):
        return src.pos  # type: ignore[no-any-return]
    return bean.created or fallback


def _origins(bean: Bean, prefix: str = "") -> dict[str, Pos]:
    out = {prefix + k: v for k, v in bean.origins.items()}
    for attr, value in bean.values.items():
        if isinstance(value, Bean):
            out.update(_origins(value, f"{prefix}{attr}."))
    return out


def from_beans(config: BrokerConfig, root: Bean, fallback: Pos) -> dict[str, Any]:
    """The BrokerConfig fields the beans now say (to ``dataclasses.replace`` into ``config``)."""
    routers = tuple(_router(b, fallback) for b in _items(root, "connectionRouters"))
    # an acceptor without factoryClassName is never created (RemotingServiceImpl.createAcceptor logs an error)
    acceptors = tuple(_acceptor(b, fallback) for b in _items(root, "acceptorConfigurations")
                      if b.values.get("factoryClassName"))
    connector_beans = _items(root, "connectorConfigurations")
    if _unchanged(connector_beans, config.connectors.values()):  # broker.xml's own list, repeats included
        connector_list, connectors = config.connector_list, dict(config.connectors)
    else:
        connector_list = tuple(_connector(b, fallback) for b in connector_beans)
        connectors = {}
        for c in connector_list:
            connectors.setdefault(c.name, c)
    uris = tuple(cc for cc in config.cluster_connections if cc.uri is not None)
    clusters = uris + tuple(_cluster(b, fallback) for b in _items(root, "clusterConfigurations"))
    discovery_beans = _items(root, "discoveryGroupConfigurations")
    if _unchanged(discovery_beans, config.discovery_groups.values()):
        discovery_list, discovery = config.discovery_group_list, dict(config.discovery_groups)
    else:
        discovery_list = tuple(_discovery(b, fallback) for b in discovery_beans)
        discovery = {}
        for d in discovery_list:
            discovery.setdefault(d.name, d)
    return {
        "connection_routers": routers,
        "acceptors": acceptors,
        "connector_list": connector_list,
        "connectors": MappingProxyType(connectors),
        "cluster_connections": clusters,
        "diverts": tuple(_divert(b, fallback) for b in _items(root, "divertConfigurations")),
        "discovery_group_list": discovery_list,
        "discovery_groups": MappingProxyType(discovery),
        "broadcast_groups": tuple(_broadcast(b, fallback) for b in _items(root, "broadcastGroupConfigurations")),
    }


def _unchanged(beans: list[Bean], originals: Any) -> bool:
    """No properties line touched, added or removed an entry of this section."""
    return [b.source for b in beans] == list(originals) and not any(b.touched for b in beans)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _router(b: Bean, fallback: Pos) -> ConnectionRouter:
    if not b.touched and isinstance(b.source, ConnectionRouter):
        return b.source
    pos = _pos(b, fallback)
    v = b.values
    policy = None
    pb = v.get("policyConfiguration")
    if isinstance(pb, Bean):
        props = pb.values.get("properties")
        props = props if isinstance(props, dict) else {}
        ppos = pb.created or (pb.source.pos if isinstance(pb.source, Policy) else pos)
        policy = Policy(str(pb.values.get("name") or ""), ppos, MappingProxyType(dict(props)),
                        MappingProxyType({k: pb.origins.get(f"properties.{k}", ppos) for k in props}))
    pool = None
    pl = v.get("poolConfiguration")
    if isinstance(pl, Bean):
        pool = _pool(pl, pos)
    cache = None
    cb = v.get("cacheConfiguration")
    if isinstance(cb, Bean):
        src = cb.source if isinstance(cb.source, Cache) else None
        cache = Cache(src.pos if src else cb.created or pos, bool(cb.values.get("persisted", False)),
                      _int(cb.values.get("timeout"), 0), src.fields if src else MappingProxyType({}))
    src_router = b.source if isinstance(b.source, ConnectionRouter) else None
    key_type = v.get("keyType", DEFAULT_KEY_TYPE)
    return ConnectionRouter(
        name=str(v.get("name") or ""), pos=pos, key_type=str(key_type) if key_type is not None else "",
        key_filter=_str(v.get("keyFilter")), local_target_filter=_str(v.get("localTargetFilter")),
        policy=policy, policies=_policies(src_router, pb, policy), pool=pool, cache=cache,
        has_key_transformer=src_router.has_key_transformer if src_router else False,
        fields=src_router.fields if src_router else MappingProxyType({}),
        origins=MappingProxyType(_origins(b)),
    )


def _policies(src: ConnectionRouter | None, bean: object, policy: Policy | None) -> tuple[Policy, ...]:
    """Every <policy> broker.xml wrote (the rules judge repeats) with the last one as it is now; a
    policy made by a properties line replaces them all."""
    if policy is None:
        return ()
    if src is not None and isinstance(bean, Bean) and src.policy is not None and bean.source is src.policy:
        return (*src.policies[:-1], policy)
    return (policy,)


def _pool(b: Bean, fallback: Pos) -> Pool:
    src = b.source if isinstance(b.source, Pool) else None
    if src is not None and all(p.file == src.pos.file for p in b.origins.values()):
        return src  # no properties line set anything in it
    v = b.values
    static = v.get("staticConnectors")
    static_t = tuple(static) if isinstance(static, (list, tuple)) else ()
    pos = src.pos if src else b.created or fallback
    spos = b.origins.get("staticConnectors", pos)
    same_static = src is not None and static_t == src.static_connectors
    return Pool(
        pos=pos, username=_str(v.get("username")), password=_str(v.get("password")),
        check_period=_int(v.get("checkPeriod"), DEFAULT_CHECK_PERIOD),
        quorum_size=_int(v.get("quorumSize"), DEFAULT_QUORUM_SIZE),
        quorum_timeout=_int(v.get("quorumTimeout"), DEFAULT_QUORUM_TIMEOUT),
        local_target_enabled=bool(v.get("localTargetEnabled", False)),
        cluster_connection=_str(v.get("clusterConnection")),
        static_connectors=static_t,
        static_connector_pos=src.static_connector_pos if same_static and src else (spos,) * len(static_t),
        static_connector_empty=src.static_connector_empty if same_static and src else (False,) * len(static_t),
        discovery_group=_str(v.get("discoveryGroupName")),
        fields=src.fields if src else MappingProxyType({}),
    )


def _url(kind: str, b: Bean, src: TransportUrl | None) -> TransportUrl:
    params = b.values.get("params")
    params = params if isinstance(params, dict) else {}
    extra = b.values.get("extraParams")
    extra = extra if isinstance(extra, dict) else {}
    ordered = MappingProxyType({k: params[k] for k in java_hashmap_order(params)})
    ordered_extra = MappingProxyType({k: extra[k] for k in java_hashmap_order(extra)})
    if src is not None:
        return dataclasses.replace(src, params=ordered, extra_props=ordered_extra)
    host = params.get("host")
    host = host if isinstance(host, str) else "localhost"  # TransportConstants.DEFAULT_HOST
    port_text = params.get("port")
    port = java_parse_int(port_text) if isinstance(port_text, str) else 61616
    return TransportUrl(raw=f"(broker properties: {b.name})", scheme="tcp", host=host,
                        port=port if port is not None else 61616, params=ordered, extra_props=ordered_extra,
                        kind="acceptor" if kind == "Acceptor" else "connector", port_is_number=port is not None,
                        uri_host=host)


def _acceptor(b: Bean, fallback: Pos) -> Acceptor:
    src = b.source if isinstance(b.source, Acceptor) else None
    if src is not None and not b.touched:
        return src
    url = _url("Acceptor", b, src.url if src else None)
    return Acceptor(str(b.name or ""), url, _pos(b, fallback), url.params, origins=MappingProxyType(_origins(b)))


def _connector(b: Bean, fallback: Pos) -> Connector:
    src = b.source if isinstance(b.source, Connector) else None
    if src is not None and not b.touched:
        return src
    url = _url("Connector", b, src.url if src else None)
    return Connector(str(b.name or ""), url, _pos(b, fallback), url.params, origins=MappingProxyType(_origins(b)))


def _from_table(cls: type, b: Bean, fallback: Pos, table: tuple[tuple[str, str, str | None], ...],
                **extra: object) -> Any:
    values = {attr: b.values[prop] for prop, attr, _ in table if prop in b.values}
    values.update(extra)
    if b.source is not None:
        return dataclasses.replace(b.source, **values, origins=MappingProxyType(_origins(b)))
    return cls(name=str(b.name or ""), pos=_pos(b, fallback), **values, origins=MappingProxyType(_origins(b)))


def _cluster(b: Bean, fallback: Pos) -> ClusterConnection:
    if not b.touched and isinstance(b.source, ClusterConnection):
        return b.source
    static = b.values.get("staticConnectors")
    static_t = tuple(static) if isinstance(static, (list, tuple)) else ()
    extra: dict[str, object] = {"static_connectors": static_t}
    if b.source is None or static_t != b.source.static_connectors:
        pos = b.origins.get("staticConnectors", _pos(b, fallback))
        extra.update(static_connector_pos=(pos,) * len(static_t), static_connector_empty=(False,) * len(static_t))
    if b.source is None:
        extra.setdefault("connector_ref", None)
    return _from_table(ClusterConnection, b, fallback, _CLUSTER, **extra)  # type: ignore[no-any-return]


def _divert(b: Bean, fallback: Pos) -> Divert:
    if not b.touched and isinstance(b.source, Divert):
        return b.source
    extra: dict[str, object] = {}
    if b.source is None:
        extra = {"address": None, "forwarding_address": None}
        if "routingName" not in b.values:
            import uuid  # (uuid imports platform: only when a divert is created from properties)

            extra["routing_name"] = str(uuid.uuid4())  # DivertConfiguration's default: a random UUID
        if "filterString" in b.values:
            extra["filter_pos"] = b.origins.get("filterString")
    return _from_table(Divert, b, fallback, _DIVERT, **extra)  # type: ignore[no-any-return]


def _discovery(b: Bean, fallback: Pos) -> DiscoveryGroup:
    if not b.touched and isinstance(b.source, DiscoveryGroup):
        return b.source
    return _from_table(DiscoveryGroup, b, fallback, _DISCOVERY)  # type: ignore[no-any-return]


def _broadcast(b: Bean, fallback: Pos) -> BroadcastGroup:
    if not b.touched and isinstance(b.source, BroadcastGroup):
        return b.source
    refs = b.values.get("connectorInfos")
    refs_t = tuple(refs) if isinstance(refs, (list, tuple)) else ()
    return _from_table(BroadcastGroup, b, fallback, (), connector_refs=refs_t,  # type: ignore[no-any-return]
                       **{attr: b.values[prop] for prop, attr, _ in _BROADCAST if prop in b.values})
