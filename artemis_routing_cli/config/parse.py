"""From the loaded lxml tree to the typed model, reading values the way the broker reads them.

The broker's FileConfigurationParser uses ``getElementsByTagName`` (first matching *descendant*),
trims text with ``String.trim``, reads booleans with ``Boolean.parseBoolean`` and numbers with
``Integer.parseInt`` / ``Long.parseLong``, then checks them (:mod:`.values`). A number the broker
rejects is kept as written and recorded in ``BrokerConfig.problems``; text that is no number at
all leaves the default. Acceptor and connector URLs and static ``<connector-ref>`` names are the
element's *first child node*, untrimmed (:func:`.nodes.first_child_value`).
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import attrgetter
from types import MappingProxyType

from lxml import etree

from ..javastr import java_equals_ignore_case, java_trim
from . import values
from .gcpause import gc_paused
from .loader import RawDocument
from .masked import KEY_ENV, KEY_PROPERTY, codec_key
from .model import (
    DEFAULT_CHECK_PERIOD,
    DEFAULT_PASSWORD_CODEC,
    DEFAULT_QUORUM_SIZE,
    DEFAULT_QUORUM_TIMEOUT,
    EMPTY,
    Acceptor,
    BroadcastGroup,
    BrokerConfig,
    Cache,
    ClusterConnection,
    ConnectionRouter,
    Connector,
    DiscoveryGroup,
    Divert,
    Policy,
    Pool,
    PropertyUse,
    Transformer,
    TransportUrl,
    ValueProblem,
    transport_params,
)
from .nodes import (  # noqa: F401  (re-exported: the rules read elements with these)
    ChildFields,
    Nowhere,
    Reader,
    child_elements,
    descendants,
    first_child_value,
    first_descendant,
    java_bool,
    local,
    nowhere,
    text_content,
)
from .positions import Locator, Pos
from .urls import UrlError, parse_transport_url

_Reader = Reader  # the name the tests knew
# A lazy position made in place: ``pos = _new(Pos); pos._lazy = (loc, el)`` is ``loc.locate(el)``
# without the call (the sections read tens of thousands).
_new = object.__new__


class _Context:
    """What every section reader needs: positions, whether CDATA complicates text, the problems found."""

    __slots__ = ("loc", "cdata", "problems", "nowhere", "_sections")

    def __init__(self, loc: Locator, cdata: bool, core: etree._Element | None = None) -> None:
        self.loc = loc
        self.cdata = cdata
        # names written nowhere in <core>: no reader below it searches its subtree for them
        self.nowhere = nowhere(core) if core is not None else None
        self._sections: dict[etree._Element, Nowhere] = {}
        self.problems: list[ValueProblem] = []

    def below(self, parent: etree._Element | None) -> Nowhere | None:
        """What readers of the elements below ``parent`` (<connection-routers>, <diverts>...) share
        to learn the names written nowhere below it: a name a section's readers ask for may be
        written elsewhere in <core> (<check-period> in pools, asked of cluster connections too)."""
        if parent is None:
            return self.nowhere
        shared = self._sections.get(parent)
        if shared is None:
            if len(self._sections) >= _MAX_SECTIONS:  # sections spread over many parents: <core>'s alone
                return self.nowhere
            shared = self._sections[parent] = nowhere(parent)
        return shared

    def judge(self, r: Reader, rows: tuple[values.Row, ...], section: str,
              record: bool = True) -> dict[str, values.Number | str | None]:
        """Read each row's element like the broker: its value (None: unreadable) by name; a value
        the broker rejects becomes a problem (when ``record``: the broker reads the element at all)."""
        out: dict[str, values.Number | str | None] = {}
        for row, text in zip(rows, r.strings(_row_names(rows))):  # noqa: B905 (as long by construction)
            if text is None:
                continue
            parse = row.parse
            if parse == "nonempty" and text or parse == "choice" and text in row.choices:
                out[row.element] = text  # the everyday case: a value the broker takes as it is
                continue
            if (parse == "int" or parse == "long") and len(text) < 10 and text.isdigit() and text.isascii():
                number = int(text)  # within both ranges: values.judge reads it so too
                check = row.check
                if check is None or check.test(number):
                    out[row.element] = number
                    continue
            value, problem = values.judge(row, text)
            out[row.element] = value
            if problem is not None and record and values.schema_accepts(row, text):
                where = r.element(row.element)
                pos = self.loc.locate(where) if where is not None else self.loc.locate(r.el)
                self.problems.append(ValueProblem(section, row.element, pos, problem))
        return out


_MAX_SECTIONS = 64

# a table's element names, by the table (the tables are module constants: a few entries)
_ROW_NAMES: dict[int, tuple[tuple[values.Row, ...], tuple[str, ...]]] = {}


def _row_names(rows: tuple[values.Row, ...]) -> tuple[str, ...]:
    known = _ROW_NAMES.get(id(rows))
    if known is not None and known[0] is rows:
        return known[1]
    names = tuple(row.element for row in rows)
    if len(_ROW_NAMES) >= 64:
        _ROW_NAMES.clear()
    _ROW_NAMES[id(rows)] = (rows, names)
    return names


def _text(found: dict[str, values.Number | str | None], name: str, default: str | None = None) -> str | None:
    """The (trimmed) text of an element a table row read, or ``default`` when it is absent."""
    return str(found[name]) if name in found else default


def _number(found: dict[str, values.Number | str | None], name: str, default: int) -> int:
    value = found.get(name)
    return value if isinstance(value, int) else default


# What build_config reads below <core>, each name as the broker's getElementsByTagName gives it (every
# descendant so called, any namespace, document order).
READ_BELOW_CORE = ("connector", "acceptor", "discovery-group", "broadcast-group", "cluster-connection-uri",
                   "cluster-connection", "connection-router", "divert")
_TAG = attrgetter("tag")


def elements_below(core: etree._Element, names: tuple[str, ...] = READ_BELOW_CORE) -> dict[str, list[etree._Element]]:
    """``{name: list(descendants(core, name))}`` for each of ``names``, found in one walk: libxml2 matches
    every name at each node, and a large file is walked once rather than once per name."""
    found: dict[str, list[etree._Element]] = {name: [] for name in names}
    elements = list(core.iterdescendants(*["{*}" + name for name in names]))
    local_of: dict[str, str] = {}  # tag -> local name (a document has a few such tags)
    for el, tag in zip(elements, map(_TAG, elements)):  # noqa: B905 (one list read twice)
        name = local_of.get(tag)
        if name is None:
            name = local_of[tag] = tag.rpartition("}")[2]
        found[name].append(el)
    return found


@gc_paused()
def build_config(doc: RawDocument) -> BrokerConfig:
    """Build the model from a loaded document."""
    core, loc = doc.core, doc.locator
    ctx = _Context(loc, doc.has_cdata, core)
    name_el = next(child_elements(core, "name"), None)
    reader = Reader(core, loc, ctx.nowhere)
    mask = reader.get("mask-password")
    mask_password = java_bool(mask.text) if mask else None
    codec = reader.string("password-codec", DEFAULT_PASSWORD_CODEC)
    below = elements_below(core)
    connectors_list: list[Connector] = []
    connectors: dict[str, Connector] = {}
    for el in below["connector"]:
        parent = el.getparent()
        if parent is None or local(parent) != "connectors":
            continue
        found = transport(el, "connector", ctx.cdata)
        if found is None:
            continue
        name, url = found
        connector = Connector._record_build(name or "", url, loc.locate(el),
                                            transport_params(url, mask_password, codec))
        connectors_list.append(connector)
        if name is not None:
            connectors.setdefault(name, connector)  # the broker keeps the first and logs the rest

    acceptors = []
    for el in below["acceptor"]:
        found = transport(el, "acceptor", ctx.cdata)
        if found is not None:
            url = found[1]
            pos = _new(Pos)  # loc.locate(el), made in place (a call less: thousands of them)
            pos._lazy = (loc, el)
            acceptors.append(Acceptor._record_build(found[0] or "", url, pos,
                                                    transport_params(url, mask_password, codec)))

    discovery_list = [_discovery_group(el, ctx) for el in below["discovery-group"]]
    discovery: dict[str, DiscoveryGroup] = {}
    for d in discovery_list:
        discovery.setdefault(d.name, d)

    # read in the broker's order (the problems found come out in it)
    broadcast_groups = tuple(_broadcast_group(el, ctx) for el in below["broadcast-group"])
    cluster_connections = tuple(_cluster_connections(below["cluster-connection-uri"], below["cluster-connection"],
                                                     ctx, connectors))
    connection_routers = tuple(_router(el, ctx, ctx.below(el.getparent()))
                               for el in below["connection-router"])
    # each divert's parent, whether it is a <diverts>: held, so lxml hands back this very proxy for the
    # next divert of the same parent (it keeps one proxy per node while it is referenced)
    parents: dict[etree._Element, tuple[bool, Nowhere | None]] = {}  # whether a <diverts>, what its readers share
    diverts: list[Divert] = []
    for el in below["divert"]:
        parent = el.getparent()
        seen = parents.get(parent)
        if seen is None:
            seen = parents[parent] = (local(parent) == "diverts", ctx.below(parent))
        if seen[0]:
            diverts.append(_divert(el, ctx, seen[1]))
    cluster_user = reader.get("cluster-user")
    cluster_password = reader.get("cluster-password")

    return BrokerConfig(
        path=doc.path,
        pos=loc.locate(core),
        name=java_trim(text_content(name_el)) if name_el is not None else None,
        acceptors=tuple(acceptors),
        connectors=MappingProxyType(connectors),
        connector_list=tuple(connectors_list),
        broadcast_groups=broadcast_groups,
        discovery_groups=MappingProxyType(discovery),
        discovery_group_list=tuple(discovery_list),
        cluster_connections=cluster_connections,
        connection_routers=connection_routers,
        diverts=tuple(diverts),
        cluster_user=cluster_user.text if cluster_user else None,
        cluster_user_pos=cluster_user.pos if cluster_user else None,
        cluster_password=cluster_password.text if cluster_password else None,
        cluster_password_pos=cluster_password.pos if cluster_password else None,
        mask_password=mask_password,
        password_codec=codec,
        codec_key=codec_key(codec, {KEY_PROPERTY: doc.codec_key_property} if doc.codec_key_property is not None
                            else {}, {KEY_ENV: doc.codec_key_env} if doc.codec_key_env is not None else {}),
        properties=tuple(
            PropertyUse(r.token, r.name, r.default, r.source, r.value, file, line, col)
            for file, line, col, r in doc.replacements
        ),
        included_files=tuple(doc.included),
        problems=tuple(ctx.problems),
        has_cdata=doc.has_cdata,
        encoding=doc.encoding,
        relative_includes=tuple(doc.relative_includes),
        core=core,
        locator=loc,
        elements_below=MappingProxyType(below),
    )


def transport(el: etree._Element, kind: str, cdata: bool = False) -> tuple[str | None, TransportUrl] | None:
    """The name and URL the broker gets from an ``<acceptor>`` / ``<connector>``, or None where it
    cannot read them (and does not start; AR702 says why). The URL is the element's first child
    node; the name is the ``name`` attribute, else the URL's ``?name=``."""
    raw = first_child_value(el, cdata)
    if raw is None:
        return None
    try:
        url = parse_transport_url(raw, kind)
    except UrlError:
        return None
    name = el.get("name")
    if url.kind != "vm" and url.has_query_name:
        if name is not None and name != url.query_name:
            return None  # "Name doesn't match query param"
        name = url.query_name
    return name, url


def _broadcast_group(el: etree._Element, ctx: _Context) -> BroadcastGroup:
    r = Reader(el, ctx.loc, ctx.nowhere)
    name = el.get("name") or ""
    section = f"broadcast-group {name}"
    refs = list(child_elements(el, "connector-ref"))
    if refs:  # getString(e, "connector-ref") once per child: the first descendant each time
        ctx.judge(r, _BROADCAST_CONNECTOR, section)
    first = r.string("connector-ref") if refs else None
    found = ctx.judge(r, values.BROADCAST, section)
    return BroadcastGroup(
        name=name,
        pos=ctx.loc.locate(el),
        connector_refs=(first or "",) * len(refs),
        written_refs=tuple(java_trim(text_content(ref)) for ref in refs),
        connector_ref_pos=tuple(ctx.loc.locate(ref) for ref in refs),
        group_address=r.string("group-address"),
        group_port=_number(found, "group-port", -1),
        local_bind_address=r.string("local-bind-address"),
        local_bind_port=_number(found, "local-bind-port", -1),
        broadcast_period=_number(found, "broadcast-period", 2000),
        jgroups_file=r.string("jgroups-file"),
        jgroups_channel=r.string("jgroups-channel"),
        fields=r,
    )


def _discovery_group(el: etree._Element, ctx: _Context) -> DiscoveryGroup:
    r = Reader(el, ctx.loc, ctx.nowhere)
    name = el.get("name") or ""
    found = ctx.judge(r, values.DISCOVERY, f"discovery-group {name}")
    return DiscoveryGroup(
        name=name,
        pos=ctx.loc.locate(el),
        group_address=r.string("group-address"),
        group_port=_number(found, "group-port", -1),
        local_bind_address=r.string("local-bind-address"),
        local_bind_port=_number(found, "local-bind-port", -1),
        refresh_timeout=_number(found, "refresh-timeout", 10000),
        initial_wait_timeout=_number(found, "initial-wait-timeout", 10000),
        jgroups_file=r.string("jgroups-file"),
        jgroups_channel=r.string("jgroups-channel"),
        fields=r,
    )


def static_refs(static: etree._Element, cdata: bool = False) -> list[tuple[str | None, etree._Element]]:
    """getStaticConnectors: every ``connector-ref`` below ``<static-connectors>``, each read as its
    first child node, untrimmed (None: no child, a NullPointerException in the broker)."""
    return [(first_child_value(ref, cdata), ref) for ref in descendants(static, "connector-ref")]


def _cluster_connections(uris: list[etree._Element], elements: list[etree._Element], ctx: _Context,
                         connectors: dict[str, Connector]) -> Iterator[ClusterConnection]:
    """``uris``: the ``<cluster-connection-uri>`` elements below ``<core>``; ``elements``: the
    ``<cluster-connection>`` ones (both in document order)."""
    loc = ctx.loc
    for el in uris:
        yield ClusterConnection(name=el.get("name") or "", pos=loc.locate(el), connector_ref=None,
                                uri=el.get("address"))
    for el in elements:
        parent = el.getparent()
        if parent is not None and local(parent) == "pool":
            continue  # a pool's <cluster-connection>NAME</...>: the broker logs and skips it here
        r = Reader(el, loc, ctx.below(parent))
        name = el.get("name") or ""
        section = f"cluster-connection {name}"
        ctx.judge(r, _CLUSTER_CONNECTOR, section)
        connector_ref = r.string("connector-ref")
        read = connector_ref in connectors  # otherwise the broker logs and skips the rest unread
        found = ctx.judge(r, values.CLUSTER, section, record=read)
        if r.element("forward-when-no-consumers") is None:
            ctx.judge(r, _CLUSTER_LOAD_BALANCING, section, record=read)
        static: list[str] = []
        static_pos: list[Pos] = []
        static_empty: list[bool] = []
        static_at: Pos | None = None
        allow_direct = False
        discovery: str | None = None
        discovery_pos: Pos | None = None
        for kind, child in r.children():
            if kind == "discovery-group-ref":
                discovery = child.get("discovery-group-name")
                discovery_pos = loc.locate(child)
            elif kind == "static-connectors":
                static_at = static_at or loc.locate(child)
                attr = child.get("allow-direct-connections-only")  # "true".equalsIgnoreCase(value): not trimmed
                allow_direct = java_equals_ignore_case(attr, "true") or allow_direct
                for value, ref in static_refs(child, ctx.cdata):
                    static.append(value or "")
                    static_pos.append(loc.locate(ref))
                    static_empty.append(value is None)
        lb = r.string("message-load-balancing", "ON_DEMAND") or ""
        if r.element("forward-when-no-consumers") is not None:
            lb = "STRICT" if r.boolean("forward-when-no-consumers", False) else "ON_DEMAND"
        multiplier = found.get("retry-interval-multiplier")
        factor = multiplier if isinstance(multiplier, float) else 1.0
        yield ClusterConnection._record_build(
            name=name,
            pos=loc.locate(el),
            connector_ref=connector_ref,
            address=r.string("address", "") or "",
            message_load_balancing=lb,
            max_hops=_number(found, "max-hops", 1),
            check_period=_number(found, "check-period", 30000),
            connection_ttl=_number(found, "connection-ttl", 60000),
            retry_interval=_number(found, "retry-interval", 500),
            retry_interval_multiplier=factor,
            max_retry_interval=_number(found, "max-retry-interval", 2000),
            reconnect_attempts=_number(found, "reconnect-attempts", -1),
            initial_connect_attempts=_number(found, "initial-connect-attempts", -1),
            use_duplicate_detection=r.boolean("use-duplicate-detection", True),
            call_timeout=_number(found, "call-timeout", 30000),
            static_connectors=tuple(static) if discovery is None else (),
            static_connectors_pos=static_at,
            static_connector_pos=tuple(static_pos) if discovery is None else (),
            static_connector_empty=tuple(static_empty) if discovery is None else (),
            allow_direct_connections_only=allow_direct,
            discovery_group=discovery,
            discovery_group_pos=discovery_pos,
            fields=r,
        )


def _properties(el: etree._Element, loc: Locator) -> tuple[dict[str, str], dict[str, Pos]]:
    props: dict[str, str] = {}
    where: dict[str, Pos] = {}
    if not len(el):
        return props, where
    for p in child_elements(el, "property"):
        key = p.get("key")
        if key is None:
            continue
        props[key] = p.get("value") or ""
        where[key] = loc.locate(p)
    return props, where


_ROUTER_READ = ("key-type", "key-filter", "local-target-filter")
_POOL_READ = ("username", "password", "local-target-enabled", "cluster-connection")


def _router(el: etree._Element, ctx: _Context, shared: Nowhere | None) -> ConnectionRouter:
    loc = ctx.loc
    r = Reader(el, loc, shared)
    fields = r  # (a reader is its own child fields)
    name = el.get("name") or ""
    section = f"connection-router {name}"
    policies: list[Policy] = []
    pools: list[Pool] = []
    cache: Cache | None = None
    for kind, child in fields.children():
        if kind == "policy":
            if len(child):
                props, where = _properties(child, loc)
                policies.append(Policy._record_build(child.get("name") or "", loc.locate(child),
                                                     MappingProxyType(props), MappingProxyType(where)))
            else:  # no <property>: the model's shared empty mappings
                at = _new(Pos)  # loc.locate(child), made in place
                at._lazy = (loc, child)
                policies.append(Policy._record_build(child.get("name") or "", at, EMPTY, EMPTY))
        elif kind == "pool":
            pools.append(_pool(child, ctx, section, shared))  # each <pool> is read (and checked); the last one stays
        elif kind == "cache":
            cr = Reader(child, loc, shared)
            found = ctx.judge(cr, values.CACHE, section)
            cache = Cache(loc.locate(child), cr.boolean("persisted", False), _number(found, "timeout", 0), cr)
    key_type, key_filter, local_target_filter = r.strings(_ROUTER_READ)
    pos = _new(Pos)  # loc.locate(el), made in place
    pos._lazy = (loc, el)
    return ConnectionRouter._record_build(
        name,
        pos,
        "SOURCE_IP" if key_type is None else key_type,  # an empty <key-type/> stays empty
        key_filter,
        local_target_filter,
        policies[-1] if policies else None,
        tuple(policies),
        pools[-1] if pools else None,
        cache,
        tuple(pools),
        "key-transformer" in fields,
        fields,
    )


def _pool(el: etree._Element, ctx: _Context, section: str, shared: Nowhere | None) -> Pool:
    loc = ctx.loc
    cdata = ctx.cdata
    r = Reader(el, loc, shared)
    found = ctx.judge(r, values.POOL, section)
    static: tuple[str, ...] = ()
    static_pos: tuple[Pos, ...] = ()
    static_empty: tuple[bool, ...] = ()
    discovery: str | None = None
    for kind, child in r.children():
        if kind == "discovery-group-ref":
            discovery = child.get("discovery-group-name")
        elif kind == "static-connectors":
            names: list[str] = []
            places: list[Pos] = []
            empty: list[bool] = []
            for ref in child.iterdescendants("{*}connector-ref"):  # static_refs, read in one loop
                value = ref.text
                if not value or cdata:
                    value = first_child_value(ref, cdata)
                names.append(value or "")
                at = _new(Pos)  # loc.locate(ref), made in place
                at._lazy = (loc, ref)
                places.append(at)
                empty.append(value is None)
            static, static_pos, static_empty = tuple(names), tuple(places), tuple(empty)
    username, password, local_target, cluster = r.strings(_POOL_READ)
    pos = _new(Pos)  # loc.locate(el), made in place
    pos._lazy = (loc, el)
    return Pool._record_build(
        pos,
        username,
        password,
        _number(found, "check-period", DEFAULT_CHECK_PERIOD),
        _number(found, "quorum-size", DEFAULT_QUORUM_SIZE),
        _number(found, "quorum-timeout", DEFAULT_QUORUM_TIMEOUT),
        False if local_target is None else java_bool(local_target),
        cluster,
        static,
        static_pos,
        static_empty,
        discovery,
        r,
    )


_BROADCAST_CONNECTOR = (values.BROADCAST_CONNECTOR,)
_CLUSTER_CONNECTOR = (values.CLUSTER_CONNECTOR,)
_CLUSTER_LOAD_BALANCING = (values.CLUSTER_LOAD_BALANCING,)


_DIVERT_READ = ("address", "forwarding-address", "routing-type", "exclusive", "routing-name", "transformer-class-name")
_DIVERT_CHILDREN = ("filter", "transformer")
_ROUTING_TYPES = values.DIVERT[2].choices


def _divert(el: etree._Element, ctx: _Context, shared: Nowhere | None) -> Divert:
    loc = ctx.loc
    r = Reader(el, loc, shared)
    fields = r  # (a reader is its own child fields)
    name = el.get("name") or ""
    address, forwarding, routing_type, exclusive, routing_name, class_name = r.strings(_DIVERT_READ)
    # values.DIVERT's rows are texts: the values are what is written; the broker refuses an empty
    # address or forwarding-address and a routing-type it does not know
    if not address or not forwarding or routing_type is not None and routing_type not in _ROUTING_TYPES:
        ctx.judge(r, values.DIVERT, f"divert {name}")
    filter_el, t_el = fields.elements(_DIVERT_CHILDREN)
    transformer: Transformer | None = None
    if t_el is not None:
        tr = Reader(t_el, loc, shared)
        props, _ = _properties(t_el, loc)
        transformer = Transformer(tr.string("class-name"), MappingProxyType(props))
    elif class_name:
        transformer = Transformer(class_name)
    pos = _new(Pos)  # loc.locate(el), made in place
    pos._lazy = (loc, el)
    return Divert._record_build(
        name,
        pos,
        address,
        forwarding,
        False if exclusive is None else exclusive == "true" or exclusive != "false" and java_bool(exclusive),
        filter_el.get("string") if filter_el is not None else None,
        None if filter_el is None else loc.locate(filter_el),
        routing_name,
        "STRIP" if routing_type is None else routing_type,
        transformer,
        fields,
    )
