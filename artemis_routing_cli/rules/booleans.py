"""Booleans (AR313): switches the broker reads with Java's `Boolean.parseBoolean`.

`Boolean.parseBoolean` is true for `true` in any case and false for everything else, so a
value such as `1` or `yes` (and `1` passes the schema, whose `xs:boolean` allows it) turns the
switch **off**. Elements are trimmed first; attributes are not.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..config.model import Fields
from ..config.nodes import READ_FIELDS
from ..config.positions import Pos
from ..diagnostics import Diagnostic, RuleMeta, Severity
from ._util import child_elements, cluster_elements
from .base import Context

ROUTER_BOOLEANS = {"pool": ("local-target-enabled",), "cache": ("persisted",)}
DIVERT_BOOLEANS = ("exclusive",)
CLUSTER_BOOLEANS = ("use-duplicate-detection", "forward-when-no-consumers")
STATIC_ATTRIBUTE = "allow-direct-connections-only"

RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR313",
        name="boolean-not-true-false",
        severity=Severity.WARNING,
        category="semantics",
        summary="A boolean written as something other than `true` / `false`; the broker reads it as false.",
        doc="""\
Covers a pool's `local-target-enabled`, a cache's `persisted`, a divert's `exclusive`, a
cluster connection's `use-duplicate-detection` and `forward-when-no-consumers`, and
`<static-connectors allow-direct-connections-only>`. The schema's `xs:boolean` accepts `1`
and `0`, but the broker reads `1` as **false**. Elements are trimmed with Java's `String.trim`
(a no-break space is not trimmed); for the attribute the broker does not trim at all
(`"true".equalsIgnoreCase(value)`): `" true"` is false too.""",
        fail="""<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
</connectors>
<connection-routers>
  <connection-router name="r1">
    <policy name="FIRST_ELEMENT"/>
    <pool>
      <local-target-enabled>1</local-target-enabled>
      <static-connectors><connector-ref>b1</connector-ref></static-connectors>
    </pool>
  </connection-router>
</connection-routers>""",
        ok="""<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
</connectors>
<connection-routers>
  <connection-router name="r1">
    <policy name="FIRST_ELEMENT"/>
    <pool>
      <local-target-enabled>true</local-target-enabled>
      <static-connectors><connector-ref>b1</connector-ref></static-connectors>
    </pool>
  </connection-router>
</connection-routers>""",
    ),
]


def check(ctx: Context) -> Iterator[Diagnostic]:
    config = ctx.config
    pool_names, cache_names = ROUTER_BOOLEANS["pool"], ROUTER_BOOLEANS["cache"]
    plain = _plain_texts
    for router in config.connection_routers:
        pool, cache = router.pool, router.cache
        if pool is not None and not plain(pool.fields, pool_names):
            yield from _fields(ctx, pool.fields, pool_names, f"connection-router {router.name}")
        if cache is not None and not plain(cache.fields, cache_names):
            yield from _fields(ctx, cache.fields, cache_names, f"connection-router {router.name}")
    for divert in config.diverts:
        if not plain(divert.fields, DIVERT_BOOLEANS):
            yield from _fields(ctx, divert.fields, DIVERT_BOOLEANS, f"divert {divert.name}")
    for cc, el in ctx.shared(cluster_elements):
        if cc.connector_ref is None:
            continue  # a pool's <cluster-connection>, or a -uri form: no booleans to read
        section = f"cluster-connection {cc.name}"
        yield from _fields(ctx, cc.fields, CLUSTER_BOOLEANS, section)
        if el is None:
            continue
        for static in child_elements(el, "static-connectors"):
            raw = static.get(STATIC_ATTRIBUTE)
            if raw is not None and raw.lower() not in ("true", "false"):
                yield _report(ctx, ctx.locate(static), f"{STATIC_ATTRIBUTE}=\"{raw}\"", raw, section,
                              attribute=True)


_PLAIN = frozenset({None, "true", "false", "TRUE", "FALSE", "True", "False"})  # quiet at sight, no lower()


def _plain_texts(fields: Fields, names: tuple[str, ...]) -> bool:
    """``not _suspect(fields, names)``, a set lookup answering for the usual texts."""
    if type(fields) in READ_FIELDS:  # (no ABC instance check: thousands of them)
        text = fields.text
        for name in names:
            value = text(name)
            if value not in _PLAIN and value.lower() not in ("true", "false"):  # type: ignore[union-attr]
                return False
        return True
    return not _suspect(fields, names)


def _suspect(fields: Fields, names: tuple[str, ...]) -> bool:
    """False when ``_fields`` certainly reports nothing: children read by the model, each of ``names``
    absent or written true or false (the many objects with nothing to say cost no generator)."""
    if type(fields) not in READ_FIELDS:
        return True
    for name in names:
        text = fields.text(name)
        if text is not None and text.lower() not in ("true", "false"):
            return True
    return False


def _fields(ctx: Context, fields: Fields, names: tuple[str, ...], section: str) -> Iterator[Diagnostic]:
    text_of = fields.text if type(fields) in READ_FIELDS else None  # no position unless reported
    for name in names:
        if text_of is not None:
            text = text_of(name)
            if text is None or text.lower() in ("true", "false"):
                continue
        field = fields.get(name)
        if field is not None and field.text.lower() not in ("true", "false"):
            yield _report(ctx, field.pos, f"<{name}>{field.text}</{name}>", field.text, section)


def _report(ctx: Context, pos: Pos, written: str, value: str, section: str, *,
            attribute: bool = False) -> Diagnostic:
    meant = value.strip().lower() in ("1", "yes", "on", "true")  # a guess at the intent, not the broker's reading
    tail = "; write true" if meant else "; write false"
    how = "(attributes are not trimmed)" if attribute else "(Boolean.parseBoolean)"
    return ctx.report("AR313", pos, f"{written}: the broker reads anything but 'true' as false {how}{tail}",
                      section=section)
