"""The values the broker's FileConfigurationParser parses and checks, one table row per element.

Each row says how the broker reads an element (``XMLUtil.parseInt`` / ``parseLong`` /
``parseDouble``, ``ByteUtil.convertTextBytes``, or text) and which ``Validators`` check it then
applies. A value that fails either stops the broker while it reads broker.xml. The schema catches
some of these first; :func:`schema_accepts` says which, so each mistake is reported once: an
empty element the schema fills with its default (``<max-hops/>``), a number out of the
validator's range, an ``xs:long`` beyond a Java int, ``INF`` for a double, a blank name.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from ..javastr import LONG_MAX, bounded_int, java_parse_double, java_parse_int, java_parse_long
from ..records import record

Number = int | float


@record(frozen=True, slots=True)
class Check:
    """A ``Validators`` constant: its name, what it demands in words, and the test."""

    name: str
    demand: str
    test: Callable[[Number], bool]


GT_ZERO = Check("GT_ZERO", "greater than 0", lambda v: v > 0)
GE_ZERO = Check("GE_ZERO", "0 or more", lambda v: v >= 0)
MINUS_ONE_OR_GT_ZERO = Check("MINUS_ONE_OR_GT_ZERO", "-1 or greater than 0", lambda v: v == -1 or v > 0)
MINUS_ONE_OR_GE_ZERO = Check("MINUS_ONE_OR_GE_ZERO", "-1 or 0 or more", lambda v: v == -1 or v >= 0)
POSITIVE_INT = Check("POSITIVE_INT", "between 1 and 2147483647", lambda v: 0 < v <= 2**31 - 1)
MINUS_ONE_OR_POSITIVE_INT = Check("MINUS_ONE_OR_POSITIVE_INT", "-1 or between 1 and 2147483647",
                                  lambda v: v == -1 or 0 < v <= 2**31 - 1)


@record(frozen=True, slots=True)
class Row:
    """``element`` read with ``parse`` (int, long, double, bytes, text or one of ``choices``) and
    checked with ``check``; ``xsd`` is its type in the schema, ``xsd_default`` whether the schema
    gives it a default (then an empty element passes the schema)."""

    element: str
    parse: str
    check: Check | None = None
    xsd: str = "string"
    xsd_default: bool = False
    choices: tuple[str, ...] = ()


_ROUTING_TYPES = ("ANYCAST", "MULTICAST", "PASS", "STRIP")
_LOAD_BALANCING = ("OFF", "STRICT", "ON_DEMAND", "OFF_WITH_REDISTRIBUTION")

# FileConfigurationParser, per section; only the rows that can fail are listed.
POOL = (
    Row("check-period", "int", GT_ZERO, "long", True),
    Row("quorum-size", "int", GT_ZERO, "long", True),
    Row("quorum-timeout", "int", GE_ZERO, "long", True),
)
CACHE = (Row("timeout", "int", GE_ZERO, "long", True),)
DIVERT = (
    Row("address", "nonempty"),
    Row("forwarding-address", "nonempty"),
    Row("routing-type", "choice", None, "enum", True, _ROUTING_TYPES),
)
CLUSTER_CONNECTOR = Row("connector-ref", "nonempty")
# Read only when <connector-ref> names a connector (the broker skips the rest otherwise).
CLUSTER = (
    Row("max-hops", "int", GE_ZERO, "int", True),
    Row("check-period", "long", GT_ZERO, "long", True),
    Row("connection-ttl", "long", GT_ZERO, "long", True),
    Row("retry-interval", "long", GT_ZERO, "long", True),
    Row("call-timeout", "long", GT_ZERO, "long", True),
    Row("call-failover-timeout", "long", MINUS_ONE_OR_GT_ZERO, "long", True),
    Row("retry-interval-multiplier", "double", GT_ZERO, "double", True),
    Row("min-large-message-size", "bytes", POSITIVE_INT),
    Row("max-retry-interval", "long", GT_ZERO, "long", True),
    Row("initial-connect-attempts", "int", MINUS_ONE_OR_GE_ZERO, "int", True),
    Row("reconnect-attempts", "int", MINUS_ONE_OR_GE_ZERO, "int", True),
    Row("confirmation-window-size", "bytes", POSITIVE_INT, "string", True),
    Row("producer-window-size", "bytes", MINUS_ONE_OR_POSITIVE_INT, "string", True),
    Row("notification-interval", "long", GT_ZERO, "long", True),
    Row("notification-attempts", "int", GT_ZERO, "int", True),
    Row("topology-scanner-attempts", "int", MINUS_ONE_OR_GE_ZERO, "int", True),
)
# message-load-balancing is read only without forward-when-no-consumers.
CLUSTER_LOAD_BALANCING = Row("message-load-balancing", "choice", None, "enum", True, _LOAD_BALANCING)
BROADCAST_CONNECTOR = Row("connector-ref", "nonempty")
BROADCAST = (
    Row("broadcast-period", "long", GT_ZERO, "long", True),
    Row("local-bind-port", "int", MINUS_ONE_OR_GT_ZERO, "int", True),
    Row("group-port", "int", MINUS_ONE_OR_GT_ZERO, "int"),
)
DISCOVERY = (
    Row("initial-wait-timeout", "long", GT_ZERO, "int", True),
    Row("refresh-timeout", "long", GT_ZERO, "int", True),
    Row("local-bind-port", "int", MINUS_ONE_OR_GT_ZERO, "int", True),
    Row("group-port", "int", MINUS_ONE_OR_GT_ZERO, "int"),
)

_XSD_INTEGER = re.compile(r"[+-]?[0-9]+")
_XSD_DOUBLE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|-?INF|NaN")
_XSD_RANGE = {"int": 32, "long": 64}
# ByteUtil.convertTextBytes: digits, an optional k/m/g (+ i) and b, any case, spaces around.
_TEXT_BYTES = re.compile(r"[ \t\n\x0b\f\r]*([0-9]+)[ \t\n\x0b\f\r]*([kmg]i?)?(b)?[ \t\n\x0b\f\r]*", re.IGNORECASE)
_BYTE_FACTORS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def schema_accepts(row: Row, text: str) -> bool:
    """Whether the schema lets ``text`` (the element's trimmed text) through, so only the broker
    catches it; when it does not, the schema finding (AR103) already says so."""
    collapsed = " ".join(part for part in re.split(r"[ \t\r\n]+", text) if part)
    if not collapsed:
        return row.xsd_default or row.xsd == "string"
    if row.xsd in _XSD_RANGE:
        if not _XSD_INTEGER.fullmatch(collapsed):
            return False
        limit = 1 << (_XSD_RANGE[row.xsd] - 1)
        return -limit <= bounded_int(collapsed) < limit
    if row.xsd == "double":
        return _XSD_DOUBLE.fullmatch(collapsed) is not None
    if row.xsd == "enum":
        return text in row.choices
    return True


def _wrap_long(value: int) -> int:
    value &= (1 << 64) - 1
    return value - (1 << 64) if value > LONG_MAX else value


def convert_text_bytes(text: str) -> int | None:
    """``ByteUtil.convertTextBytes``: ``512``, ``64k``, ``1MiB``, ``2 GB``...; None where it throws."""
    m = _TEXT_BYTES.fullmatch(text)
    if m is None:
        return java_parse_long(text)
    number = java_parse_long(m.group(1))
    if number is None:
        return None
    unit = (m.group(2) or "")[:1].lower()
    return _wrap_long(number * _BYTE_FACTORS[unit])


_INT_LIMITS = {"int": 1 << 31, "long": 1 << 63}


def judge(row: Row, text: str) -> tuple[Number | str | None, str | None]:
    """Read ``text`` (already trimmed, as the broker trims) the way ``row`` says: the value (None
    when it cannot be parsed) and, when the broker stops on it, why."""
    parse = row.parse
    if parse == "nonempty":
        return text, (None if text else f"<{row.element}> is empty: the broker requires a value (NOT_NULL_OR_EMPTY)")
    if parse == "choice":
        if text in row.choices:
            return text, None
        return text, f"<{row.element}> '{text}' is not one of {', '.join(row.choices)}"
    value: Number | None
    limit = _INT_LIMITS.get(parse)
    if limit is not None and text.isascii() and text.isdigit():  # the everyday case, decided at once
        value = int(text) if len(text) <= 18 else bounded_int(text)
        if value >= limit:
            value = None
    elif parse == "int":
        value = java_parse_int(text)
    elif parse == "long":
        value = java_parse_long(text)
    elif parse == "double":
        value = java_parse_double(text)
    else:
        value = convert_text_bytes(text)
    if value is None:
        return None, _unreadable(row, text)
    check = row.check
    if check is not None and not check.test(value):
        shown = "NaN" if isinstance(value, float) and math.isnan(value) else text
        return value, f"<{row.element}> {shown} must be {check.demand} ({check.name})"
    return value, None


_HOW = {"int": "Integer.parseInt", "long": "Long.parseLong", "double": "Double.parseDouble",
        "bytes": "ByteUtil.convertTextBytes"}


def _unreadable(row: Row, text: str) -> str:
    shown = "is empty" if not text else f"'{text}' is not a number the broker can read"
    if row.parse == "int" and java_parse_long(text) is not None:
        shown = f"{text} does not fit a Java int"
    return f"<{row.element}> {shown} ({_HOW[row.parse]} fails)"
