"""A message as a filter sees it: address, typed properties and the AMQ* header values.

Header identifiers (checked only for names starting with ``AMQ``; when the header has no value
the broker falls back to a property of the same name):

| identifier | value | from ``headers`` (default when absent) |
|---|---|---|
| AMQPriority | int | ``priority`` (4, the broker's default priority) |
| AMQTimestamp | long | ``timestamp`` (0) |
| AMQDurable | 'DURABLE' / 'NON_DURABLE' | ``durable`` (false, a core message's default) |
| AMQExpiration | long | ``expiration`` (0 = never) |
| AMQSize | int | ``size`` (no default: unknown unless given) |
| AMQUserID | 'ID:' + user id | ``user_id``; without one, the ``NATIVE_MESSAGE_ID`` property |
| AMQAddress | string | the message's address |
| AMQGroupID | string | ``group_id`` (none) |

Header keys may also be given by their identifier (``AMQPriority`` for ``priority``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from types import MappingProxyType
from typing import Any

from ..errors import UsageError
from ..records import record
from .values import JLong, make_typed, normalize, to_json_value

DEFAULT_PRIORITY = 4
HEADER_KEYS = {
    "AMQPriority": "priority",
    "AMQTimestamp": "timestamp",
    "AMQDurable": "durable",
    "AMQExpiration": "expiration",
    "AMQSize": "size",
    "AMQUserID": "user_id",
    "AMQAddress": "address",
    "AMQGroupID": "group_id",
}
_HEADER_NAMES = frozenset(HEADER_KEYS.values()) - {"address"}
_TYPE_TAGS = ("byte", "short", "int", "long", "float", "double", "string", "boolean")


@record(frozen=True)
class Message:
    """A message to route. ``properties`` values are typed (see ``messages.values``)."""

    address: str = ""
    properties: Mapping[str, object] = field(default_factory=dict)
    headers: Mapping[str, object] = field(default_factory=dict)
    routing_type: str | None = None  # ANYCAST, MULTICAST or None (not set)

    def __post_init__(self) -> None:
        props = {str(k): normalize(v) for k, v in self.properties.items() if v is not None}
        headers: dict[str, object] = {}
        for key, value in self.headers.items():
            name = HEADER_KEYS.get(key, key)
            if name not in _HEADER_NAMES:
                raise UsageError(f"unknown message header {key!r}: use one of {', '.join(sorted(_HEADER_NAMES))}")
            if value is None:
                continue
            if name in ("priority", "timestamp", "expiration", "size"):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise UsageError(f"message header {key!r} must be an integer, got {value!r}")
            elif name == "durable":
                if not isinstance(value, bool):
                    raise UsageError(f"message header {key!r} must be true or false, got {value!r}")
            elif not isinstance(value, str):
                raise UsageError(f"message header {key!r} must be a string, got {value!r}")
            headers[name] = value
        object.__setattr__(self, "properties", MappingProxyType(props))
        object.__setattr__(self, "headers", MappingProxyType(headers))
        if self.routing_type is not None:
            rt = self.routing_type.upper()
            if rt not in ("ANYCAST", "MULTICAST"):
                raise UsageError(f"routing type must be ANYCAST or MULTICAST, got {self.routing_type!r}")
            object.__setattr__(self, "routing_type", rt)

    def to_json(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "routing_type": self.routing_type,
            "properties": {k: to_json_value(v) for k, v in self.properties.items()},
            "headers": dict(self.headers),
        }


def header_value(message: Message, name: str) -> object:
    """The value the broker gives header identifier ``name`` (None: not a header or no value)."""
    key = HEADER_KEYS.get(name)
    if key is None:
        return None
    headers = message.headers
    if key == "priority":
        return int(headers.get("priority", DEFAULT_PRIORITY))  # type: ignore[call-overload]
    if key == "timestamp":
        return JLong(int(headers.get("timestamp", 0)))  # type: ignore[call-overload]
    if key == "expiration":
        return JLong(int(headers.get("expiration", 0)))  # type: ignore[call-overload]
    if key == "durable":
        return "DURABLE" if headers.get("durable", False) is True else "NON_DURABLE"
    if key == "size":
        size = headers.get("size")
        return None if size is None else int(size)  # type: ignore[call-overload]
    if key == "address":
        return message.address
    if key == "group_id":
        group = headers.get("group_id")
        return None if group is None else str(group)
    user_id = headers.get("user_id")
    if user_id is None:
        native = message.properties.get("NATIVE_MESSAGE_ID")
        return native if type(native) is str else None
    text = str(user_id)
    return text if text.startswith("ID:") else "ID:" + text


def typed_from_json(name: str, value: object) -> object:
    """One property value from JSON: string, boolean, integer (long beyond int32), fraction
    (double), or ``{"byte"|"short"|"int"|"long"|"float"|"double"|"string"|"boolean": v}``."""
    if isinstance(value, dict):
        if len(value) != 1 or next(iter(value)) not in _TYPE_TAGS:
            raise UsageError(f"property {name!r}: a typed value is one of "
                             + ", ".join(f'{{"{t}": ...}}' for t in _TYPE_TAGS))
        tag, inner = next(iter(value.items()))
        return make_typed(tag, inner)
    if value is None or isinstance(value, (str, bool, int, float)):
        return normalize(value)
    raise UsageError(f"property {name!r}: unsupported JSON value {value!r}")


def message_from_json(obj: Mapping[str, Any], *, address: str | None = None) -> Message:
    """Build a Message from ``{"address": ..., "routing_type": ..., "properties": {...},
    "headers": {...}}`` (every key optional; ``address`` overrides the document's)."""
    if not isinstance(obj, Mapping):
        raise UsageError("a message must be a JSON object with 'properties' and 'headers'")
    unknown = set(obj) - {"address", "routing_type", "properties", "headers"}
    if unknown:
        raise UsageError(f"unknown message field(s): {', '.join(sorted(unknown))} "
                         "(expected address, routing_type, properties, headers)")
    props_in = obj.get("properties") or {}
    headers_in = obj.get("headers") or {}
    if not isinstance(props_in, Mapping) or not isinstance(headers_in, Mapping):
        raise UsageError("'properties' and 'headers' must be JSON objects")
    props = {str(k): typed_from_json(str(k), v) for k, v in props_in.items()}
    return Message(
        address=address if address is not None else str(obj.get("address") or ""),
        properties=props,
        headers=dict(headers_in),
        routing_type=obj.get("routing_type"),
    )
