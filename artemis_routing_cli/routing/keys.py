"""What the router hashes: the key value of a connection (the broker's KeyResolver).

The connection's facts (client id, user, SNI host, remote address, roles) come in a
:class:`Connection`; :func:`resolve_key` turns them into the key exactly as the broker does,
including the key-filter (Java ``find()``, matched text) and the literal ``NULL`` for a
missing value.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import UsageError
from .javaregex import JavaPattern, compile_java

NULL_KEY = "NULL"
INTERNAL_CLIENT_ID_PREFIX = "$.artemis.internal.router.client."
KEY_TYPES = ("CLIENT_ID", "SNI_HOST", "SOURCE_IP", "USER_NAME", "ROLE_NAME")
# Keys-file columns (CSV, JSON lines, Parquet) and the key type each one feeds.
RECORD_COLUMNS: dict[str, str] = {"client_id": "CLIENT_ID", "user_name": "USER_NAME", "source_ip": "SOURCE_IP",
                                  "sni_host": "SNI_HOST", "roles": "ROLE_NAME"}
_HOST_PORT = re.compile(r"^(?:\[(?P<v6>[^\]]+)\]|(?P<v4>[0-9.]+)):(?P<port>\d+)$")


@dataclass(frozen=True, slots=True)
class Connection:
    """The facts about one incoming connection that a router may use."""

    client_id: str | None = None
    username: str | None = None
    sni_host: str | None = None
    remote_address: str | None = None  # as Java prints a socket address: "/10.0.0.1:5000"
    roles: tuple[str, ...] = field(default_factory=tuple)

    def raw_value(self, key_type: str) -> str | None:
        if key_type == "CLIENT_ID":
            return self.client_id
        if key_type == "USER_NAME":
            return self.username
        if key_type == "SNI_HOST":
            return self.sni_host
        if key_type == "SOURCE_IP":
            return self.remote_address
        if key_type == "ROLE_NAME":
            return ",".join(self.roles) if self.roles else None
        raise ValueError(f"unknown key type {key_type}")


def java_socket_address(host: str, port: int) -> str:
    """Format a peer address as ``InetSocketAddress.toString()`` does: ``/ip:port``.

    IPv6 addresses print fully expanded, without brackets or zero compression.
    """
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return f"{host}/<unresolved>:{port}"
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            text = str(ip.ipv4_mapped)  # Java turns ::ffff:a.b.c.d into an Inet4Address
        else:
            text = ":".join(format(int(part, 16), "x") for part in ip.exploded.split(":"))
    else:
        text = str(ip)
    return f"/{text}:{port}"


def source_address(value: str) -> str:
    """A user-given source address as Java prints it: accepts ``10.0.0.1``, ``10.0.0.1:5000``,
    ``[::1]:5000``, ``::1`` or Java's own ``/10.0.0.1:5000``."""
    v = value.strip()
    if v.startswith("/"):
        return v
    try:
        ipaddress.ip_address(v)
        return java_socket_address(v, 0)
    except ValueError:
        pass
    m = _HOST_PORT.match(v)
    if m:
        try:
            return java_socket_address(m.group("v6") or m.group("v4"), int(m.group("port")))
        except ValueError:
            pass
    raise UsageError(f"SOURCE_IP={value!r}: expected an IP address, IP:PORT, [IPv6]:PORT or /IP:PORT")


def connection_from_record(key_type: str, record: Mapping[str, str | None]) -> Connection:
    """The connection a keys-file record describes (a ``key`` column, or a column per key type).

    A ``key`` column holds the value of ``key_type``; ``roles`` is a comma-separated list.
    """
    if "key" in record:
        value = record["key"]
        fields = {key_type: value} if value is not None else {}
    else:
        fields = {RECORD_COLUMNS[k]: v for k, v in record.items() if v is not None and k in RECORD_COLUMNS}
    sip = fields.get("SOURCE_IP")
    return Connection(
        client_id=fields.get("CLIENT_ID"),
        username=fields.get("USER_NAME"),
        sni_host=fields.get("SNI_HOST"),
        remote_address=source_address(sip) if sip is not None and sip != "" else None,
        roles=tuple(r.strip() for r in (fields.get("ROLE_NAME") or "").split(",") if r.strip()),
    )


def source_ip_key(remote_address: str) -> str:
    """The broker's SOURCE_IP rule: drop a leading ``/``, cut at the last ``:``."""
    value = remote_address
    has_prefix = value.startswith("/")
    idx = value.rfind(":")
    if has_prefix or idx > 0:
        value = value[1 if has_prefix else 0: idx if idx > 0 else len(value)]
    return value


def key_filter_pattern(key_filter: str | None) -> JavaPattern | None:
    """A blank key-filter is no filter (KeyResolver.setKeyFilter)."""
    if key_filter is None or not key_filter.strip():
        return None
    return compile_java(key_filter)


@dataclass(frozen=True, slots=True)
class ResolvedKey:
    raw: str | None  # the value before the filter (None: missing)
    key: str  # after the filter; NULL_KEY when missing or unmatched
    filtered: bool  # a key-filter was applied
    note: str


def resolve_key(key_type: str, key_filter: str | None, conn: Connection) -> ResolvedKey:
    """KeyResolver.resolve: the key for ``conn`` under ``key_type`` and ``key_filter``."""
    pattern = key_filter_pattern(key_filter)
    if key_type == "ROLE_NAME":
        return _role_key(pattern, conn.roles)
    if key_type == "SOURCE_IP":
        raw = source_ip_key(conn.remote_address) if conn.remote_address is not None else None
    else:
        raw = conn.raw_value(key_type)
    return apply_key_filter(pattern, raw)


def apply_key_filter(pattern: JavaPattern | None, raw: str | None) -> ResolvedKey:
    if raw is None:
        return ResolvedKey(None, NULL_KEY, pattern is not None, "no value: the key is NULL")
    if pattern is None:
        return ResolvedKey(raw, raw, False, "no key-filter: the value is the key")
    found = pattern.find(raw)
    if found is None:
        return ResolvedKey(raw, NULL_KEY, True, f"key-filter {pattern.source!r} finds no match: the key is NULL")
    return ResolvedKey(raw, found, True, f"key-filter {pattern.source!r} finds {found!r}")


def _role_key(pattern: JavaPattern | None, roles: Sequence[str]) -> ResolvedKey:
    raw = ",".join(roles) if roles else None
    for role in roles:
        if pattern is None:
            return ResolvedKey(raw, role, False, f"no key-filter: the first role {role!r} is the key")
        found = pattern.find(role)
        if found is not None:
            return ResolvedKey(raw, found, True, f"role {role!r}: key-filter {pattern.source!r} finds {found!r}")
    if not roles:
        return ResolvedKey(None, NULL_KEY, pattern is not None, "no roles: the key is NULL")
    return ResolvedKey(raw, NULL_KEY, True, "no role matches the key-filter: the key is NULL")
