"""Each section of a loaded config as the ordered settings the broker reads from it.

A setting is ``name -> Setting(value, line, ignored)``. Values come from the typed model, so what
the broker reads the same way (reordered elements, comments, a ``${}`` that resolves to the same
text, an explicit default) gives the same value. ``ignored`` says why the broker does not read a
setting at all (``key-transformer``, a ``<policy>`` that is not the last, a property the policy never
reads): a change there changes nothing in routing, and the diff says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..config.model import BrokerConfig, ClusterConnection, ConnectionRouter, Divert, Policy
from ..config.positions import Pos

HIDDEN = "(hidden)"  # passwords are never shown

# The properties each policy reads (ConsistentHashModuloPolicy.MODULO,
# LeastConnectionsPolicy.CONNECTION_COUNT_THRESHOLD); any other property is read by nobody.
POLICY_PROPERTIES = {"CONSISTENT_HASH_MODULO": ("MODULO",), "LEAST_CONNECTIONS": ("CONNECTION_COUNT_THRESHOLD",)}


@dataclass(frozen=True, slots=True)
class Setting:
    value: object
    file: str
    line: int
    ignored: str | None = None  # why the broker does not read it
    secret: bool = False
    via: tuple[str, ...] = ()  # the ${names} substituted into it: its value is not shown unless asked


Settings = dict[str, Setting]
Put = Callable[..., None]  # put(name, value, element=None, pos=None, ignored=None, secret=False, via=())


def _at(pos: Pos | None, fallback: Pos) -> tuple[str, int]:
    where = pos or fallback
    return where.file, where.line


def _field_pos(fields: object, name: str) -> Pos | None:
    fv = getattr(fields, "get", lambda _n: None)(name)
    return fv.pos if fv is not None else None


def substituted(config: BrokerConfig, file: str, line: int) -> tuple[str, ...]:
    """The ``${name}``s replaced on ``file``:``line`` (their values are the user's, not ours to print)."""
    return tuple(dict.fromkeys(u.name for u in config.properties if u.file == file and u.line == line))


def _with_via(config: BrokerConfig, settings: Settings) -> Settings:
    if not config.properties:
        return settings
    return {k: dataclasses.replace(v, via=tuple(dict.fromkeys(v.via + substituted(config, v.file, v.line))))
            for k, v in settings.items()}


def _blank_none(value: str | None) -> str | None:
    return None if value is None or not value.strip() else value


def router_settings(config: BrokerConfig, router: ConnectionRouter) -> Settings:
    """The router's settings, its policy's, its cache's and its pool's (``pool.…``)."""
    out: Settings = {}
    f = router.fields

    def put(name: str, value: object, element: str | None = None, pos: Pos | None = None,
            ignored: str | None = None, secret: bool = False, via: tuple[str, ...] = ()) -> None:
        file, line = _at(pos or (_field_pos(f, element) if element else None), router.pos)
        out[name] = Setting(value, file, line, ignored, secret, via)

    put("key-type", router.key_type, "key-type")
    put("key-filter", _blank_none(router.key_filter), "key-filter")
    put("local-target-filter", router.local_target_filter, "local-target-filter")
    _policy_settings(router, put)
    cache = router.cache
    put("cache", "yes" if cache is not None else "no", pos=cache.pos if cache else None)
    if cache is not None:
        put("cache.persisted", cache.persisted, pos=_field_pos(cache.fields, "persisted") or cache.pos)
        put("cache.timeout", cache.timeout, pos=_field_pos(cache.fields, "timeout") or cache.pos)
    transformer = f.get("key-transformer")
    put("key-transformer", transformer.text if transformer is not None else None, "key-transformer",
        ignored="the broker's parser never reads key-transformer")
    _pool_settings(config, router, put)
    return _with_via(config, out)


def _policy_settings(router: ConnectionRouter, put: Put) -> None:
    policy: Policy | None = router.policy
    put("policy", policy.name if policy is not None else None, pos=policy.pos if policy else None)
    if policy is not None:
        read = POLICY_PROPERTIES.get(policy.name, ())
        for key, value in policy.properties.items():
            why = None if key in read else (f"{policy.name} reads only {', '.join(read)}" if read
                                            else f"{policy.name} reads no property")
            put(f"policy.property {key}", value, pos=policy.property_pos.get(key, policy.pos),
                ignored=why)
    earlier = router.policies[:-1] if len(router.policies) > 1 else ()
    if earlier:
        shown = "; ".join(_policy_text(p) for p in earlier)
        put("policy (not the last)", shown, pos=earlier[0].pos,
            ignored="the broker reads only the last <policy>")


def _policy_text(policy: Policy) -> str:
    props = ", ".join(f"{k}={v}" for k, v in policy.properties.items())
    return f"{policy.name}({props})" if props else policy.name


def _pool_settings(config: BrokerConfig, router: ConnectionRouter, put: Put) -> None:
    pool = router.pool
    put("pool", "yes" if pool is not None else "no", pos=pool.pos if pool else None)
    if pool is None:
        return
    f = pool.fields

    def pput(name: str, value: object, element: str | None = None, secret: bool = False) -> None:
        put(f"pool.{name}", value, pos=(_field_pos(f, element or name) or pool.pos), secret=secret)

    pput("username", pool.username)
    pput("password", pool.password, secret=True)
    pput("check-period", pool.check_period)
    pput("quorum-size", pool.quorum_size)
    pput("quorum-timeout", pool.quorum_timeout)
    pput("local-target-enabled", pool.local_target_enabled)
    pput("source", pool.source)
    if pool.cluster_connection is not None:
        pput("cluster-connection", pool.cluster_connection)
    if pool.discovery_group is not None:
        pput("discovery-group", pool.discovery_group, "discovery-group-ref")
    for i, name in enumerate(pool.static_connectors):
        pos = pool.static_connector_pos[i] if i < len(pool.static_connector_pos) else pool.pos
        connector = config.connectors.get(name)
        where = connector.url.host_port if connector is not None else "(no such connector: skipped by the broker)"
        # a connector URL that came (in part) from ${...} is hidden as the URL's own line would be
        via = substituted(config, connector.pos.file, connector.pos.line) if connector is not None else ()
        put(f"pool.member {name}", f"#{i + 1} {where}", pos=pos, via=via)


# Model fields that are positions or raw text, not settings.
_SKIP = ("pos", "fields")


def _generic(obj: object, section_pos: Pos) -> Settings:
    out: Settings = {}
    fields = getattr(obj, "fields", {})
    for fld in dataclasses.fields(obj):  # type: ignore[arg-type]
        name = fld.name
        if name == "name" or name in _SKIP or name.endswith(("_pos", "_empty")):
            continue
        value = getattr(obj, name)
        if dataclasses.is_dataclass(value):  # e.g. a divert's transformer: class name and properties
            value = str({f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)})
        elif isinstance(value, Mapping):
            value = str(_plain(value))
        elif isinstance(value, tuple):
            value = ", ".join(map(str, value)) if value else None
        element = name.replace("_", "-")
        file, line = _at(_field_pos(fields, element), section_pos)
        out[element] = Setting(value, file, line)
    return out


def _plain(value: object) -> object:
    return dict(value) if isinstance(value, Mapping) else value


def divert_settings(config: BrokerConfig, divert: Divert) -> Settings:
    out = _generic(divert, divert.pos)
    out["forwarding-address"] = dataclasses.replace(out["forwarding-address"],
                                                    value=", ".join(divert.forwarding_addresses) or None)
    if divert.filter_pos is not None:
        out["filter"] = dataclasses.replace(out["filter"], file=divert.filter_pos.file, line=divert.filter_pos.line)
    return _with_via(config, out)


def cluster_settings(config: BrokerConfig, cc: ClusterConnection) -> Settings:
    return _with_via(config, _generic(cc, cc.pos))
