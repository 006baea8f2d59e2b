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
from ..javastr import java_is_blank
from .javaregex import JAVA_REGEX, JavaPattern, compile_java

NULL_KEY = "NULL"
INTERNAL_CLIENT_ID_PREFIX = "$.artemis.internal.router.client."
KEY_TYPES = ("CLIENT_ID", "SNI_HOST", "SOURCE_IP", "USER_NAME", "ROLE_NAME")
# Keys-file columns (CSV, JSON lines, Parquet) and the key type each one feeds.
RECORD_COLUMNS: dict[str, str] = {"client_id": "CLIENT_ID", "user_name": "USER_NAME", "source_ip": "SOURCE_IP",
                                  "sni_host": "SNI_HOST", "roles": "ROLE_NAME"}
_HOST_PORT = re.compile(r"^(?:\[(?P<v6>[^\]]+)\]|(?P<v4>[0-9.]+))(?::(?P<port>\d+))?$")
# Netty reads the SNI name as US-ASCII and lowercases it (AbstractSniHandler, Locale.US).
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True, slots=True)
class Connection:
    """The facts about one incoming connection that a router may use."""

    client_id: str | None = None
    username: str | None = None
    sni_host: str | None = None
    # the peer: as Java prints a socket address ("/10.0.0.1:5000", "/[0:0:0:0:0:0:0:1%0]:5000"), or as a user
    # wrote it ("10.0.0.1", "[::1]:5000", "::1"), which each router prints as its acceptor's transport would
    remote_address: str | None = None
    roles: tuple[str, ...] = field(default_factory=tuple)
    # remote_address is the broker's own getRemoteAddress() text, taken as is: after a PROXY header the
    # broker stores the header's source + ":" + port as written ("::1:5000", "null:0"), which no
    # transport reformats
    remote_as_is: bool = False

    def raw_value(self, key_type: str) -> str | None:
        if key_type == "CLIENT_ID":
            return self.client_id
        if key_type == "USER_NAME":
            return self.username
        if key_type == "SNI_HOST":
            return sni_host_key(self.sni_host) if self.sni_host is not None else None
        if key_type == "SOURCE_IP":
            return self.remote_address
        if key_type == "ROLE_NAME":
            return ",".join(self.roles) if self.roles else None
        raise ValueError(f"unknown key type {key_type}")


def sni_host_key(server_name: str) -> str:
    """The SNI host name as the broker's connection reports it: Netty lowercases it (ASCII)."""
    return server_name.translate(_ASCII_LOWER)


def java_socket_address(host: str, port: int, scope_id: int = 0, *, native: bool = True) -> str:
    """An accepted peer as the broker's ``InetSocketAddress.toString()`` prints it (Java 14 and later).

    IPv4 (and IPv4-mapped IPv6, which both transports turn into IPv4): ``/10.0.0.1:5000``. IPv6: eight
    hex groups without zero compression, in brackets, with ``%scope``: Netty's native transports
    (epoll, kqueue: the broker's default on Linux and macOS) always give the address a scope id, so
    ``::1`` prints ``/[0:0:0:0:0:0:0:1%0]:5000``; the JDK's NIO transport (``useEpoll=false``, other
    systems) only a scope id that is not 0: ``/[0:0:0:0:0:0:0:1]:5000``.
    """
    bare, _, scope = host.partition("%")
    try:
        ip = ipaddress.ip_address(bare)
    except ValueError:
        return f"{host}/<unresolved>:{port}"
    if ip.version == 6 and ip.ipv4_mapped is None:
        if scope:
            scope_id = int(scope)
        text = ":".join(format(int(part, 16), "x") for part in ip.exploded.split(":"))
        if native or scope_id > 0:
            text += f"%{scope_id}"
        return f"/[{text}]:{port}"
    v4 = ip.ipv4_mapped if ip.version == 6 else ip
    return f"/{v4}:{port}"


def _scoped(text: str) -> str:
    """``text`` if it is an IP address, with a numeric ``%scope`` for IPv6 only; else ValueError."""
    bare, pct, scope = text.partition("%")
    ip = ipaddress.ip_address(bare)
    if pct and (ip.version != 6 or not scope.isascii() or not scope.isdigit()):
        raise ValueError(text)
    return text


def source_address(value: str, *, native: bool = True) -> str:
    """A user-given source address as the broker prints it: accepts ``10.0.0.1``, ``10.0.0.1:5000``,
    ``::1``, ``fe80::1%2``, ``[::1]``, ``[::1]:5000`` or Java's own ``/10.0.0.1:5000`` (kept as it is)."""
    v = value.strip()
    if v.startswith("/"):
        return v
    try:
        return java_socket_address(_scoped(v), 0, native=native)
    except ValueError:
        pass
    m = _HOST_PORT.match(v)
    if m:
        try:
            return java_socket_address(_scoped(m.group("v6") or m.group("v4")), int(m.group("port") or 0),
                                       native=native)
        except ValueError:
            pass
    raise UsageError(f"SOURCE_IP={value!r}: expected an IP address, IP:PORT, [IPv6]:PORT or /IP:PORT "
                     "(an IPv6 scope as a number: fe80::1%2)")


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
        remote_address=_checked_source(sip) if sip is not None and sip != "" else None,
        roles=tuple(r.strip() for r in (fields.get("ROLE_NAME") or "").split(",") if r.strip()),
    )


def _checked_source(value: str) -> str:
    """``value`` unchanged once it is known to be a source address (each router prints it its own way)."""
    source_address(value)
    return value


def source_ip_key(remote_address: str) -> str:
    """The broker's SOURCE_IP rule: drop a leading ``/``, cut at the last ``:``."""
    value = remote_address
    has_prefix = value.startswith("/")
    idx = value.rfind(":")
    if has_prefix or idx > 0:
        value = value[1 if has_prefix else 0: idx if idx > 0 else len(value)]
    return value


def key_filter_pattern(key_filter: str | None) -> JavaPattern | None:
    """A blank key-filter is no filter (KeyResolver.setKeyFilter: ``String.isBlank()``)."""
    if key_filter is None or java_is_blank(key_filter):
        return None
    return compile_java(key_filter)


@dataclass(frozen=True, slots=True)
class ResolvedKey:
    raw: str | None  # the value before the filter (None: missing)
    key: str  # after the filter; NULL_KEY when missing or unmatched
    filtered: bool  # a key-filter was applied
    note: str


def resolve_key(key_type: str, key_filter: str | None, conn: Connection, *, native: bool = True) -> ResolvedKey:
    """KeyResolver.resolve: the key for ``conn`` under ``key_type`` and ``key_filter``.

    ``native``: the router's acceptors run Netty's native transport (the broker's default), which
    prints IPv6 peers with a ``%scope`` (see :func:`java_socket_address`).
    """
    pattern = key_filter_pattern(key_filter)
    if key_type == "ROLE_NAME":
        return _role_key(pattern, conn.roles)
    said = ""
    if key_type == "SOURCE_IP":
        address = conn.remote_address
        raw = None
        if address is not None and conn.remote_as_is:
            raw = source_ip_key(address)
        elif address is not None:
            printed = source_address(address, native=native)
            raw = source_ip_key(printed)
            if printed != address:
                transport = "native (epoll)" if native else "NIO"
                said = f"the broker's {transport} transport prints {address!r} as {printed!r}; "
    else:
        raw = conn.raw_value(key_type)
        if key_type == "SNI_HOST" and raw is not None and raw != conn.sni_host:
            said = f"Netty lowercases the SNI name {conn.sni_host!r}; "
    resolved = apply_key_filter(pattern, raw)
    if said:
        resolved = ResolvedKey(resolved.raw, resolved.key, resolved.filtered, said + resolved.note)
    return resolved


def apply_key_filter(pattern: JavaPattern | None, raw: str | None) -> ResolvedKey:
    if raw is None:
        return ResolvedKey(None, NULL_KEY, pattern is not None, "no value: the key is NULL")
    if pattern is None:
        return ResolvedKey(raw, raw, False, "no key-filter: the value is the key")
    found = pattern.find(raw)
    if found is None:
        return ResolvedKey(raw, NULL_KEY, True,
                           f"key-filter {pattern.source!r} finds no match ({JAVA_REGEX}): the key is NULL")
    return ResolvedKey(raw, found, True, f"key-filter {pattern.source!r} finds {found!r} ({JAVA_REGEX})")


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
