"""``java.net.URI``, ``URLDecoder`` and the broker's query splitting, as the JDK (17 to 25) does them.

The broker reads every acceptor and connector URL with ``new URI(text)``. What matters for
broker.xml is how Java splits the authority: a host Java's RFC 2396 grammar refuses
(``my_broker``, ``-bad``, ``node-1.10``, ``10.0.0.300``) does not fail the parse; the authority
is kept as a *registry name* and ``getHost()`` is null, ``getPort()`` -1. Characters outside the
grammar (``|``, a lone ``%``, a space such as U+00A0) do fail it (URISyntaxException), and so
does a malformed IPv6 literal. ``tests/config/test_javauri.py`` holds the JVM's own answers.
"""

from __future__ import annotations

import re
import unicodedata

from ..javastr import bounded_int, java_parse_integer, java_trim, java_utf8_decode
from ..records import record

# Character classes of the JDK's URI parser (RFC 2396 plus RFC 2732's brackets), written out.
_DIGIT = "0123456789"
_ALPHA = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ALPHANUM = _DIGIT + _ALPHA
_HEX = _DIGIT + "abcdefABCDEF"
_MARK = "-_.!~*'()"
_UNRESERVED = _ALPHANUM + _MARK
_RESERVED = ";/?:@&=+$,[]"
URIC = frozenset(_RESERVED + _UNRESERVED)
_PCHAR = _UNRESERVED + ":@&=+$,"
PATH = frozenset(_PCHAR + ";/")
USERINFO = frozenset(_UNRESERVED + ";:&=+$,")
REG_NAME = frozenset(_UNRESERVED + "$,;:@&=+")
SERVER = frozenset(USERINFO | set(_ALPHANUM + "-.:@[]"))
SERVER_PERCENT = frozenset(SERVER | {"%"})
SCHEME = frozenset(_ALPHANUM + "+-.")
SCOPE_ID = frozenset(_ALPHANUM + "_.")
ALPHANUM = frozenset(_ALPHANUM)
ALPHANUM_DASH = frozenset(_ALPHANUM + "-")
DIGITS = frozenset(_DIGIT)
HEX = frozenset(_HEX)
DIGITS_DOT = frozenset(_DIGIT + ".")


class JavaUriError(ValueError):
    """``URISyntaxException``: ``reason`` and the 0-based ``index`` Java reports (-1: none)."""

    def __init__(self, text: str, reason: str, index: int = -1) -> None:
        where = f" at index {index}" if index >= 0 else ""
        super().__init__(f"{reason}{where}: {text}")
        self.text = text
        self.reason = reason
        self.index = index


class _Fail(Exception):
    """An internal parse failure (becomes JavaUriError unless the authority falls back)."""

    def __init__(self, reason: str, index: int = -1) -> None:
        super().__init__(reason)
        self.reason = reason
        self.index = index


def _other_char(ch: str) -> bool:
    """A visible non-US-ASCII char, which Java lets through wherever escapes are allowed."""
    return ord(ch) > 128 and unicodedata.category(ch) not in ("Zs", "Zl", "Zp") and not 0x7F <= ord(ch) <= 0x9F


@record(frozen=True, slots=True)
class JavaUri:
    """What ``java.net.URI`` reports for a string; raw components are as written (escapes kept)."""

    scheme: str | None
    raw_authority: str | None
    user_info: str | None
    host: str | None  # getHost(): None for a registry authority; IPv6 keeps its brackets
    port: int  # getPort(): -1 when absent or for a registry authority
    raw_path: str | None
    raw_query: str | None
    raw_fragment: str | None
    opaque: bool = False

    @property
    def registry_authority(self) -> bool:
        """Whether the authority did not parse as host[:port] (then host is None and port -1)."""
        return self.raw_authority is not None and self.host is None

    @property
    def query(self) -> str | None:
        """``getQuery()``: the raw query with its %XX escapes decoded as UTF-8."""
        return uri_decode(self.raw_query) if self.raw_query is not None else None

    @property
    def fragment(self) -> str | None:
        return uri_decode(self.raw_fragment) if self.raw_fragment is not None else None


class _Parser:
    def __init__(self, text: str) -> None:
        self.s = text
        self.user_info: str | None = None
        self.host: str | None = None
        self.port = -1
        self.authority: str | None = None
        self.ipv6_bytes = 0

    # -- scanning ------------------------------------------------------------------------------

    def at(self, p: int, n: int, token: str) -> bool:
        return p < n and self.s.startswith(token, p) and p + len(token) <= n

    def until(self, p: int, n: int, stop: str) -> int:
        """Index of the first char in ``stop`` (or n)."""
        while p < n and self.s[p] not in stop:
            p += 1
        return p

    def scan(self, p: int, n: int, allowed: frozenset[str], escapes: bool = False) -> int:
        """Past the chars in ``allowed`` (and %XX escapes and visible non-ASCII chars if ``escapes``)."""
        s = self.s
        while p < n:
            ch = s[p]
            if ch in allowed:
                p += 1
            elif escapes and ch == "%":
                if p + 3 <= n and s[p + 1] in HEX and s[p + 2] in HEX:
                    p += 3
                else:
                    raise _Fail("Malformed escape pair", p)
            elif escapes and _other_char(ch):
                p += 1
            else:
                break
        return p

    def check(self, p: int, n: int, allowed: frozenset[str], what: str, escapes: bool = True) -> None:
        q = self.scan(p, n, allowed, escapes)
        if q < n:
            raise _Fail(f"Illegal character in {what}", q)

    # -- grammar -------------------------------------------------------------------------------

    def parse(self) -> JavaUri:
        s, n = self.s, len(self.s)
        p = 0
        while p < n and s[p] not in "/?#:":
            p += 1
        scheme: str | None = None
        path: str | None = None
        query: str | None = None
        opaque = False
        if p < n and s[p] == ":":
            if p == 0:
                raise _Fail("Expected scheme name", 0)
            if s[0] not in _ALPHA:
                raise _Fail("Illegal character in scheme name", 0)
            self.check(1, p, SCHEME, "scheme name", escapes=False)
            scheme = s[:p]
            p += 1
            if self.at(p, n, "/"):
                p, path, query = self.hierarchical(p, n)
            else:
                q = self.until(p, n, "#")
                if q <= p:
                    raise _Fail("Expected scheme-specific part", p)
                self.check(p, q, URIC, "opaque part")
                opaque = True
                p = q
        else:
            p, path, query = self.hierarchical(0, n)
        fragment: str | None = None
        if self.at(p, n, "#"):
            self.check(p + 1, n, URIC, "fragment")
            fragment = s[p + 1:]
            p = n
        if p < n:
            raise _Fail("end of URI", p)
        return JavaUri(scheme, self.authority, self.user_info, self.host, self.port, path, query, fragment, opaque)

    def hierarchical(self, p: int, n: int) -> tuple[int, str, str | None]:
        if self.at(p, n, "//"):
            p += 2
            q = self.until(p, n, "/?#")
            if q > p:
                p = self.authority_part(p, q)
            elif q >= n:
                raise _Fail("Expected authority", p)
        q = self.until(p, n, "?#")
        self.check(p, q, PATH, "path")
        path = self.s[p:q]
        p = q
        query = None
        if self.at(p, n, "?"):
            p += 1
            q = self.until(p, n, "#")
            self.check(p, q, URIC, "query")
            query = self.s[p:q]
            p = q
        return p, path, query

    def authority_part(self, p: int, n: int) -> int:
        has_bracket = self.until(p, n, "]") > p
        server_chars = self.scan(p, n, SERVER_PERCENT if has_bracket else SERVER, True) == n
        reg_end = self.scan(p, n, REG_NAME, True)
        reg_chars = reg_end == n
        if reg_chars and not server_chars:
            self.authority = self.s[p:n]
            return n
        failure: _Fail | None = None
        q = p
        if server_chars:
            try:
                q = self.server(p, n)
                if q < n:
                    raise _Fail("Expected end of authority", q)
                self.authority = self.s[p:n]
            except _Fail as exc:
                self.user_info, self.host, self.port = None, None, -1
                failure, q = exc, p
        if q < n:
            if reg_chars:
                self.authority = self.s[p:n]
            elif failure is not None:
                raise failure
            else:
                raise _Fail("Illegal character in authority", q)
        return n

    def server(self, p: int, n: int) -> int:
        s = self.s
        q = p
        while q < n and s[q] not in "/?#@":
            q += 1
        if q < n and s[q] == "@":
            self.check(p, q, USERINFO, "user info")
            self.user_info = s[p:q]
            p = q + 1
        if self.at(p, n, "["):
            p += 1
            q = self.until(p, n, "/?#]")
            if not (q > p and self.at(q, n, "]")):
                raise _Fail("Expected closing bracket for IPv6 address", q)
            r = self.until(p, q, "%")
            if r > p:
                self.ipv6(p, r)
                if r + 1 == q:
                    raise _Fail("scope id expected")
                self.check(r + 1, q, SCOPE_ID, "scope id", escapes=False)
            else:
                self.ipv6(p, q)
            self.host = s[p - 1:q + 1]
            p = q + 1
        else:
            q = self.ipv4_prefix(p, n)
            if q <= p:
                q = self.hostname(p, n)
            p = q
        if self.at(p, n, ":"):
            p += 1
            q = self.until(p, n, "/")
            if q > p:
                self.check(p, q, DIGITS, "port number", escapes=False)
                port = java_parse_integer(s[p:q])
                if port is None:
                    raise _Fail("Malformed port number", p)
                self.port = port
                p = q
        if p < n:
            raise _Fail("Expected port number", p)
        return p

    def ipv4(self, p: int, n: int, strict: bool) -> int:
        """An IPv4 address at p: its end, or -1 when no digits/dots start there (or, strict, the
        interval holds anything else); a dotted-digits run that is not four bytes raises."""
        m = self.scan(p, n, DIGITS_DOT)
        if m <= p or (strict and m != n):
            return -1
        q = p
        for part in range(4):
            if part:
                if not self.at(p, m, "."):
                    raise _Fail("Malformed IPv4 address", p)
                p += 1
            q = self.scan(p, m, DIGITS)
            if q <= p or bounded_int(self.s[p:q]) > 255:
                raise _Fail("Malformed IPv4 address", q if q <= p else p)
            p = q
        if q < m:
            raise _Fail("Malformed IPv4 address", q)
        return q

    def ipv4_prefix(self, p: int, n: int) -> int:
        """parseIPv4Address: an IPv4 host followed by nothing or ':'; -1 otherwise (no exception)."""
        try:
            q = self.ipv4(p, n, False)
        except _Fail:
            return -1
        if p < q < n and self.s[q] != ":":
            q = -1
        if q > p:
            self.host = self.s[p:q]
        return q

    def hostname(self, p: int, n: int) -> int:
        start, last = p, -1
        s = self.s
        while True:
            q = self.scan(p, n, ALPHANUM)
            if q <= p:
                break
            last = p
            p = q
            q = self.scan(p, n, ALPHANUM_DASH)
            if q > p:
                if s[q - 1] == "-":
                    raise _Fail("Illegal character in hostname", q - 1)
                p = q
            if not self.at(p, n, "."):
                break
            p += 1
            if p >= n:
                break
        if p < n and s[p] != ":":
            raise _Fail("Illegal character in hostname", p)
        if last < 0:
            raise _Fail("Expected hostname", start)
        if last > start and s[last] not in _ALPHA:
            raise _Fail("Illegal character in hostname", last)
        self.host = s[start:p]
        return p

    def ipv6(self, p: int, n: int) -> None:
        start = p
        compressed = False
        q = self.hex_seq(p, n)
        if q > p:
            p = q
            if self.at(p, n, "::"):
                compressed = True
                p = self.hex_post(p + 2, n)
            elif self.at(p, n, ":"):
                p = self.take_ipv4(p + 1, n, "IPv4 address")
                self.ipv6_bytes += 4
        elif self.at(p, n, "::"):
            compressed = True
            p = self.hex_post(p + 2, n)
        if p < n:
            raise _Fail("Malformed IPv6 address", start)
        if self.ipv6_bytes > 16:
            raise _Fail("IPv6 address too long", start)
        if not compressed and self.ipv6_bytes < 16:
            raise _Fail("IPv6 address too short", start)
        if compressed and self.ipv6_bytes == 16:
            raise _Fail("Malformed IPv6 address", start)

    def take_ipv4(self, p: int, n: int, expected: str) -> int:
        q = self.ipv4(p, n, True)
        if q <= p:
            raise _Fail(f"Expected {expected}", p)
        return q

    def hex_post(self, p: int, n: int) -> int:
        if p == n:
            return p
        q = self.hex_seq(p, n)
        if q > p:
            p = q
            if self.at(p, n, ":"):
                p = self.take_ipv4(p + 1, n, "hex digits or IPv4 address")
                self.ipv6_bytes += 4
        else:
            p = self.take_ipv4(p, n, "hex digits or IPv4 address")
            self.ipv6_bytes += 4
        return p

    def hex_seq(self, p: int, n: int) -> int:
        q = self.scan(p, n, HEX)
        if q <= p or self.at(q, n, "."):
            return -1
        if q > p + 4:
            raise _Fail("IPv6 hexadecimal digit sequence too long", p)
        self.ipv6_bytes += 2
        p = q
        while p < n and self.at(p, n, ":") and not self.at(p + 1, n, ":"):
            p += 1
            q = self.scan(p, n, HEX)
            if q <= p:
                raise _Fail("Expected digits for an IPv6 address", p)
            if self.at(q, n, "."):
                p -= 1
                break
            if q > p + 4:
                raise _Fail("IPv6 hexadecimal digit sequence too long", p)
            self.ipv6_bytes += 2
            p = q
        return p


# The everyday URL, ``scheme://host[:port][?query]`` in plain ASCII without escapes, brackets or
# user info: read directly when the host is certainly one Java accepts (see _plain_host).
_PLAIN = re.compile(
    r"([A-Za-z][A-Za-z0-9+.-]*)://([A-Za-z0-9.-]+)(?::([0-9]{0,9}))?(?:\?([A-Za-z0-9\-_.!~*'()&=+$,;:@/?]*))?")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
# Several labels with a last one starting with a letter, or a single label (a trailing dot allowed).
_HOSTNAME = re.compile(rf"(?:{_LABEL}\.)+[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.?|{_LABEL}\.?")
_QUAD = re.compile(r"([0-9]+)\.([0-9]+)\.([0-9]+)\.([0-9]+)")


def _plain_host(host: str) -> bool:
    """A hostname Java's grammar takes whole, or a dotted quad of bytes: exactly the hosts for which
    Java's parser sets getHost() to the text itself."""
    # four numbers are never a hostname (its last label starts with a letter): a host that starts with a
    # digit is tried as a quad first, sparing the hostname pattern's backtracking over it
    if not host[:1].isdigit():
        return _HOSTNAME.fullmatch(host) is not None
    quad = _QUAD.fullmatch(host)
    if quad is None:
        return _HOSTNAME.fullmatch(host) is not None
    for part in quad.groups():  # a byte: at most 255 once leading zeros are dropped (compared as text)
        digits = part.lstrip("0")
        if len(digits) > 3 or len(digits) == 3 and digits > "255":
            return False
    return True


def parse_java_uri(text: str) -> JavaUri:
    """``new URI(text)``; raises :class:`JavaUriError` where Java throws URISyntaxException."""
    m = _PLAIN.fullmatch(text)
    if m is not None and _plain_host(m.group(2)):
        host, port = m.group(2), m.group(3)
        authority = text[len(m.group(1)) + 3:m.end(3) if port is not None else m.end(2)]
        return JavaUri(m.group(1), authority, None, host, int(port) if port else -1, "", m.group(4), None)
    try:
        return _Parser(text).parse()
    except _Fail as exc:
        raise JavaUriError(text, exc.reason, exc.index) from None


_ESCAPES = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def uri_decode(raw: str) -> str:
    """``URI.decode`` as ``getQuery()`` and ``getFragment()`` use it: each run of %XX escapes
    becomes UTF-8 text (malformed bytes become U+FFFD, counted as Java counts them)."""
    if "%" not in raw:
        return raw
    return _ESCAPES.sub(lambda m: java_utf8_decode(bytes.fromhex(m.group().replace("%", ""))), raw)


class UrlDecodeError(ValueError):
    """``URLDecoder.decode`` threw IllegalArgumentException."""


def url_decode(text: str) -> str:
    """``URLDecoder.decode(text, UTF_8)``: ``+`` is a space, runs of %XX are UTF-8 bytes."""
    if "%" not in text and "+" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "+":
            out.append(" ")
            i += 1
        elif ch == "%":
            data = bytearray()
            while i + 2 < n and ch == "%":
                value = java_parse_integer(text[i + 1:i + 3], radix=16)
                if value is None:
                    raise UrlDecodeError(f"URLDecoder: Illegal hex characters in escape (%) pattern: "
                                         f"{text[i:i + 3]!r}")
                if value < 0:
                    raise UrlDecodeError("URLDecoder: Illegal hex characters in escape (%) pattern - negative value")
                data.append(value)
                i += 3
                if i < n:
                    ch = text[i]
            if i < n and ch == "%":
                raise UrlDecodeError("URLDecoder: Incomplete trailing escape (%) pattern")
            out.append(java_utf8_decode(bytes(data)))
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def parse_query(query: str | None) -> dict[str, str | None]:
    """``URISchema.parseQuery``: split on ``&`` only; name and value URL-decoded when there is an
    ``=``; a part without ``=`` is kept undecoded with a null value (blank parts are dropped).

    The dict's order is insertion order; a repeated name keeps its first place and takes the last
    value, as a Java HashMap does (use :func:`~artemis_routing_cli.javastr.java_hashmap_order`
    for the broker's iteration order).
    """
    found: dict[str, str | None] = {}
    if not query:
        return found
    for part in query.split("&"):
        eq = part.find("=")
        if eq >= 0:
            found[url_decode(part[:eq])] = url_decode(part[eq + 1:])
        elif java_trim(part):
            found[part] = None
    return found


def server_authority_problem(authority: str) -> str | None:
    """Why ``authority`` is no ``[user@]host[:port]`` for Java (then getHost() is null), in words;
    None when it is one."""
    parser = _Parser(authority)
    try:
        parser.server(0, len(authority))
    except _Fail as exc:
        return _explain(authority, exc)
    return None


def _explain(authority: str, exc: _Fail) -> str:
    at = exc.index
    ch = authority[at] if 0 <= at < len(authority) else ""
    host = authority.rsplit("@", 1)[-1]
    host = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    if exc.reason == "Illegal character in hostname":
        if ch.isdigit():
            if all(part.isdigit() for part in host.split(".") if part):
                return f"'{host}' is not an IPv4 address (four numbers 0-255) nor a host name"
            return f"the last label of host name '{host}' starts with a digit"
        if ch == "-":
            return f"a label of host name '{host}' begins or ends with '-'"
        return f"'{ch}' is not allowed in a host name ('{host}'; RFC 2396: letters, digits, '-' and '.')"
    if exc.reason == "Illegal character in port number":
        return f"the port after '{host}:' is not a number"
    if exc.reason == "Malformed port number":
        return "the port does not fit a Java int"
    if exc.reason == "Expected hostname":
        return "there is no host name before the port"
    return exc.reason.lower() if exc.reason else "it does not parse"
