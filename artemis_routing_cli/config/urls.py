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
from functools import lru_cache
from types import MappingProxyType

from ..javastr import java_hashmap_order, java_parse_int, java_split, java_trim
from .javauri import JavaUriError, UrlDecodeError, parse_java_uri, parse_query
from .model import DEFAULT_CONNECTOR_HOST, DEFAULT_CONNECTOR_PORT, TransportUrl
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


@lru_cache(maxsize=16384)  # the model and the rules read every URL; the result is immutable
def parse_transport_url(raw: str, kind: str = "connector") -> TransportUrl:
    """Read ``raw`` as the broker reads an ``<acceptor>`` (``kind="acceptor"``) or ``<connector>``.

    Raises :class:`UrlError` where the broker throws (it then does not start). A host Java does
    not accept is not an error here: the URL parses with host ``"null"`` and port -1.
    """
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
    _check_fragment(uri.fragment, text)
    allowed = ACCEPTOR_KEYS if kind == "acceptor" else CONNECTOR_KEYS
    params: dict[str, str | None] = {}
    if kind == "acceptor":
        params["scheme"] = uri.scheme
    params["host"] = URI_NO_HOST if uri.host is None else uri.host
    params["port"] = str(uri.port)
    extra: dict[str, str | None] = {}
    for key in java_hashmap_order(query):  # the query map is a HashMap too: this is the order it is copied in
        (params if key in allowed else extra)[key] = query[key]
    host_value = params.get("host")
    port_value = params.get("port")
    port = DEFAULT_CONNECTOR_PORT if port_value is None else java_parse_int(port_value)
    return TransportUrl(
        raw=raw, scheme=uri.scheme, kind=kind,
        host=DEFAULT_CONNECTOR_HOST if host_value is None else host_value,
        port=DEFAULT_CONNECTOR_PORT if port is None else port,
        port_is_number=port_value is None or port is not None,
        params=MappingProxyType({k: params[k] for k in java_hashmap_order(params)}),
        extra_props=MappingProxyType({k: extra[k] for k in java_hashmap_order(extra)}),
        query_name=query.get("name"), has_query_name="name" in query,
        uri_host=uri.host, authority=uri.raw_authority, fragment=uri.fragment,
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
