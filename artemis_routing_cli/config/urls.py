"""Acceptor and connector URLs, parsed the way the broker's URI schemas read them."""

from __future__ import annotations

import re
from functools import lru_cache
from types import MappingProxyType
from urllib.parse import unquote

from .model import TransportUrl

# What java.net.URI reports for a missing host / port; the broker copies them into the
# transport parameters as text ("" + uri.getHost(), "" + uri.getPort()), so a connector written
# without a port really has port -1 (its redirects say host:-1, and it connects nowhere).
URI_NO_HOST = "null"
URI_NO_PORT = -1
_JAVA_WHITESPACE = re.compile(r"[ \t\n\x0b\f\r]")
_SCHEME = re.compile(r"^\s*\(?\s*([A-Za-z][A-Za-z0-9+.-]*)://")
_PARAM_SPLIT = re.compile(r"[;&]")


class UrlError(ValueError):
    """The URL cannot be read; the message says why."""


@lru_cache(maxsize=16384)  # the model and the rules read every URL; the result is immutable
def parse_transport_url(raw: str) -> TransportUrl:
    """Parse ``tcp://host:port?k=v;k2=v2`` as the broker does (parameters split on ``;`` and ``&``).

    The broker first removes every whitespace character (ConfigurationUtils). A list of URLs in
    parentheses, as the client URL syntax allows, uses the first one's host. A missing host or
    port is what Java's URI reports (``null`` and -1), not a default.
    """
    text = _JAVA_WHITESPACE.sub("", raw)
    m = _SCHEME.match(text)
    if not m:
        raise UrlError(f"{raw!r} is not a URL like tcp://host:port")
    scheme = m.group(1).lower()
    rest = text[m.end():]
    query = ""
    if text.startswith("(") and ")" in rest:
        inner, _, after = rest.partition(")")
        rest = inner.split(",")[0]
        query = after[1:] if after.startswith("?") else ""
    elif "?" in rest:
        rest, query = rest.split("?", 1)
    authority = rest.split("/", 1)[0]
    host, port = _split_host_port(authority, raw)
    params: dict[str, str] = {}
    for part in _PARAM_SPLIT.split(query):
        if not part:
            continue
        key, sep, value = part.partition("=")
        params[unquote(key)] = unquote(value) if sep else ""
    # Query parameters named host/port override the authority, as in the broker's TCP schema.
    if "host" in params and params["host"]:
        host = params["host"]
    if "port" in params:
        try:
            port = int(params["port"])
        except ValueError as exc:
            raise UrlError(f"port {params['port']!r} in {raw!r} is not a number") from exc
    return TransportUrl(raw=raw, scheme=scheme, host=host, port=port, params=MappingProxyType(params))


def _split_host_port(authority: str, raw: str) -> tuple[str, int]:
    if "@" in authority:
        authority = authority.rsplit("@", 1)[1]
    if authority.startswith("["):
        end = authority.find("]")
        if end < 0:
            raise UrlError(f"unclosed '[' in {raw!r}")
        host = authority[1:end]
        rest = authority[end + 1:]
        port_text = rest[1:] if rest.startswith(":") else ""
    elif authority.count(":") == 1:
        host, port_text = authority.split(":")
    else:
        host, port_text = authority, ""
    if not host:
        host = URI_NO_HOST
    if not port_text:
        return host, URI_NO_PORT
    try:
        port = int(port_text)
    except ValueError as exc:
        raise UrlError(f"port {port_text!r} in {raw!r} is not a number") from exc
    if not 0 <= port <= 65535:
        raise UrlError(f"port {port} in {raw!r} is out of range")
    return host, port
