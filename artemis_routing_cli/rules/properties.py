"""Properties and URLs (AR701, AR702): what the broker substitutes and how it reads transport URLs.

Before anything else the broker replaces every `${name}` / `${name:default}` in the raw text:
system property, then environment variable, then the default, then, silently, the empty
string. An acceptor or connector is a URL (`tcp://host:port?key=value;key=value`) that the
broker parses when it reads broker.xml; one it cannot parse stops the broker.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..config.parse import descendants, local, text_content
from ..config.positions import Pos
from ..config.urls import URI_NO_PORT, UrlError, parse_transport_url
from ..diagnostics import Diagnostic, RuleMeta, Severity
from .base import Context

RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR701",
        name="property-empty",
        severity=Severity.WARNING,
        category="semantics",
        summary="A `${name}` with no system property, environment variable or default became the empty string.",
        doc="""\
The broker does not complain about an unresolved `${name}`: it substitutes the empty string,
and the damage shows up later (an acceptor on port 61616 instead of yours, an empty password).
Give a default (`${name:value}`), or pass the value to `arouter validate` with `-D name=value`
as the broker would get it.""",
        fail="""<acceptors>
  <acceptor name="artemis">tcp://0.0.0.0:${arouter.test.unset.port}</acceptor>
</acceptors>""",
        ok="""<acceptors>
  <acceptor name="artemis">tcp://0.0.0.0:${arouter.test.unset.port:61616}</acceptor>
</acceptors>""",
    ),
    RuleMeta(
        id="AR702",
        name="transport-url-invalid",
        severity=Severity.ERROR,
        category="semantics",
        summary="An acceptor or connector URL that cannot be parsed.",
        doc="""\
The broker reads each `<acceptor>` and `<connector>` as a `java.net.URI`. When the authority
is not `host:port` (a port that is not a number, say), Java does not fail: it keeps the URI
without host and port, and the broker then uses the host `null` and port -1, so the acceptor
cannot listen and the connector cannot connect. References to such a connector are not
reported again.""",
        fail="""<connectors>
  <connector name="b1">tcp://broker1:6161x</connector>
</connectors>""",
        ok="""<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
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
]

_SECTIONS = {"acceptor": "acceptors", "connector": "connectors"}


def check(ctx: Context) -> Iterator[Diagnostic]:
    config = ctx.config
    seen: set[tuple[str, str]] = set()
    for use in config.properties:
        if use.source != "empty" or (use.token, use.file) in seen:
            continue
        seen.add((use.token, use.file))
        yield ctx.report("AR701", Pos(use.file, use.line, use.column),
                         f"{use.token} has no system property, environment variable or default: the broker "
                         "substitutes the empty string", hint=f"give a default (${{{use.name}:...}}) or pass "
                         f"-D {use.name}=...")
    if config.core is None:
        return
    for kind, section in _SECTIONS.items():
        for el in descendants(config.core, kind):
            parent = el.getparent()
            if parent is None or local(parent) != section:
                continue
            try:
                url = parse_transport_url(text_content(el))
            except UrlError as err:
                name = el.get("name") or ""
                effect = "cannot listen" if kind == "acceptor" else "cannot connect anywhere"
                yield ctx.report("AR702", ctx.locate(el),
                                 f"{kind} '{name}': {err}; the broker cannot take a host and port from it, so the "
                                 f"{kind} {effect}", section=f"{kind} {name}")
                continue
            if url.scheme == "tcp" and url.port == URI_NO_PORT and "port" not in url.params:
                name = el.get("name") or ""
                effect = "cannot listen" if kind == "acceptor" else "connects nowhere and redirects to host:-1"
                yield ctx.report("AR703", ctx.locate(el),
                                 f"{kind} '{name}' has no port: the broker uses port -1 (not 61616), so it {effect}",
                                 section=f"{kind} {name}", hint="write the port, e.g. tcp://host:61616")
