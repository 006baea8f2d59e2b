"""Acceptor and connector URLs, read the way the broker's transport URL parsers read them.

The broker (ConfigurationUtils.parseAcceptorURI / parseConnectorURI, URIFactory, the TCP and
VM schemas, BeanSupport.setData) does, in order:

1. remove every ASCII whitespace character (Java's ``\\s``);
2. ``(u1,u2)?q`` becomes ``u1?q#u2``; every ``;`` becomes ``&``;
3. ``new URI(..)`` (see :mod:`.javauri`): a syntax error stops the broker;
4. look the scheme up, exactly: only ``tcp`` and ``vm`` exist;
5. split ``getQuery()`` (already %-decoded once) on ``&`` and URL-decode names and values again;
6. TCP: params get ``"" + getHost()`` and ``"" + getPort()`` (so ``"null"`` / ``"-1"``; acceptors
   also ``scheme``), then each query parameter goes to params when its name is an allowable
   key, to extraProps otherwise; both maps are Java HashMaps.

Where the broker *reads* host and port (Netty, the redirects) it uses
``ConfigurationHelper.getStringProperty(host, "localhost")`` and ``getIntProperty(port, 61616)``:
a port that is not a number becomes 61616 (with a log line), a missing one stays -1.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from types import MappingProxyType

from ..javastr import java_hashmap_order, java_parse_int, java_split, java_trim
from .javauri import JavaUriError, UrlDecodeError, parse_java_uri, parse_query
from .model import DEFAULT_CONNECTOR_HOST, DEFAULT_CONNECTOR_PORT, EMPTY, TransportUrl
from .transport_keys import ACCEPTOR_KEYS, CONNECTOR_KEYS, SCHEMES

# What java.net.URI reports for a missing host / port; the broker copies them into the
# transport parameters as text ("" + uri.getHost(), "" + uri.getPort()).
URI_NO_HOST = "null"
URI_NO_PORT = -1
_JAVA_WHITESPACE = re.compile(r"[ \t\n\x0b\f\r]")

# Which failure stops the broker (an exception while it reads broker.xml).
SYNTAX = "syntax"  # URISyntaxException
SCHEME = "scheme"  # "Schema X not found" (NullPointerException)
DECODE = "decode"  # URLDecoder's IllegalArgumentException


_PASSWORD_VALUE = re.compile(r"([?&;#(,][^=&;#]*password[^=&;#]*=)[^&;#)]*", re.IGNORECASE)


def redact(text: str) -> str:
    """``text`` with the value of every ``*password*`` parameter shown as ``****`` (as the broker's
    TransportConfiguration.toString does): for messages, which must never show a password."""
    return _PASSWORD_VALUE.sub(r"\1****", text) if "assword" in text.lower() else text


class UrlError(ValueError):
    """The broker cannot read the URL and does not start; ``kind`` says which step failed."""

    def __init__(self, message: str, kind: str = SYNTAX) -> None:
        super().__init__(message)
        self.kind = kind


def normalise(text: str) -> str:
    """URIFactory.expandURI: ``(u1,u2,..)?q`` -> ``u1?q#u2,..``; then ``;`` -> ``&`` everywhere."""
    if text.startswith("("):
        inner, _, query = text.partition(")")
        first, *others = java_split(inner[inner.index("(") + 1:], ",")
        built = first
        if query:
            built += "&" + query[1:] if "?" in first else query
        if others:
            built += "#" + ",".join(others)
        text = built
    return text.replace(";", "&")


# The everyday URL, ``tcp://HOST[:PORT][?QUERY]``, written with nothing that the whitespace removal,
# expandURI (it starts with ``tcp``), java.net.URI's decoding or URLDecoder would change (no whitespace,
# ``%``, ``+``, ``#`` or ``?`` in the query), with a HOST Java takes whole (a dotted quad of bytes, leading
# zeros allowed, or a host name by RFC 2396: ``javauri._plain_host``): read straight from the match.
# Anything else takes the full road; ``tests/config/test_transport_url_everyday.py`` shows both give the
# same answer on every URL the pattern takes.
_BYTE = r"0*(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_EVERYDAY = (rf"tcp://((?:{_BYTE}\.){{3}}{_BYTE}|(?:{_LABEL}\.)+[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.?|{_LABEL}\.?)"
             r"(?::([0-9]{0,9}))?(?:\?([A-Za-z0-9\-_.!~*'(),:@/=$;&]*))?")


@cache
def everyday_pattern() -> re.Pattern[str]:
    """``_EVERYDAY`` compiled, the first time a URL is read (a millisecond a process that reads none need not pay)."""
    return re.compile(_EVERYDAY)


# (kind, the query's names in order) -> the params' and the extraProps' keys in HashMap order
_ORDERS: dict[tuple[str, tuple[str, ...]], tuple[tuple[str, ...], tuple[str, ...]]] = {}
_MAX_ORDERS = 1024


@lru_cache(maxsize=16384)  # the model and the rules read every URL; the result is immutable
def parse_transport_url(raw: str, kind: str = "connector") -> TransportUrl:
    """Read ``raw`` as the broker reads an ``<acceptor>`` (``kind="acceptor"``) or ``<connector>``.

    Raises :class:`UrlError` where the broker throws (it then does not start). A host Java does
    not accept is not an error here: the URL parses with host ``"null"`` and port -1.
    """
    m = everyday_pattern().fullmatch(raw)
    if m is not None:
        url = _everyday(raw, kind, m.group(1), m.group(2), m.group(3))
        if url is not None:
            return url
    return parse_transport_url_fully(raw, kind)


def _everyday(raw: str, kind: str, host: str, port_text: str | None, query_text: str | None) -> TransportUrl | None:
    """The URL ``_EVERYDAY`` matched, or None when its query sets ``host``, ``port`` or ``scheme``."""
    query: dict[str, str | None] = {}
    if query_text:
        for part in query_text.replace(";", "&").split("&"):  # URISchema.parseQuery, with nothing to decode
            if part:
                name, eq, value = part.partition("=")
                query[name] = value if eq else None
        if "host" in query or "port" in query or "scheme" in query:
            return None
    port = int(port_text) if port_text else -1
    keys = (kind, tuple(query))
    orders = _ORDERS.get(keys)
    if orders is None:
        orders = _orders(*keys)
    query_name = query.get("name")
    has_name = "name" in query
    # every value the maps may take, by name (the query's names are none of these three)
    query["scheme"] = "tcp"
    query["host"] = host
    query["port"] = str(port)
    param_keys, extra_keys = orders
    params = MappingProxyType({k: query[k] for k in param_keys})
    extra = MappingProxyType({k: query[k] for k in extra_keys}) if extra_keys else EMPTY
    return TransportUrl._record_build(raw, "tcp", host, port, params, extra, kind, True, query_name, has_name, host,
                               host if port_text is None else f"{host}:{port_text}", None)


def _orders(kind: str, names: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The keys of the params and extraProps maps, in HashMap order, for a tcp:// URL whose query has
    ``names`` (none of them host, port or scheme) in this order; as :func:`_tcp` puts them."""
    allowed = ACCEPTOR_KEYS if kind == "acceptor" else CONNECTOR_KEYS
    params = ["scheme", "host", "port"] if kind == "acceptor" else ["host", "port"]
    extra: list[str] = []
    for key in java_hashmap_order(names):
        (params if key in allowed else extra).append(key)
    if len(_ORDERS) >= _MAX_ORDERS:
        _ORDERS.clear()
    found = _ORDERS[(kind, names)] = (tuple(java_hashmap_order(params)), tuple(java_hashmap_order(extra)))
    return found


def parse_transport_url_fully(raw: str, kind: str = "connector") -> TransportUrl:
    """:func:`parse_transport_url` step by step, whatever the URL (no shortcut, no memo)."""
    text = normalise(_JAVA_WHITESPACE.sub("", raw))
    try:
        uri = parse_java_uri(text)
    except JavaUriError as err:
        raise UrlError(f"java.net.URI refuses {redact(text)!r}: {err.reason}"
                       + (f" at index {err.index}" if err.index >= 0 else "")) from None
    if uri.scheme not in SCHEMES:
        shown = "no scheme" if uri.scheme is None else f"scheme {uri.scheme!r}"
        raise UrlError(f"{shown} in {redact(text)!r}: the broker knows only tcp:// and vm:// (case-sensitive)",
                       SCHEME)
    try:
        query = parse_query(uri.query)
    except UrlDecodeError as err:
        raise UrlError(f"{err} in the query of {redact(text)!r}", DECODE) from None
    if uri.scheme == "vm":
        return _vm(raw, uri.host, query, uri.raw_authority)
    fragment = uri.fragment
    _check_fragment(fragment, text)
    return _tcp(raw, kind, uri.scheme, uri.host, uri.port, query, uri.raw_authority, fragment)


def _tcp(raw: str, kind: str, scheme: str, uri_host: str | None, uri_port: int, query: dict[str, str | None],
         authority: str | None, fragment: str | None) -> TransportUrl:
    """TransportConfigurationSchema: the params and extraProps of a ``tcp://`` URL java.net.URI read."""
    allowed = ACCEPTOR_KEYS if kind == "acceptor" else CONNECTOR_KEYS
    params: dict[str, str | None] = {}
    if kind == "acceptor":
        params["scheme"] = scheme
    params["host"] = URI_NO_HOST if uri_host is None else uri_host
    params["port"] = str(uri_port)
    extra: dict[str, str | None] = {}
    for key in java_hashmap_order(query):  # the query map is a HashMap too: this is the order it is copied in
        (params if key in allowed else extra)[key] = query[key]
    host_value = params.get("host")
    port_value = params.get("port")
    port = DEFAULT_CONNECTOR_PORT if port_value is None else java_parse_int(port_value)
    return TransportUrl(
        raw=raw, scheme=scheme, kind=kind,
        host=DEFAULT_CONNECTOR_HOST if host_value is None else host_value,
        port=DEFAULT_CONNECTOR_PORT if port is None else port,
        port_is_number=port_value is None or port is not None,
        params=MappingProxyType({k: params[k] for k in java_hashmap_order(params)}),
        extra_props=MappingProxyType({k: extra[k] for k in java_hashmap_order(extra)}),
        query_name=query.get("name"), has_query_name="name" in query,
        uri_host=uri_host, authority=authority, fragment=fragment,
    )


def _vm(raw: str, host: str | None, query: dict[str, str | None], authority: str | None) -> TransportUrl:
    """InVMTransportConfigurationSchema: ``serverId`` is the URI host; of the query only
    ``connectionsAllowed`` (else ``securityDomain``) is kept. No host/port params: where the broker
    reads them it gets its defaults."""
    params: dict[str, str | None] = {"serverId": host}
    for key in ("connectionsAllowed", "securityDomain"):
        if key in query:
            params[key] = query[key]
            break
    return TransportUrl(
        raw=raw, scheme="vm", kind="vm", host=DEFAULT_CONNECTOR_HOST, port=DEFAULT_CONNECTOR_PORT,
        params=MappingProxyType({k: params[k] for k in java_hashmap_order(params)}),
        query_name=query.get("name"), has_query_name="name" in query, uri_host=host, authority=authority,
    )


def _check_fragment(fragment: str | None, text: str) -> None:
    """The TCP schema reads each comma-separated part of the fragment as one more URL."""
    if not fragment or not java_trim(fragment):
        return
    for part in java_split(fragment, ","):
        try:
            parse_query(parse_java_uri(part).query)
        except JavaUriError as err:
            raise UrlError(f"java.net.URI refuses {redact(part)!r} (after '#' in {redact(text)!r}): "
                           f"{err.reason}") from None
        except UrlDecodeError as err:
            raise UrlError(f"{err} in {redact(part)!r} (after '#' in {redact(text)!r})", DECODE) from None
