"""Which targets each router pool has, read from broker.xml the way the broker builds its pools.

* static pool: the ``connector-ref``s in order (an unknown name is skipped, as the broker only logs it);
* cluster pool: the cluster connection's members (its static connectors, or what its discovery
  group announces; the live topology may hold more);
* discovery pool: whatever the discovery group announces while we listen;
* the local target first when ``local-target-enabled`` (probed only with ``--local URL``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config.model import BrokerConfig, ConnectionRouter, Connector, DiscoveryGroup, TransportUrl
from ..config.urls import UrlError, parse_transport_url
from ..errors import UsageError
from ..javastr import java_parse_boolean
from ..routing.pool import unreachable_reason
from ..routing.targets import LOCAL
from .broadcast import connector_flag, connector_host, connector_param, connector_port
from .discovery import DiscoveredNode
from .model import HANDSHAKE_OF, Credentials, Endpoint


@dataclass(frozen=True)
class DiscoverySpec:
    group: DiscoveryGroup
    source: str  # "discovery:NAME" or "cluster:NAME"


@dataclass(frozen=True)
class PoolPlan:
    router: ConnectionRouter
    source: str  # static | cluster | discovery
    credentials: Credentials
    endpoints: tuple[Endpoint, ...] = ()
    discovery: DiscoverySpec | None = None
    local: bool = False
    notes: tuple[str, ...] = ()

    @property
    def policy_name(self) -> str | None:
        return self.router.policy.name if self.router.policy is not None else None


def endpoint_for_url(name: str, url: TransportUrl, source: str, *, local: bool = False) -> Endpoint:
    params = url.params
    return Endpoint(
        name=name, host=url.host, port=url.port, source=source,
        tls=url.ssl_enabled, sni_host=params.get("sniHost") or None,
        verify_host=java_parse_boolean(params.get("verifyHost")),  # Boolean.valueOf: not trimmed
        trust_all=java_parse_boolean(params.get("trustAll")),
        local=local,
        protocols=_handshakes(url.param("protocols") or url.extra_props.get("protocols")
                              or url.param("protocol") or url.extra_props.get("protocol")),
    )


def _handshakes(value: str | None) -> tuple[str, ...]:
    """``protocols=CORE,MQTT`` as the probe's handshakes, in order (names the probe has none for dropped)."""
    if not value:
        return ()
    names = (HANDSHAKE_OF.get(name) for name in value.split(","))
    return tuple(dict.fromkeys(n for n in names if n is not None))


def endpoint_for_connector(connector: Connector, source: str) -> Endpoint:
    return endpoint_for_url(connector.name, connector.url, source)


def endpoint_for_node(node: DiscoveredNode, source: str) -> Endpoint:
    c = node.connector
    return Endpoint(
        name=node.node_id, host=connector_host(c), port=connector_port(c), source=source,
        tls=connector_flag(c, "sslEnabled"), sni_host=connector_param(c, "sniHost") or None,
        verify_host=connector_flag(c, "verifyHost"), trust_all=connector_flag(c, "trustAll"),
        node_id=node.node_id,
    )


def local_endpoint(url: str) -> Endpoint:
    """``--local URL`` (``tcp://host:port?sslEnabled=true``) as the local target's endpoint."""
    try:
        parsed = parse_transport_url(url)
    except UrlError as exc:
        raise UsageError(f"--local {url!r}: {exc}") from None
    return endpoint_for_url(LOCAL, parsed, "local", local=True)


def plan_pools(config: BrokerConfig, router_name: str | None = None) -> list[PoolPlan]:
    """One plan per router with a pool (or just ``router_name``); UsageError when there is none."""
    if router_name is not None:
        router = config.router(router_name)
        if router is None:
            names = ", ".join(r.name for r in config.connection_routers) or "none"
            raise UsageError(f"no connection router named {router_name!r} (routers: {names})", file=config.path)
        if router.pool is None:
            raise UsageError(f"connection router {router_name!r} has no <pool>: nothing to probe", file=config.path)
        return [_plan(config, router)]
    plans = [_plan(config, r) for r in config.connection_routers if r.pool is not None]
    if not plans:
        raise UsageError("no connection router with a <pool> in this broker.xml: nothing to probe",
                         file=config.path)
    return plans


def _plan(config: BrokerConfig, router: ConnectionRouter) -> PoolPlan:
    pool = router.pool
    assert pool is not None
    creds = Credentials(pool.username, pool.password)
    notes: list[str] = []
    if creds.masked:
        notes.append("the pool password is masked (ENC(...)) and cannot be unmasked here: "
                     "handshakes and management reads go without it")
    endpoints: list[Endpoint] = []
    discovery: DiscoverySpec | None = None
    if pool.source == "static":
        endpoints = _static(config, pool.static_connectors, "static", notes)
    elif pool.source == "cluster":
        name = pool.cluster_connection or ""
        cc = config.cluster_connection(name)
        if cc is None:
            notes.append(f"cluster connection {name!r} does not exist: the pool has no members")
        elif cc.discovery_group:
            discovery = _discovery(config, cc.discovery_group, f"cluster:{name}", notes)
        else:
            notes.append(f"cluster connection {name!r}: members are its static connectors "
                         "(the live cluster topology may hold more)")
            endpoints = _static(config, cc.static_connectors, f"cluster:{name}", notes)
    elif pool.source == "discovery":
        group = pool.discovery_group or ""
        discovery = _discovery(config, group, f"discovery:{group}", notes)
    return PoolPlan(router, pool.source, creds, tuple(endpoints), discovery, pool.local_target_enabled,
                    tuple(notes))


def _static(config: BrokerConfig, names: tuple[str, ...], source: str, notes: list[str]) -> list[Endpoint]:
    out = []
    for name in names:
        connector = config.connectors.get(name)
        if connector is None:
            notes.append(f"static connector {name!r} does not exist: the broker skips it")
            continue
        if connector.url.host_unknown:
            notes.append(f"static connector {name!r}: {unreachable_reason(connector.url.authority)}")
        out.append(endpoint_for_connector(connector, source))
    return out


def _discovery(config: BrokerConfig, name: str, source: str, notes: list[str]) -> DiscoverySpec | None:
    group = config.discovery_groups.get(name)
    if group is None:
        notes.append(f"discovery group {name!r} does not exist: the pool has no members")
        return None
    if group.jgroups_file or group.jgroups_channel:
        notes.append(f"discovery group {name!r} uses JGroups, which arouter cannot listen to")
        return None
    if not group.group_address or group.group_port < 0:
        notes.append(f"discovery group {name!r} has no group-address/group-port")
        return None
    return DiscoverySpec(group, source)
