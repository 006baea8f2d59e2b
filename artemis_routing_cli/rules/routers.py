"""Connection routers (AR307-AR310, AR315, AR316): how the broker reads a router's elements.

A router's children may come in any order and repeat; the broker reads a simple element
(`key-type`, `key-filter`, `local-target-filter`, and a pool's or cache's settings) from its
**first** occurrence, while `<policy>` (AR306), `<pool>` and `<cache>` are replaced by each
later one. `key-filter` and `local-target-filter` are Java regular expressions compiled when
the router is deployed: `key-filter` with `find()` (the key becomes the matched text),
`local-target-filter` with `matches()` (the whole key must match).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

from lxml import etree

from ..config.model import Cache, ConnectionRouter, Pool
from ..config.nodes import READ_FIELDS, ChildFields
from ..config.positions import Pos
from ..diagnostics import DEPLOYS, REFUSES, Diagnostic, RuleMeta, Severity
from ..javastr import java_is_blank
from ..jregex.plain import plain_notes
from ._util import child_elements, local, router_elements
from .base import Context

# Which occurrence of a repeated child the broker uses.
ROUTER_FIRST = ("key-type", "key-filter", "local-target-filter")
ROUTER_LAST = ("cache", "pool")
POOL_FIRST = ("username", "password", "check-period", "quorum-size", "quorum-timeout",
              "local-target-enabled", "cluster-connection")
POOL_LAST = ("static-connectors", "discovery-group-ref")
CACHE_FIRST = ("persisted", "timeout")
# The broker's precedence among a pool's target sources.
SOURCE_ORDER = ("cluster-connection", "discovery-group-ref", "static-connectors")


def _router(body: str) -> str:
    return f"""<connection-routers>
  <connection-router name="r1">
    {body}
  </connection-router>
</connection-routers>"""


RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR307",
        name="element-repeated",
        severity=Severity.WARNING,
        category="semantics",
        summary="A router, pool or cache element written more than once (the broker reads only one of them).",
        doc="""\
The broker reads simple elements with `getElementsByTagName(..).item(0)`: the **first**
`key-type`, `key-filter`, `local-target-filter`, pool setting or cache setting counts and later
copies are ignored. `<pool>`, `<cache>`, a pool's `<static-connectors>` and
`<discovery-group-ref>` are the other way round: each later one replaces the earlier. A pool
with several kinds of target source uses `cluster-connection` first, then
`discovery-group-ref`, then `static-connectors`.""",
        fail=_router("<key-type>CLIENT_ID</key-type>\n    <local-target-filter>.*</local-target-filter>\n"
                     "    <key-type>USER_NAME</key-type>"),
        ok=_router("<key-type>USER_NAME</key-type>\n    <local-target-filter>.*</local-target-filter>"),
    ),
    RuleMeta(
        id="AR308",
        name="key-transformer-ignored",
        severity=Severity.WARNING,
        category="semantics",
        summary="`<key-transformer>` is accepted by the schema and ignored by the broker.",
        doc="""\
Key transformers were folded into policies (CONSISTENT_HASH_MODULO transforms the key). The
schema still accepts `<key-transformer>`, but the broker's parser never reads it: the key is
not transformed. Use `<policy name="CONSISTENT_HASH_MODULO">` with a `MODULO` property.""",
        fail=_router('<key-transformer name="CONSISTENT_HASH_MODULO">\n'
                     '      <property key="MODULO" value="3"/>\n    </key-transformer>\n'
                     '    <local-target-filter>^0$</local-target-filter>'),
        ok=_router('<policy name="CONSISTENT_HASH_MODULO">\n'
                   '      <property key="MODULO" value="3"/>\n    </policy>\n'
                   '    <local-target-filter>^0$</local-target-filter>'),
    ),
    RuleMeta(
        id="AR309",
        name="filter-regex-invalid",
        severity=Severity.ERROR,
        category="semantics",
        broker=REFUSES,
        summary="`key-filter` or `local-target-filter` is not a valid Java regex, or cannot be evaluated exactly.",
        doc="""\
The broker compiles both filters with `java.util.regex.Pattern.compile` when it deploys the
router; a PatternSyntaxException stops the broker (error, with Java's description and index).
Every pattern Java 17 compiles is evaluated as Java 17 does (on UTF-16 units, with its grapheme
rules), so there is no warning for valid patterns.""",
        fail=_router("<key-type>CLIENT_ID</key-type>\n    <local-target-filter>^(FOO.*</local-target-filter>"),
        ok=_router("<key-type>CLIENT_ID</key-type>\n    <local-target-filter>^(FOO).*</local-target-filter>"),
    ),
    RuleMeta(
        id="AR310",
        name="filter-regex-portability",
        severity=Severity.INFO,
        category="semantics",
        summary="A router filter uses a regex construct whose meaning differs between Java and other engines.",
        doc="""\
The filters are Java regexes: `\\w` and `\\b` are ASCII-only unless `(?U)`, `$` also matches
before a final line terminator, `.` stops at Java's line terminators, and so on. A pattern
tested with Python, grep or an online JavaScript tester may behave differently on the broker.
The note names the construct and what Java does with it.""",
        fail=_router("<key-type>CLIENT_ID</key-type>\n    <local-target-filter>\\w+</local-target-filter>"),
        ok=_router("<key-type>CLIENT_ID</key-type>\n    <local-target-filter>[A-Za-z0-9_]+</local-target-filter>"),
    ),
    RuleMeta(
        id="AR315",
        name="local-filter-blank",
        severity=Severity.WARNING,
        category="semantics",
        summary="`<local-target-filter>` is blank: it matches only the empty key.",
        doc="""\
The broker trims the element and compiles the empty pattern; `matches()` with an empty pattern
is true only for an empty key, so no real client is ever kept local. (An empty `key-filter`
is different: the broker treats it as no filter, AR316.) Remove the element or write the
pattern.""",
        fail=_router("<key-type>CLIENT_ID</key-type>\n    <local-target-filter> </local-target-filter>"),
        ok=_router("<key-type>CLIENT_ID</key-type>\n    <local-target-filter>^FOO.*</local-target-filter>"),
    ),
    RuleMeta(
        id="AR316",
        name="key-filter-blank",
        severity=Severity.INFO,
        category="semantics",
        summary="`<key-filter>` is blank: the broker uses no key filter.",
        doc="""\
A blank `key-filter` is treated as absent: the whole key value is used. Remove the element, or
write the pattern you meant.""",
        fail=_router("<key-type>CLIENT_ID</key-type>\n    <key-filter></key-filter>\n"
                     "    <local-target-filter>^FOO.*</local-target-filter>"),
        ok=_router("<key-type>CLIENT_ID</key-type>\n    <key-filter>^.{3}</key-filter>\n"
                   "    <local-target-filter>^FOO.*</local-target-filter>"),
    ),
]


def check(ctx: Context) -> Iterator[Diagnostic]:
    for router, element in ctx.shared(router_elements):
        section = f"connection-router {router.name}"
        if element is not None:
            fields = router.fields if type(router.fields) in READ_FIELDS else None  # element's children
            # (a generator is made only where the model's fields leave a finding possible: most routers have none)
            if fields is None or fields.repeated:
                yield from _repeats(ctx, element, ROUTER_FIRST, ROUTER_LAST, "router", section, fields)
            # with one <pool> (<cache>), the model's pool (cache) was read from it: its children are known
            pool_fields = _only_child_fields(fields, "pool", router.pool)
            for pool in _children(element, fields, "pool"):
                if pool_fields is None or pool_fields.repeated:
                    yield from _repeats(ctx, pool, POOL_FIRST, POOL_LAST, "pool", section, pool_fields)
                if pool_fields is None or _several_sources(pool_fields):
                    yield from _sources(ctx, pool, section, pool_fields)
            cache_fields = _only_child_fields(fields, "cache", router.cache)
            for cache in _children(element, fields, "cache"):
                if cache_fields is None or cache_fields.repeated:
                    yield from _repeats(ctx, cache, CACHE_FIRST, (), "cache", section, cache_fields)
        if router.has_key_transformer:
            field = router.fields["key-transformer"]
            yield ctx.report("AR308", field.pos,
                             "<key-transformer> is ignored by the broker: the key is not transformed (use "
                             "<policy name=\"CONSISTENT_HASH_MODULO\"> with a MODULO property)", section=section)
        if router.key_filter is not None or router.local_target_filter is not None:
            yield from _filters(ctx, router, section)


def _children(element: etree._Element, fields: ChildFields | None, name: str) -> Iterable[etree._Element]:
    """``child_elements(element, name)``; from ``fields`` (the element's children as the model read
    them) when it holds none or one of them: no walk over the children for most routers."""
    if fields is not None:
        count = fields.count(name)
        if count < 2:
            first = fields.element(name)
            return (first,) if count == 1 and first is not None else ()
    return child_elements(element, name)


def _only_child_fields(fields: ChildFields | None, name: str, part: Pool | Cache | None) -> ChildFields | None:
    """``part.fields`` when ``fields`` has exactly one child ``name`` (which ``part`` was read from)."""
    if fields is None or part is None or fields.count(name) != 1 or type(part.fields) not in READ_FIELDS:
        return None
    return part.fields


def _repeats(ctx: Context, el: etree._Element, first: tuple[str, ...], last: tuple[str, ...], what: str,
             section: str, fields: ChildFields | None = None) -> Iterator[Diagnostic]:
    """``fields``, when given, are ``el``'s children as the model read them (a quick answer to "no repeats")."""
    if fields is not None and not fields.repeated:
        return
    seen: dict[str, list[etree._Element]] = {}
    for child in child_elements(el):
        seen.setdefault(local(child), []).append(child)
    for name, items in seen.items():
        if len(items) < 2:
            continue
        if name in first:
            kept = ctx.locate(items[0])
            for extra in items[1:]:
                yield ctx.report("AR307", ctx.locate(extra),
                                 f"<{name}> is repeated in the {what}: the broker reads only the first one "
                                 f"(line {kept.line}) and ignores this one", section=section)
        elif name in last:
            kept = ctx.locate(items[-1])
            for extra in items[:-1]:
                yield ctx.report("AR307", ctx.locate(extra),
                                 f"<{name}> is repeated in the {what}: each one replaces the one before, so the "
                                 f"broker uses the last one (line {kept.line}) and ignores this one",
                                 section=section)


def _several_sources(fields: ChildFields) -> bool:
    """Whether ``fields`` (a pool's children) hold more than one of SOURCE_ORDER: else _sources says nothing."""
    first, second, third = SOURCE_ORDER
    return (first in fields) + (second in fields) + (third in fields) > 1


def _sources(ctx: Context, pool: etree._Element, section: str,
             fields: ChildFields | None = None) -> Iterator[Diagnostic]:
    if fields is not None:
        present = [name for name in SOURCE_ORDER if name in fields]
    else:
        present = [name for name in SOURCE_ORDER if next(child_elements(pool, name), None) is not None]
    if len(present) < 2:
        return
    used = present[0]
    for name in present[1:]:
        el = next(child_elements(pool, name))
        yield ctx.report("AR307", ctx.locate(el),
                         f"the pool has both <{used}> and <{name}>: the broker uses <{used}> and ignores "
                         f"<{name}>", section=section)


_PROPERTY_OF = {"key-type": "keyType", "key-filter": "keyFilter", "local-target-filter": "localTargetFilter"}


def _where(router: ConnectionRouter, name: str) -> Pos:
    """Where the router's ``<name>`` got its value: the broker properties line that set it, else the
    element (the router's own place without one); worked out only when reported."""
    set_at = router.set_at(_PROPERTY_OF.get(name, name))
    if set_at is not None:
        return set_at
    field = router.fields.get(name)
    return field.pos if field else router.pos


def _filters(ctx: Context, router: ConnectionRouter, section: str) -> Iterator[Diagnostic]:
    for name, value in (("key-filter", router.key_filter), ("local-target-filter", router.local_target_filter)):
        if value is None:
            continue
        short = len(value) <= _REMEMBERED_LENGTH
        found = filter_findings(name, value) if short else worked_out_filter_findings(name, value)
        for rule, message, severity, broker in found:
            yield ctx.report(rule, _where(router, name), message, section=section, severity=severity, broker=broker)


Finding = tuple[str, str, Severity | None, str | None]  # rule, message, severity and verdict overrides


_REMEMBERED_LENGTH = 1024  # longer filters are judged each time: the memo holds a bounded number of short ones


def worked_out_filter_findings(name: str, value: str) -> tuple[Finding, ...]:
    """What is reported about ``<name>value</name>`` in a router: the same for every router that
    writes it (a large broker.xml repeats a few filters across thousands of routers)."""
    # The parser trims the text with String.trim; KeyResolver then drops a key-filter that is
    # String.isBlank() (U+2003 is blank there, a NBSP or U+0085 is not); the local-target-filter
    # is compiled whatever it is.
    # (a filter that starts with a visible ASCII character is not blank: most are told by that alone)
    if not value or (name == "key-filter" and not "!" <= value[0] <= "~" and java_is_blank(value)):
        if name == "key-filter":
            return (("AR316", "<key-filter> is blank: the broker uses no key filter", None, None),)
        return (("AR315", "<local-target-filter> is blank: the broker compiles the empty pattern, which only "
                 "matches an empty key, so no client is kept local", None, None),)
    notes = plain_notes(value)  # what the parse below would find, known at sight for plain patterns
    if notes is None:
        return parsed_filter_findings(name, value)
    return _noted(name, value, notes) if notes else ()


def parsed_filter_findings(name: str, value: str) -> tuple[Finding, ...]:
    """What is reported about the non-blank filter ``<name>value</name>``, worked out by parsing it
    as java.util.regex does (:func:`worked_out_filter_findings` without its quick answer).
    The parser is imported here: a file whose filters are all plain never needs it (start-up)."""
    from ..jregex.javaregex import JavaRegexError, check_java, portability_notes

    try:
        check_java(value)
    except JavaRegexError as err:
        if err.construct is None:
            return (("AR309", f"<{name}> {err.message}: Pattern.compile fails when the router is deployed and "
                     "the broker refuses to start", None, None),)
        return (("AR309", f"<{name}> {err.message}; the broker accepts it, but arouter cannot evaluate it exactly",
                 Severity.WARNING, DEPLOYS),)
    # '.' and '$' differ only around line terminators, which keys practically never hold:
    # reporting them on every filter would bury the notes that matter (\w, \b, flags, ...).
    return _noted(name, value, [n for n in portability_notes(value) if not n.startswith(("'.'", "'$'"))])


def _noted(name: str, value: str, notes: Sequence[str]) -> tuple[Finding, ...]:
    if notes:
        mode = "find" if name == "key-filter" else "matches"
        return (("AR310", f"<{name}> '{value}' (Java regex, {mode}()): " + "; ".join(notes), None, None),)
    return ()


filter_findings = lru_cache(maxsize=1024)(worked_out_filter_findings)
