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
from ..javacollections import given_role_order
from ..javastr import java_is_blank
from ..jregex.javaregex import JAVA_REGEX, JavaPattern, compile_java
from .sni import DEFAULT_SNI_ENCODING, SniNameError, sni_as_received

NULL_KEY = "NULL"
INTERNAL_CLIENT_ID_PREFIX = "$.artemis.internal.router.client."
KEY_TYPES = ("CLIENT_ID", "SNI_HOST", "SOURCE_IP", "USER_NAME", "ROLE_NAME")
# Keys-file columns (CSV, JSON lines, Parquet) and the key type each one feeds.
RECORD_COLUMNS: dict[str, str] = {"client_id": "CLIENT_ID", "user_name": "USER_NAME", "source_ip": "SOURCE_IP",
                                  "sni_host": "SNI_HOST", "roles": "ROLE_NAME"}
_HOST_PORT = re.compile(r"^(?:\[(?P<v6>[^\]]+)\]|(?P<v4>[0-9.]+))(?::(?P<port>[0-9]+))?$")


# Not frozen, for the cost of building one per connection (see RouteResult): treat it as read-only.
@dataclass(slots=True, unsafe_hash=True)
class Connection:
    """The facts about one incoming connection that a router may use."""

    client_id: str | None = None
    username: str | None = None
    # the SNI name as the broker reads it: the client's bytes, one char per byte (Latin-1), not yet
    # lower-cased (see routing/sni.py; sni_from_host turns a host name into it)
    sni_host: str | None = None
    # the peer: as Java prints a socket address ("/10.0.0.1:5000", "/[0:0:0:0:0:0:0:1%0]:5000"), or as a user
    # wrote it ("10.0.0.1", "[::1]:5000", "::1"), which each router prints as its acceptor's transport would
    remote_address: str | None = None
    roles: tuple[str, ...] = field(default_factory=tuple)
    # remote_address is the broker's own getRemoteAddress() text, taken as is: after a PROXY header the
    # broker stores the header's source + ":" + port as written ("::1:5000", "null:0"), which no
    # transport reformats
    remote_as_is: bool = False
    # roles are already in the order the broker's login hands them to the router (serve's login);
    # otherwise they are the user's roles as lines of a roles file, in the order given, and the
    # router walks them in the broker's order (javacollections.given_role_order)
    roles_in_broker_order: bool = False
    # the host name the client connected to, when sni_host was derived from it (for --explain)
    sni_requested: str | None = None

    def broker_roles(self) -> tuple[str, ...]:
        """The roles in the order KeyResolver walks ``getPrincipals(RolePrincipal.class)``."""
        return self.broker_role_order()[0]

    def broker_role_order(self) -> tuple[tuple[str, ...], bool]:
        """:meth:`broker_roles` and whether that order is certain (False: 9 or more roles share one
        hash bucket of a 64+ bucket table, which Java turns into a tree ordered, for principals, by
        identity hash codes: the broker's own order then differs from run to run)."""
        if self.roles_in_broker_order or len(self.roles) < 2:
            return self.roles, True
        order = given_role_order(self.roles)
        return order.roles, order.exact

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
            return ",".join(self.broker_roles()) if self.roles else None
        raise ValueError(f"unknown key type {key_type}")


def sni_host_key(server_name: str) -> str:
    """The SNI name as the broker's connection reports it: Netty's text (one char per byte) after
    ``toLowerCase(Locale.US)``, which for those chars is Python's ``lower`` (``É`` becomes ``é``;
    tests/routing/test_sni_java.py checks every byte against the JDK)."""
    return server_name.lower()


def sni_from_host(host: str, encoding: str = DEFAULT_SNI_ENCODING) -> str:
    """What the broker reads (``Connection.sni_host``) when a client connects to ``host``: a Java
    client (``encoding`` java) sends ``new SNIHostName(host)``, a raw client the UTF-8 bytes.
    UsageError for a name a Java client cannot send."""
    try:
        return sni_as_received(host, encoding)
    except SniNameError as exc:
        raise UsageError(f"SNI_HOST={host!r}: a Java client cannot send this host name ({exc}; "
                         "new SNIHostName refuses it); for a client that sends the name's UTF-8 bytes as they are, "
                         "use --sni-client raw") from None


# Artemis versions arouter follows where they differ (--broker-version), and the default.
OLDEST_BROKER = (2, 21)  # connection routers (renamed from broker balancers in 2.21)
NEWEST_BROKER = (2, 41)
# Artemis 2.36 ships Netty 4.1.112, whose epoll transport stopped giving every IPv6 peer a scope id
EPOLL_SCOPE_ONLY_WHEN_NEEDED = (2, 36)


def parse_broker_version(text: str) -> tuple[int, int]:
    """``2.41`` or ``2.41.0`` as (2, 41); UsageError outside the versions arouter follows."""
    parts = text.strip().split(".")
    ok = 2 <= len(parts) <= 3 and all(p.isascii() and p.isdigit() for p in parts)
    version = (int(parts[0]), int(parts[1])) if ok else (0, 0)
    if not OLDEST_BROKER <= version <= NEWEST_BROKER:
        raise UsageError(f"--broker-version {text!r}: give an Artemis version from "
                         f"{'.'.join(map(str, OLDEST_BROKER))} to {'.'.join(map(str, NEWEST_BROKER))}, e.g. 2.41")
    return version


def broker_version_text(version: tuple[int, int]) -> str:
    return ".".join(map(str, version))


def java_socket_address(host: str, port: int, scope_id: int = 0, *, native: bool = True,
                        broker: tuple[int, int] = NEWEST_BROKER) -> str:
    """An accepted peer as the broker's ``InetSocketAddress.toString()`` prints it (Java 14 and later).

    IPv4 (and IPv4-mapped IPv6, which both transports turn into IPv4): ``/10.0.0.1:5000``. IPv6: eight
    hex groups without zero compression, in brackets, with ``%scope`` when the address has one. The
    JDK's NIO transport (``useEpoll=false``, other systems) gives it one only when it is not 0. Netty's
    native transports (epoll, kqueue: the broker's default on Linux and macOS) up to Netty 4.1.111
    (Artemis <= 2.35) give every IPv6 peer one, so ``::1`` prints ``/[0:0:0:0:0:0:0:1%0]:5000``; from
    Netty 4.1.112 (Artemis >= 2.36) only a link-local peer (``fe80::/10``) or a scope that is not 0:
    ``/[0:0:0:0:0:0:0:1]:5000``.
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
        if scope_id > 0 or (native and (broker < EPOLL_SCOPE_ONLY_WHEN_NEEDED or ip.is_link_local)):
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


def source_address(value: str, *, native: bool = True, broker: tuple[int, int] = NEWEST_BROKER) -> str:
    """A user-given source address as the broker prints it: accepts ``10.0.0.1``, ``10.0.0.1:5000``,
    ``::1``, ``fe80::1%2``, ``[::1]``, ``[::1]:5000`` or Java's own ``/10.0.0.1:5000`` (kept as it is)."""
    v = value.strip()
    if v.startswith("/"):
        return v
    try:
        return java_socket_address(_scoped(v), 0, native=native, broker=broker)
    except ValueError:
        pass
    m = _HOST_PORT.match(v)
    if m:
        try:
            return java_socket_address(_scoped(m.group("v6") or m.group("v4")), int(m.group("port") or 0),
                                       native=native, broker=broker)
        except ValueError:
            pass
    raise UsageError(f"SOURCE_IP={value!r}: expected an IP address, IP:PORT, [IPv6]:PORT or /IP:PORT "
                     "(an IPv6 scope as a number: fe80::1%2)")


def role_list(value: str | Sequence[str] | None) -> tuple[str, ...]:
    """The roles a keys-file ``roles`` value (or ``--roles``) names, each taken as given.

    A list (a JSON array) holds one role per item, so a role may contain a comma; a string is split
    at every comma. Nothing is trimmed and nothing dropped (``"a, b"`` is ``a`` and `` b``; ``"a,,b"``
    has an empty role between them: the broker takes role names as its roles file spells them),
    but an empty string is no roles at all.
    """
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split(",")) if value else ()
    items = tuple(value)
    if not all(isinstance(item, str) for item in items):
        raise UsageError("roles: each item of a roles list must be a string")
    return items


def connection_from_record(key_type: str, record: Mapping[str, str | Sequence[str] | None],
                           sni_encoding: str = DEFAULT_SNI_ENCODING) -> Connection:
    """The connection a keys-file record describes (a ``key`` column, or a column per key type).

    A ``key`` column holds the value of ``key_type``; ``roles`` is a list (a JSON array) or a
    comma-separated string (see :func:`role_list`); ``sni_host`` is the host name the client
    connects to, sent as ``sni_encoding`` says (:func:`sni_from_host`).
    """
    if "key" in record:
        value = record["key"]
        fields = {key_type: value} if value is not None else {}
    else:
        fields = {RECORD_COLUMNS[k]: v for k, v in record.items() if v is not None and k in RECORD_COLUMNS}
    for kt, v in fields.items():
        if kt != "ROLE_NAME" and not isinstance(v, str):
            raise UsageError(f"{kt.lower()}: expected a string, not {type(v).__name__}")
    sip = fields.get("SOURCE_IP")
    host = _text(fields.get("SNI_HOST"))
    return Connection(
        client_id=_text(fields.get("CLIENT_ID")),
        username=_text(fields.get("USER_NAME")),
        # an empty name is no SNI at all (a client cannot send an empty host_name)
        sni_host=sni_from_host(host, sni_encoding) if host else None,
        sni_requested=host or None,
        remote_address=_checked_source(sip) if isinstance(sip, str) and sip != "" else None,
        roles=role_list(fields.get("ROLE_NAME")),
    )


def _text(value: str | Sequence[str] | None) -> str | None:
    return value if isinstance(value, str) else None


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


@dataclass(slots=True, unsafe_hash=True)  # read-only; not frozen for the cost (see Connection)
class ResolvedKey:
    raw: str | None  # the value before the filter (None: missing)
    key: str  # after the filter; NULL_KEY when missing or unmatched
    filtered: bool  # a key-filter was applied
    note: str


def resolve_key(key_type: str, key_filter: str | None, conn: Connection, *, native: bool = True,
                broker: tuple[int, int] = NEWEST_BROKER) -> ResolvedKey:
    """KeyResolver.resolve: the key for ``conn`` under ``key_type`` and ``key_filter``.

    ``native``: the router's acceptors run Netty's native transport (the broker's default), which
    prints IPv6 peers with a ``%scope`` as ``broker`` (the Artemis version) does (see
    :func:`java_socket_address`).
    """
    pattern = key_filter_pattern(key_filter) if key_filter is not None else None
    if key_type == "ROLE_NAME":
        roles, certain = conn.broker_role_order()
        resolved = _role_key(pattern, roles)
        if not certain:
            resolved = ResolvedKey(resolved.raw, resolved.key, resolved.filtered,
                                   "9 or more of these roles share one Java hash bucket, which the broker keeps as a "
                                   "tree ordered by identity hash codes: its order (and so the first role) can differ "
                                   "from run to run; this is one possible order. " + resolved.note)
        return resolved
    said = ""
    if key_type == "SOURCE_IP":
        address = conn.remote_address
        raw = None
        if address is not None and conn.remote_as_is:
            raw = source_ip_key(address)
        elif address is not None:
            printed = source_address(address, native=native, broker=broker)
            raw = source_ip_key(printed)
            if printed != address:
                transport = "native (epoll)" if native else "NIO"
                said = (f"the {transport} transport of Artemis {broker_version_text(broker)} prints {address!r} "
                        f"as {printed!r}; ")
    else:
        raw = conn.raw_value(key_type)
        if key_type == "SNI_HOST" and conn.sni_host is not None:
            sent = conn.sni_host.encode("latin-1", "replace")
            said = (f"the client connecting to {conn.sni_requested!r} sends the SNI bytes {sent!r}; "
                    if conn.sni_requested is not None else "")
            said += f"Netty reads them one char per byte ({conn.sni_host!r}) and lowercases them: {raw!r}; "
        elif key_type == "SNI_HOST" and conn.sni_requested:
            said = (f"the client connecting to {conn.sni_requested!r} sends no server_name (a JSSE client leaving "
                    "SNI to the JDK sends none for a dotless host, an IP address or a name SNIHostName refuses); ")
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
    walked = f"roles in the broker's order (Java HashSet order of the names): {list(roles)!r}; "
    for role in roles:
        if pattern is None:
            return ResolvedKey(raw, role, False, walked + f"no key-filter: the first, {role!r}, is the key")
        found = pattern.find(role)
        if found is not None:
            return ResolvedKey(raw, found, True, walked + f"role {role!r}: key-filter {pattern.source!r} finds "
                                                          f"{found!r}")
    if not roles:
        return ResolvedKey(None, NULL_KEY, pattern is not None, "no roles: the key is NULL")
    return ResolvedKey(raw, NULL_KEY, True, walked + "no role matches the key-filter: the key is NULL")
