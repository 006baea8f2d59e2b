"""The broker's ConnectionRouterControl MBean, answered the way Jolokia answers it.

MBean ``org.apache.activemq.artemis:broker="B",component=connection-routers,name="R"``:

* ``getTarget(key)`` - the target for a key (CompositeData: nodeID, local, connector{name,
  factoryClassName, params}) or null when the router does not answer OK. Enters the routing
  engine through ``Router.route_key`` (no key resolution, no key-filter), like the broker. The
  params TabularData has the row items ``key``/``value`` Jolokia turns into a plain map
  (``{"host": "b2", "port": "61617"}``);
* ``getTargetAsJSON(key)`` - the same as a JSON string (the connector with ``extraProps``);
* ``getLocalTargetFilter()`` / ``setLocalTargetFilter(regexp)`` and ``getTargetKeyFilter()`` /
  ``setTargetKeyFilter(regexp)`` (also as the attributes ``LocalTargetFilter`` and
  ``TargetKeyFilter`` with ``read``/``write``); a blank filter removes it.

Requests are Jolokia's: ``{"type": "exec", "mbean": ..., "operation": ..., "arguments": [...]}``
(or a list of them); answers are ``{"request": ..., "value": ..., "status": 200, "timestamp": s}``
or ``{"request": ..., "error_type": ..., "error": ..., "status": 4xx/5xx, "timestamp": s}``. Jolokia's
JSON objects are ``java.util.HashMap``s: every object is written with its keys in HashMap order
(:func:`java_map`), compact and in UTF-8 (its JSONWriter escapes only ``"``, ``\\`` and control
characters).
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..javastr import java_hashmap_order, java_is_blank, java_trim
from ..jregex.javaregex import JavaRegexError, compile_java, match_budget
from ..protocols.core_buffer import ParamValue, TransportConfig
from ..routing.router import OK, RouteResult
from .decide import MATCH_BUDGET_SECONDS, RouterService

DOMAIN = "org.apache.activemq.artemis"
COMPONENT = "connection-routers"
ATTRIBUTES = ("LocalTargetFilter", "TargetKeyFilter")


class JolokiaError(Exception):
    def __init__(self, status: int, error_type: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type


def parse_object_name(name: str) -> tuple[str, dict[str, str]]:
    """``domain:key=value,key="quoted, value"`` -> (domain, properties without quotes)."""
    domain, sep, rest = name.partition(":")
    if not sep or not domain:
        raise JolokiaError(400, "javax.management.MalformedObjectNameException", f"Invalid ObjectName {name!r}")
    props: dict[str, str] = {}
    i = 0
    while i < len(rest):
        eq = rest.find("=", i)
        if eq < 0:
            raise JolokiaError(400, "javax.management.MalformedObjectNameException", f"Invalid ObjectName {name!r}")
        key = rest[i:eq]
        i = eq + 1
        if rest[i:i + 1] == '"':
            value_chars: list[str] = []
            i += 1
            while i < len(rest) and rest[i] != '"':
                if rest[i] == "\\" and i + 1 < len(rest):
                    i += 1
                value_chars.append(rest[i])
                i += 1
            i += 1  # closing quote
            value = "".join(value_chars)
        else:
            end = rest.find(",", i)
            end = len(rest) if end < 0 else end
            value = rest[i:end]
            i = end
        props[key] = value
        if rest[i:i + 1] == ",":
            i += 1
    return domain, props


def mbean_name(broker: str, router: str) -> str:
    return f'{DOMAIN}:broker="{broker}",component={COMPONENT},name="{router}"'


class RouterControl:
    """The MBeans of every router of one broker."""

    def __init__(self, services: dict[str, RouterService], broker_name: str) -> None:
        self.services = services
        self.broker_name = broker_name

    def find(self, mbean: object) -> RouterService:
        if not isinstance(mbean, str):
            raise JolokiaError(400, "java.lang.IllegalArgumentException", "No MBean name given")
        domain, props = parse_object_name(mbean)
        service = self.services.get(props.get("name", ""))
        if (domain != DOMAIN or props.get("component") != COMPONENT or props.get("broker") != self.broker_name
                or set(props) != {"broker", "component", "name"} or service is None):
            raise JolokiaError(404, "javax.management.InstanceNotFoundException",
                               f"javax.management.InstanceNotFoundException : {mbean}")
        return service

    # -- one request ----------------------------------------------------------------------------
    def answer(self, request: object) -> dict[str, Any]:
        stamp = int(time.time())
        if not isinstance(request, dict):
            return {"error_type": "java.lang.IllegalArgumentException", "error": "a request must be a JSON object",
                    "status": 400, "timestamp": stamp}
        try:
            value = self._dispatch(request)
        except JolokiaError as exc:
            return java_map({"request": request, "error_type": exc.error_type,
                             "error": f"{exc.error_type} : {exc}" if not str(exc).startswith(exc.error_type)
                             else str(exc), "status": exc.status, "timestamp": stamp})
        return java_map({"request": request, "value": value, "status": 200, "timestamp": stamp})

    def _dispatch(self, request: dict[str, Any]) -> Any:
        kind = str(request.get("type", "")).lower()
        service = self.find(request.get("mbean"))
        if kind == "exec":
            operation = str(request.get("operation") or "").split("(", 1)[0]
            args = request.get("arguments") or []
            if not isinstance(args, list):
                args = [args]
            return self._exec(service, operation, args)
        if kind == "read":
            attribute = request.get("attribute")
            if attribute is None:
                return java_map({a: self._read(service, a) for a in ATTRIBUTES})
            return self._read(service, str(attribute))
        if kind == "write":
            self._write(service, str(request.get("attribute")), request.get("value"))
            return None
        raise JolokiaError(400, "java.lang.IllegalArgumentException", f"Unsupported request type {kind!r}")

    def _exec(self, service: RouterService, operation: str, args: list[Any]) -> Any:
        arity = {"getTarget": 1, "getTargetAsJSON": 1, "getLocalTargetFilter": 0, "setLocalTargetFilter": 1,
                 "getTargetKeyFilter": 0, "setTargetKeyFilter": 1}
        name = mbean_name(self.broker_name, service.router.name)
        if operation not in arity:
            raise JolokiaError(404, "java.lang.IllegalArgumentException",
                               f"No operation {operation} found on MBean {name}")
        if len(args) != arity[operation]:
            raise JolokiaError(400, "java.lang.IllegalArgumentException",
                               f"Invalid number of operation arguments. Operation {operation} on "
                               f"{name} requires {arity[operation]} "
                               f"parameters, not {len(args)} as given")
        if operation in ("getTarget", "getTargetAsJSON"):
            key = None if args[0] is None else str(args[0])
            if key is None:
                raise JolokiaError(500, "java.lang.NullPointerException", "the key is null")
            try:
                with match_budget(MATCH_BUDGET_SECONDS):
                    result = service.router.route_key(key)
            except TimeoutError:
                raise JolokiaError(500, "java.util.concurrent.TimeoutException",
                                   f"the local-target-filter took longer than {MATCH_BUDGET_SECONDS * 1000:g} ms "
                                   "for this key (arouter's budget for one regex evaluation)") from None
            if operation == "getTarget":
                return target_composite(service, result)
            return target_json(service, result)
        if operation.startswith("get"):
            return self._read(service, operation[3:])
        self._write(service, operation[3:], args[0])
        return None

    def _read(self, service: RouterService, attribute: str) -> str | None:
        router = service.router
        if attribute == "LocalTargetFilter":
            return router.local_target_filter.source if router.local_target_filter is not None else None
        if attribute == "TargetKeyFilter":
            key_filter = router.key_filter
            return key_filter if key_filter is not None and not java_is_blank(key_filter) else None
        raise JolokiaError(404, "javax.management.AttributeNotFoundException", f"No such attribute: {attribute}")

    def _write(self, service: RouterService, attribute: str, value: object) -> None:
        router = service.router
        text = None if value is None else str(value)
        if attribute not in ATTRIBUTES:
            raise JolokiaError(404, "javax.management.AttributeNotFoundException", f"No such attribute: {attribute}")
        # KeyResolver.setKeyFilter drops a String.isBlank() filter; ConnectionRouter.setLocalTargetFilter
        # one whose String.trim() is empty (a NBSP is a filter for both; U+2003 only for the latter).
        # Anything else goes to Pattern.compile: a pattern that does not compile throws
        # PatternSyntaxException to the caller and the router keeps its filter.
        if attribute == "LocalTargetFilter":
            blank = text is None or not java_trim(text)
        else:
            blank = text is None or java_is_blank(text)
        pattern = None
        if not blank:
            try:
                pattern = compile_java(text or "").prepare()  # compiled here, not in a key's budget
            except JavaRegexError as exc:
                raise JolokiaError(500, "java.util.regex.PatternSyntaxException", str(exc)) from None
        if attribute == "LocalTargetFilter":
            router.local_target_filter = pattern
        else:
            router.key_filter = None if blank else text


def java_map(items: dict[str, Any]) -> dict[str, Any]:
    """``items`` with its keys in the order Jolokia writes a JSON object: its ``JSONObject`` is a
    ``java.util.HashMap``, so the keys come out in HashMap order, whatever order they went in."""
    return {key: items[key] for key in java_hashmap_order(items)}


def _connector(service: RouterService, result: RouteResult) -> TransportConfig | None:
    target = result.target
    if target is None or target.local or target.host is None or target.port is None:
        return None  # the broker's LocalTarget has no connector
    return service.connector_config(target.name, target.host, target.port)


def target_json(service: RouterService, result: RouteResult) -> str | None:
    """ConnectionRouterControl.getTargetAsJSON: the broker's own compact JSON (its builder keeps
    insertion order): nodeID, local, connector = ``TransportConfiguration.toJson`` (name,
    factoryClassName, params, extraProps; each map in its HashMap order, Booleans as JSON
    booleans, a value-less parameter as null), or null unless OK."""
    if result.status != OK or result.target is None:
        return None
    connector = _connector(service, result)
    data: dict[str, Any] = {"nodeID": result.target.node_id, "local": result.target.local, "connector": None}
    if connector is not None:
        data["connector"] = {"name": connector.name, "factoryClassName": connector.factory_class_name,
                             "params": _in_order(connector.params), "extraProps": _in_order(connector.extra_props)}
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


# Deliberately unlike the broker, which answers connector passwords (trustStorePassword, ...) in
# clear over its management API: arouter never shows a password. The CORE redirect still carries
# them, as the broker's does, because the client needs them to connect (docs/fidelity.md).
MASK = "****"
# what <mask-password> adds: the codec's class name and a flag, not secrets
_NOT_SECRET = frozenset({"activemq.passwordcodec", "activemq.usemaskedpassword"})


def _shown(key: str, value: ParamValue) -> ParamValue:
    """``value``, or the mask for a password (trustStorePassword, keyStorePassword, ...)."""
    if value is None or key in _NOT_SECRET or "password" not in key.lower():
        return value
    return MASK


def _in_order(values: dict[str, ParamValue]) -> dict[str, ParamValue]:
    return {key: _shown(key, values[key]) for key in java_hashmap_order(values)}


def target_composite(service: RouterService, result: RouteResult) -> dict[str, Any] | None:
    """ConnectionRouterControl.getTarget as Jolokia writes its CompositeData, or null unless OK.

    The target is CompositeData {nodeID, local, connector}; the connector CompositeData {name,
    factoryClassName, params}, where params - the connector's params only, no extraProps - is
    TabularData whose rows are exactly ``key`` (STRING, the index) and ``value`` (STRING:
    ``Objects.toString(value, null)``). Jolokia writes such an MXBean-style map as a plain JSON
    object ``{key: value}`` and every object's keys in HashMap order.
    """
    if result.status != OK or result.target is None:
        return None
    connector = _connector(service, result)
    data: dict[str, Any] = {"nodeID": result.target.node_id, "local": result.target.local, "connector": None}
    if connector is not None:
        params = {key: _java_to_string(_shown(key, connector.params[key]))
                  for key in java_hashmap_order(connector.params)}
        data["connector"] = java_map({"name": connector.name, "factoryClassName": connector.factory_class_name,
                                      "params": java_map(params)})
    return java_map(data)


def _java_to_string(value: ParamValue) -> str | None:
    """``Objects.toString(value, null)``."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
