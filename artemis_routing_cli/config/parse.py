"""From the loaded lxml tree to the typed model, reading values the way the broker reads them.

The broker's FileConfigurationParser uses ``getElementsByTagName`` (first matching *descendant*),
trims text, reads booleans with ``Boolean.parseBoolean`` and numbers with ``Integer.parseInt`` /
``Long.parseLong``. Values the broker would reject keep the broker default here; the schema
layer and the rules report them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType

from lxml import etree

from .gcpause import gc_paused
from .loader import RawDocument
from .model import (
    DEFAULT_CHECK_PERIOD,
    DEFAULT_QUORUM_SIZE,
    DEFAULT_QUORUM_TIMEOUT,
    Acceptor,
    BroadcastGroup,
    BrokerConfig,
    Cache,
    ClusterConnection,
    ConnectionRouter,
    Connector,
    DiscoveryGroup,
    Divert,
    FieldValue,
    Policy,
    Pool,
    PropertyUse,
    Transformer,
    TransportUrl,
)
from .positions import Locator, Pos
from .urls import UrlError, parse_transport_url


def local(el: etree._Element) -> str:
    tag = el.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def text_content(el: etree._Element) -> str:
    """Java's Node.getTextContent(): all descendant text, comments and PIs left out."""
    if not len(el):
        return (el.text or "") if isinstance(el.tag, str) else ""
    parts: list[str] = [el.text or ""] if isinstance(el.tag, str) else []
    for child in el:
        if isinstance(child.tag, str):
            parts.append(text_content(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _element_text(el: etree._Element) -> str:
    """:func:`text_content` of an element (not a comment or PI)."""
    if not len(el):
        return el.text or ""
    return text_content(el)


def child_elements(el: etree._Element, name: str | None = None) -> Iterator[etree._Element]:
    """Element children (any namespace), optionally only those with local name ``name``."""
    return el.iterchildren("{*}" + name if name is not None else etree.Element)


def descendants(el: etree._Element, name: str) -> Iterator[etree._Element]:
    """Like the broker's getElementsByTagName: every descendant with this name, document order."""
    return el.iterdescendants("{*}" + name)


def first_descendant(el: etree._Element, name: str) -> etree._Element | None:
    return next(descendants(el, name), None)


def _positive(value: int) -> bool:
    return value > 0


def _not_negative(value: int) -> bool:
    return value >= 0


def _minus_one_or_more(value: int) -> bool:
    return value >= -1


def java_bool(text: str) -> bool:
    return text.strip().lower() == "true"


def java_int(text: str, bits: int = 32) -> int | None:
    """Integer.parseInt / Long.parseLong: optional sign, decimal digits, in range; else None."""
    t = text.strip()
    body = t[1:] if t[:1] in "+-" else t
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(t)
    limit = 1 << (bits - 1)
    return value if -limit <= value < limit else None


def java_double(text: str) -> float | None:
    try:
        return float(text.strip())
    except ValueError:
        return None


class ChildFields(Mapping[str, FieldValue]):
    """An element's child elements by local name, in document order: for each name the trimmed text
    and position of its first occurrence and how many there are.

    Text and position are read when a name is first looked up: most are never asked for.
    """

    __slots__ = ("_first", "_count", "_values", "_locator", "_nested", "_repeated")

    def __init__(self, el: etree._Element, locator: Locator) -> None:
        first: dict[str, etree._Element] = {}
        count: dict[str, int] = {}
        nested = False
        children = 0
        for child in el.iterchildren(etree.Element):
            children += 1
            name = child.tag.rpartition("}")[2]  # an Element's tag is always a string
            if name in first:
                count[name] += 1
            else:
                first[name] = child
                count[name] = 1
            if not nested and len(child):
                nested = True
        self._first = first
        self._count = count
        self._values: dict[str, FieldValue] = {}
        self._locator = locator
        self._nested = nested  # whether some child has children (comments count) of its own
        self._repeated = children != len(first)

    def element(self, name: str) -> etree._Element | None:
        """The first child element called ``name`` (any namespace), or None."""
        return self._first.get(name)

    def count(self, name: str) -> int:
        """How many child elements are called ``name`` (0 when none)."""
        return self._count.get(name, 0)

    @property
    def repeated(self) -> bool:
        """Whether some name occurs more than once among the child elements."""
        return self._repeated

    def __getitem__(self, name: str) -> FieldValue:
        value = self._values.get(name)
        if value is None:  # the same value whoever reads it first
            child = self._first[name]
            value = FieldValue(_element_text(child).strip(), self._locator.locate(child), self._count[name])
            self._values[name] = value
        return value

    def get(self, name: str, default: FieldValue | None = None) -> FieldValue | None:  # type: ignore[override]
        return self[name] if name in self._first else default

    def __contains__(self, name: object) -> bool:
        return name in self._first

    def __iter__(self) -> Iterator[str]:
        return iter(self._first)

    def __len__(self) -> int:
        return len(self._first)

    def __repr__(self) -> str:
        return f"ChildFields({dict(self)!r})"


class _Reader:
    """Reads one element's settings as the broker does, remembering where each came from."""

    def __init__(self, el: etree._Element, locator: Locator) -> None:
        self.el = el
        self.locator = locator
        self.fields = ChildFields(el, locator)
        # Without grandchildren the descendants are the children: their first occurrences are known.
        self._first: dict[str, etree._Element] | None = None if self.fields._nested else self.fields._first

    def string(self, name: str, default: str | None = None) -> str | None:
        """The trimmed text of the first descendant called ``name`` (getElementsByTagName), or ``default``."""
        first = self._first
        if first is None:  # one pass over the (small) subtree answers every later question
            first = {}
            for d in self.el.iterdescendants(etree.Element):
                first.setdefault(d.tag.rpartition("}")[2], d)
            self._first = first
        found = first.get(name)
        if found is None:
            return default
        if not len(found):  # the common case: a leaf
            text = found.text
            return text.strip() if text else ""
        return text_content(found).strip()

    def boolean(self, name: str, default: bool) -> bool:
        value = self.string(name)
        return default if value is None else java_bool(value)

    def integer(self, name: str, default: int, check: Callable[[int], bool] = lambda v: True,
                bits: int = 32) -> int:
        value = self.string(name)
        if value is None:
            return default
        parsed = java_int(value, bits)
        return parsed if parsed is not None and check(parsed) else default

    def double(self, name: str, default: float) -> float:
        value = self.string(name)
        parsed = java_double(value) if value is not None else None
        return default if parsed is None else parsed


@gc_paused()
def build_config(doc: RawDocument) -> BrokerConfig:
    """Build the model from a loaded document."""
    core, loc = doc.core, doc.locator
    name_el = next(child_elements(core, "name"), None)
    connectors_list: list[Connector] = []
    for el in descendants(core, "connector"):
        parent = el.getparent()
        if parent is None or local(parent) != "connectors":
            continue
        url = _url(el, loc)
        if url is not None:
            connectors_list.append(Connector(el.get("name") or "", url, loc.locate(el)))
    connectors: dict[str, Connector] = {}
    for c in connectors_list:
        connectors.setdefault(c.name, c)  # the broker keeps the first and logs the rest

    acceptors = []
    for el in descendants(core, "acceptor"):
        url = _url(el, loc)
        if url is not None:
            acceptors.append(Acceptor(el.get("name") or "", url, loc.locate(el)))

    discovery_list = [_discovery_group(el, loc) for el in descendants(core, "discovery-group")]
    discovery: dict[str, DiscoveryGroup] = {}
    for d in discovery_list:
        discovery.setdefault(d.name, d)

    reader = _Reader(core, loc)
    cluster_user = reader.fields.get("cluster-user")
    cluster_password = reader.fields.get("cluster-password")
    mask = reader.fields.get("mask-password")

    return BrokerConfig(
        path=doc.path,
        pos=loc.locate(core),
        name=text_content(name_el).strip() if name_el is not None else None,
        acceptors=tuple(acceptors),
        connectors=MappingProxyType(connectors),
        connector_list=tuple(connectors_list),
        broadcast_groups=tuple(_broadcast_group(el, loc) for el in descendants(core, "broadcast-group")),
        discovery_groups=MappingProxyType(discovery),
        discovery_group_list=tuple(discovery_list),
        cluster_connections=tuple(_cluster_connections(core, loc)),
        connection_routers=tuple(_router(el, loc) for el in descendants(core, "connection-router")),
        diverts=tuple(_divert(el, loc) for el in descendants(core, "divert")
                      if local(el.getparent()) == "diverts"),
        cluster_user=cluster_user.text if cluster_user else None,
        cluster_user_pos=cluster_user.pos if cluster_user else None,
        cluster_password=cluster_password.text if cluster_password else None,
        cluster_password_pos=cluster_password.pos if cluster_password else None,
        mask_password=java_bool(mask.text) if mask else None,
        properties=tuple(
            PropertyUse(r.token, r.name, r.default, r.source, r.value, file, line, col)
            for file, line, col, r in doc.replacements
        ),
        included_files=tuple(doc.included),
        core=core,
        locator=loc,
    )


def _url(el: etree._Element, loc: Locator) -> TransportUrl | None:
    try:
        return parse_transport_url(text_content(el))
    except UrlError:
        return None  # reported by the url rule with its position


def _broadcast_group(el: etree._Element, loc: Locator) -> BroadcastGroup:
    r = _Reader(el, loc)
    refs = tuple(text_content(c).strip() for c in child_elements(el, "connector-ref"))
    return BroadcastGroup(
        name=el.get("name") or "",
        pos=loc.locate(el),
        connector_refs=refs,
        group_address=r.string("group-address"),
        group_port=r.integer("group-port", -1),
        local_bind_address=r.string("local-bind-address"),
        local_bind_port=r.integer("local-bind-port", -1),
        broadcast_period=r.integer("broadcast-period", 2000, _positive, bits=64),
        jgroups_file=r.string("jgroups-file"),
        jgroups_channel=r.string("jgroups-channel"),
        fields=r.fields,
    )


def _discovery_group(el: etree._Element, loc: Locator) -> DiscoveryGroup:
    r = _Reader(el, loc)
    return DiscoveryGroup(
        name=el.get("name") or "",
        pos=loc.locate(el),
        group_address=r.string("group-address"),
        group_port=r.integer("group-port", -1),
        local_bind_address=r.string("local-bind-address"),
        local_bind_port=r.integer("local-bind-port", -1),
        refresh_timeout=r.integer("refresh-timeout", 10000, _positive, bits=64),
        initial_wait_timeout=r.integer("initial-wait-timeout", 10000, _positive, bits=64),
        jgroups_file=r.string("jgroups-file"),
        jgroups_channel=r.string("jgroups-channel"),
        fields=r.fields,
    )


def _cluster_connections(core: etree._Element, loc: Locator) -> Iterator[ClusterConnection]:
    for el in descendants(core, "cluster-connection-uri"):
        yield ClusterConnection(name=el.get("name") or "", pos=loc.locate(el), connector_ref=None,
                                uri=el.get("address"))
    for el in descendants(core, "cluster-connection"):
        parent = el.getparent()
        if parent is not None and local(parent) == "pool":
            continue  # a pool's <cluster-connection>NAME</...>: the broker logs and skips it here
        r = _Reader(el, loc)
        static: list[str] = []
        static_pos: Pos | None = None
        allow_direct = False
        discovery: str | None = None
        discovery_pos: Pos | None = None
        for child in child_elements(el):
            name = local(child)
            if name == "discovery-group-ref":
                discovery = child.get("discovery-group-name")
                discovery_pos = loc.locate(child)
            elif name == "static-connectors":
                static_pos = static_pos or loc.locate(child)
                allow_direct = allow_direct or java_bool(child.get("allow-direct-connections-only") or "")
                static.extend(text_content(c).strip() for c in child_elements(child, "connector-ref"))
        lb = r.string("message-load-balancing", "ON_DEMAND") or "ON_DEMAND"
        if r.string("forward-when-no-consumers") is not None:
            lb = "STRICT" if r.boolean("forward-when-no-consumers", False) else "ON_DEMAND"
        yield ClusterConnection(
            name=el.get("name") or "",
            pos=loc.locate(el),
            connector_ref=r.string("connector-ref"),
            address=r.string("address", "") or "",
            message_load_balancing=lb,
            max_hops=r.integer("max-hops", 1, _not_negative),
            check_period=r.integer("check-period", 30000, _positive, bits=64),
            connection_ttl=r.integer("connection-ttl", 60000, _positive, bits=64),
            retry_interval=r.integer("retry-interval", 500, _positive, bits=64),
            retry_interval_multiplier=r.double("retry-interval-multiplier", 1.0),
            max_retry_interval=r.integer("max-retry-interval", 2000, _positive, bits=64),
            reconnect_attempts=r.integer("reconnect-attempts", -1, _minus_one_or_more),
            initial_connect_attempts=r.integer("initial-connect-attempts", -1, _minus_one_or_more),
            use_duplicate_detection=r.boolean("use-duplicate-detection", True),
            call_timeout=r.integer("call-timeout", 30000, _positive, bits=64),
            static_connectors=tuple(static) if discovery is None else (),
            static_connectors_pos=static_pos,
            allow_direct_connections_only=allow_direct,
            discovery_group=discovery,
            discovery_group_pos=discovery_pos,
            fields=r.fields,
        )


def _properties(el: etree._Element, loc: Locator) -> tuple[dict[str, str], dict[str, Pos]]:
    props: dict[str, str] = {}
    where: dict[str, Pos] = {}
    for p in child_elements(el, "property"):
        key = p.get("key")
        if key is None:
            continue
        props[key] = p.get("value") or ""
        where[key] = loc.locate(p)
    return props, where


def _router(el: etree._Element, loc: Locator) -> ConnectionRouter:
    r = _Reader(el, loc)
    policies: list[Policy] = []
    pool: Pool | None = None
    cache: Cache | None = None
    for child in child_elements(el):
        name = local(child)
        if name == "policy":
            props, where = _properties(child, loc)
            policies.append(Policy(child.get("name") or "", loc.locate(child), MappingProxyType(props),
                                   MappingProxyType(where)))
        elif name == "pool":
            pool = _pool(child, loc)
        elif name == "cache":
            cr = _Reader(child, loc)
            cache = Cache(loc.locate(child), cr.boolean("persisted", False),
                          cr.integer("timeout", 0, _not_negative), cr.fields)
    key_type = r.string("key-type", "SOURCE_IP") or "SOURCE_IP"
    return ConnectionRouter(
        name=el.get("name") or "",
        pos=loc.locate(el),
        key_type=key_type,
        key_filter=r.string("key-filter"),
        local_target_filter=r.string("local-target-filter"),
        policy=policies[-1] if policies else None,
        policies=tuple(policies),
        pool=pool,
        cache=cache,
        has_key_transformer="key-transformer" in r.fields,
        fields=r.fields,
    )


def _pool(el: etree._Element, loc: Locator) -> Pool:
    r = _Reader(el, loc)
    static: tuple[str, ...] = ()
    static_pos: tuple[Pos, ...] = ()
    discovery: str | None = None
    for child in child_elements(el):
        name = local(child)
        if name == "discovery-group-ref":
            discovery = child.get("discovery-group-name")
        elif name == "static-connectors":
            refs = list(child_elements(child, "connector-ref"))
            static = tuple(text_content(c).strip() for c in refs)
            static_pos = tuple(loc.locate(c) for c in refs)
    return Pool(
        pos=loc.locate(el),
        username=r.string("username"),
        password=r.string("password"),
        check_period=r.integer("check-period", DEFAULT_CHECK_PERIOD, _positive),
        quorum_size=r.integer("quorum-size", DEFAULT_QUORUM_SIZE, _positive),
        quorum_timeout=r.integer("quorum-timeout", DEFAULT_QUORUM_TIMEOUT, _not_negative),
        local_target_enabled=r.boolean("local-target-enabled", False),
        cluster_connection=r.string("cluster-connection"),
        static_connectors=static,
        static_connector_pos=static_pos,
        discovery_group=discovery,
        fields=r.fields,
    )


def _divert(el: etree._Element, loc: Locator) -> Divert:
    r = _Reader(el, loc)
    filter_el = r.fields.element("filter")
    transformer: Transformer | None = None
    t_el = r.fields.element("transformer")
    if t_el is not None:
        tr = _Reader(t_el, loc)
        props, _ = _properties(t_el, loc)
        transformer = Transformer(tr.string("class-name"), MappingProxyType(props))
    elif r.string("transformer-class-name"):
        transformer = Transformer(r.string("transformer-class-name"))
    return Divert(
        name=el.get("name") or "",
        pos=loc.locate(el),
        address=r.string("address"),
        forwarding_address=r.string("forwarding-address"),
        exclusive=r.boolean("exclusive", False),
        filter=filter_el.get("string") if filter_el is not None else None,
        filter_pos=loc.locate(filter_el) if filter_el is not None else None,
        routing_name=r.string("routing-name"),
        routing_type=(r.string("routing-type", "STRIP") or "STRIP"),
        transformer=transformer,
        fields=r.fields,
    )
