"""Acceptor and connector URLs (AR702-AR704, AR708, AR709): how the broker reads `tcp://host:port?k=v`.

The broker takes the URL from the element's *first child node* only, removes whitespace, turns
`;` into `&`, parses it with `java.net.URI`, looks the scheme up (only `tcp` and `vm`, case
sensitive) and URL-decodes the query. Anything it cannot parse stops it. Where Java's URI
grammar refuses the host (`my_broker`, `node-1.10`, `10.0.0.300`) it does *not* fail: the broker
keeps the text `null` as host and -1 as port, and that connector never connects.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from ..config.javauri import server_authority_problem
from ..config.model import Acceptor, TransportUrl
from ..config.nodes import first_child_value, text_content
from ..config.positions import Pos
from ..config.transport_keys import BROKER_PROTOCOLS
from ..config.urls import URI_NO_PORT, UrlError, parse_transport_url, redact
from ..diagnostics import DEPLOYS, REFUSES, Diagnostic, RuleMeta, Severity
from ._util import defined_acceptors, defined_connectors
from .base import Context

RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR702",
        name="transport-url-invalid",
        severity=Severity.ERROR,
        category="semantics",
        broker=REFUSES,
        summary="An acceptor or connector URL the broker cannot read, or one whose host Java's URI refuses.",
        doc="""\
Errors: an empty element (NullPointerException), a `java.net.URI` syntax error (`|`, a `%`
not followed by two hex digits, a space such as U+00A0 pasted from a web page, a broken IPv6
address), a scheme other than `tcp` or `vm` (`TCP://` is not found), a query that `URLDecoder`
rejects (`%25zz` decodes to `%zz`), and a `?name=` that differs from the `name` attribute: the
broker does not start. Also an error: a host Java's RFC 2396 grammar refuses, such as
`my_broker` (an underscore, common in Docker service names), `-bad`, `node-1.10` (the last
label starts with a digit), `10.0.0.300` or a port that is not a number in the authority: Java
keeps the authority without host and port, the broker stores the host `null` and port -1, and
the connector never connects (a pool target that is never ready) or the acceptor cannot
listen. Warnings: a `port=` parameter that is not a number (the broker logs it and uses 61616)
and a `#` (what follows is not part of the query).""",
        fail="""<connectors>
  <connector name="b1">tcp://my_broker:61616</connector>
</connectors>""",
        ok="""<connectors>
  <connector name="b1">tcp://my-broker:61616</connector>
</connectors>""",
    ),
    RuleMeta(
        id="AR703",
        name="transport-url-without-port",
        severity=Severity.WARNING,
        category="semantics",
        summary="A tcp acceptor or connector URL without a port: the broker uses port -1, not 61616.",
        doc="""\
The broker copies the URL's port into the transport parameters as Java's `URI.getPort()` reports
it, which is -1 when the URL has none; the documented default (61616) only applies to transport
configurations built without a URL. An acceptor without a port cannot listen; a connector without
one connects nowhere, and clients redirected to it are sent to `host:-1`. Write the port.""",
        fail="""<connectors>
  <connector name="b1">tcp://broker1</connector>
</connectors>""",
        ok="""<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
</connectors>""",
    ),
    RuleMeta(
        id="AR704",
        name="acceptor-protocol-unknown",
        severity=Severity.WARNING,
        category="semantics",
        summary="An acceptor's `protocols=` names a protocol the broker does not have (names are case-sensitive).",
        doc="""\
The broker looks each name of `protocols=` (and of the deprecated `protocol=`, still read)
up exactly as written among AMQP, CORE, HORNETQ, MQTT, OPENWIRE and STOMP. An unknown name is
only logged. When no name matches at all (`protocols=amqp`, or an empty `protocols=`), the
acceptor serves **every** protocol, the opposite of what was meant.""",
        fail="""<acceptors>
  <acceptor name="amqp">tcp://0.0.0.0:5672?protocols=amqp</acceptor>
</acceptors>""",
        ok="""<acceptors>
  <acceptor name="amqp">tcp://0.0.0.0:5672?protocols=AMQP</acceptor>
</acceptors>""",
    ),
    RuleMeta(
        id="AR708",
        name="transport-url-mixed-content",
        severity=Severity.WARNING,
        category="semantics",
        summary="An acceptor or connector holds a comment or CDATA section: the broker reads only the first part.",
        doc="""\
The broker reads the URL as the element's first child node (`getChildNodes().item(0)`). A
comment or CDATA section inside the element splits it: `tcp://h:61616?<![CDATA[a=1&b=2]]>`
becomes `tcp://h:61616?`, and a comment in front becomes the URL itself. Put the whole URL in
one CDATA section, or none, and comments outside the element.""",
        fail="""<connectors>
  <connector name="b1">tcp://broker1:61616<!-- main -->?sslEnabled=true</connector>
</connectors>""",
        ok="""<connectors>
  <!-- main -->
  <connector name="b1">tcp://broker1:61616?sslEnabled=true</connector>
</connectors>""",
    ),
]

RULES.append(RuleMeta(
    id="AR709",
    name="pool-connector-param-without-value",
    severity=Severity.WARNING,
    category="semantics",
    summary="A router pool's connector has a URL parameter without `=value`: CORE clients redirected to it get an "
            "error.",
    doc="""\
A query parameter written without `=` (`tcp://b1:61616?sslEnabled=true;verifyHost`) is kept by the
broker with a null value. When a connection router redirects a CORE client to that connector, the
broker encodes the connector into its DISCONNECT message, meets the null and fails: the client gets
an exception instead of the redirect (AMQP, MQTT and OpenWire clients only get host and port, so
they are not affected). Write `name=value`, or drop the parameter.""",
    fail="""<connectors>
  <connector name="b1">tcp://broker1:61616?verifyHost</connector>
</connectors>
<connection-routers>
  <connection-router name="r"><key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>
    <pool><static-connectors><connector-ref>b1</connector-ref></static-connectors></pool>
  </connection-router>
</connection-routers>""",
    ok="""<connectors>
  <connector name="b1">tcp://broker1:61616?verifyHost=true</connector>
</connectors>
<connection-routers>
  <connection-router name="r"><key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>
    <pool><static-connectors><connector-ref>b1</connector-ref></static-connectors></pool>
  </connection-router>
</connection-routers>""",
))

_EFFECT = {"acceptor": "the acceptor cannot listen: binding it fails, which stops the broker as it activates",
           "connector": "the connector never connects"}
# NettyAcceptor binds new InetSocketAddress(host, port): a port out of range throws, the host 'null'
# does not resolve; RemotingServiceImpl.startAcceptors rethrows, the activation fails and the
# 'artemis run' command stops the broker. A connector that cannot connect only leaves a target unready.
_BIND_VERDICT = {"acceptor": REFUSES, "connector": DEPLOYS}
_WHITESPACE = str.maketrans("", "", " \t\n\x0b\f\r")


def check(ctx: Context) -> Iterator[Diagnostic]:
    config = ctx.config
    if config.core is None:
        return
    cdata = config.has_cdata
    for kind, written in (("acceptor", defined_acceptors), ("connector", defined_connectors)):
        for el in ctx.shared(written):  # the <acceptor>s of <acceptors>, the <connector>s of <connectors>
            yield from _element(ctx, el, kind, cdata)
    unknown: dict[tuple[str | None, str | None], tuple[str, ...]] = {}  # by the protocol(s) params written
    for acceptor in config.acceptors:
        url = acceptor.url
        written = (url.param("protocol"), url.param("protocols"))
        if written == (None, None):
            continue  # no name given: nothing unknown
        names = unknown.get(written)
        if names is None:
            names = unknown[written] = acceptor.unknown_protocols  # a function of those two params
        if names:
            yield from _protocols(ctx, acceptor)
    yield from _valueless_pool_params(ctx)


def _valueless_pool_params(ctx: Context) -> Iterator[Diagnostic]:
    """AR709: a connector a router pool names statically, with a query parameter the broker holds as null."""
    config = ctx.config
    judged: set[str] = set()  # reported, or without such a parameter: each connector is looked at once
    for router in config.connection_routers:
        pool = router.pool
        if pool is None or pool.source != "static":
            continue
        for name in pool.static_connectors:
            if name in judged:
                continue
            connector = config.connectors.get(name)
            if connector is None:
                continue
            judged.add(name)
            url = connector.url
            valueless = [k for k, v in (*url.params.items(), *url.extra_props.items()) if v is None]
            if valueless:
                keys = ", ".join(repr(k) for k in valueless)
                yield ctx.report("AR709", connector.pos, f"connector '{name}' (in the pool of router '{router.name}') "
                                 f"has {keys} without a value: the broker cannot encode it into a CORE redirect, so "
                                 "CORE clients sent there get an error", section=f"connector {name}")


def _element(ctx: Context, el: etree._Element, kind: str, cdata: bool) -> Iterator[Diagnostic]:
    name = el.get("name")
    shown = name or ""
    where = f"{kind} {shown}"
    pos = ctx.locate(el)
    raw = first_child_value(el, cdata)
    whole = text_content(el) if cdata or len(el) else raw  # a text-only element is one text node
    if raw is None:
        yield ctx.report("AR702", pos, f"{kind} '{shown}' has no URL text (its first child node is not text): the "
                         "broker fails with a NullPointerException and does not start", section=where)
        return
    if whole is not raw and raw.translate(_WHITESPACE) != (whole or "").translate(_WHITESPACE):
        first = "a comment" if len(el) and not el.text else "its first text node"
        yield ctx.report("AR708", pos, f"{kind} '{shown}': the broker reads only {first}, {redact(raw.strip())!r}, "
                         f"not {redact((whole or '').strip())!r}", section=where)
    try:
        url = parse_transport_url(raw, kind)
    except UrlError as err:
        yield ctx.report("AR702", pos, f"{kind} '{shown}': {err}; the broker does not start", section=where)
        return
    if url.kind != "vm" and url.has_query_name and name is not None and url.query_name != name:
        yield ctx.report("AR702", pos, f"{kind} '{shown}': ?name={url.query_name} differs from the name attribute "
                         "('Name doesn't match query param'): the broker does not start", section=where)
        return
    yield from _url(ctx, url, kind, shown, pos, where)


def _url(ctx: Context, url: TransportUrl, kind: str, name: str, pos: Pos, where: str) -> Iterator[Diagnostic]:
    if url.kind == "vm":
        return
    if url.host_unknown:
        authority = url.authority or ""
        why = server_authority_problem(authority) or "it is not host:port"
        shown = "****@" + authority.rsplit("@", 1)[1] if "@" in authority else authority  # no user info shown
        yield ctx.report("AR702", pos, f"{kind} '{name}': java.net.URI takes no host and port from "
                         f"'{shown}' ({why}); the broker uses host 'null' and port -1, so "
                         f"{_EFFECT[kind]}", section=where, broker=_BIND_VERDICT[kind])
        return
    if not url.port_is_number:
        yield ctx.report("AR702", pos, f"{kind} '{name}': port={url.params.get('port')!r} is not a number; the "
                         "broker logs it and uses port 61616", section=where, severity=Severity.WARNING,
                         broker=DEPLOYS)
    elif not 0 <= url.port <= 65535 and url.port != URI_NO_PORT:
        yield ctx.report("AR702", pos, f"{kind} '{name}': port {url.port} is out of range: "
                         f"{_EFFECT[kind]}", section=where, broker=_BIND_VERDICT[kind])
    elif url.port == URI_NO_PORT:
        effect = ("cannot listen (binding port -1 fails, which stops the broker as it activates)"
                  if kind == "acceptor" else "connects nowhere and redirects to host:-1")
        yield ctx.report("AR703", pos, f"{kind} '{name}' has no port: the broker uses port -1 (not 61616), "
                         f"so it {effect}", section=where, hint="write the port, e.g. tcp://host:61616",
                         broker=_BIND_VERDICT[kind])
    if url.fragment is not None and "#" in url.raw:  # written, not made by the (u1,u2) form
        yield ctx.report("AR702", pos, f"{kind} '{name}': the URL has a '#': what follows it is not part of the "
                         "query (the broker reads it as more URLs and ignores them)", section=where,
                         severity=Severity.WARNING, hint="write %23 for a '#' inside a value", broker=DEPLOYS)


def _protocols(ctx: Context, acceptor: Acceptor) -> Iterator[Diagnostic]:
    unknown = acceptor.unknown_protocols
    if not unknown:
        return
    served = acceptor.protocols
    effect = (f"it serves {', '.join(served)} only" if served
              else "no name matched, so the acceptor serves every protocol")
    words = "; ".join(_unknown_protocol(n) for n in unknown)
    yield ctx.report("AR704", acceptor.pos, f"acceptor '{acceptor.name}': {words}: the broker logs and ignores "
                     f"it; {effect}", section=f"acceptor {acceptor.name}")


def _unknown_protocol(name: str) -> str:
    if not name:
        return "an empty protocol name"
    guess = name.strip().upper()
    hint = f" (names are case-sensitive: {guess})" if guess in BROKER_PROTOCOLS else ""
    return f"protocol '{name}' is unknown{hint}"
