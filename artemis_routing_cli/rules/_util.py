"""Small helpers the rule families share: raw elements, Java number and boolean parsing, names.

Not a rule family (the leading underscore keeps the registry away from it).
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import attrgetter

from lxml import etree

from ..config.masked import is_enc_masked
from ..config.model import BrokerConfig, ClusterConnection, ConnectionRouter, Divert
from ..config.parse import child_elements, descendants, local, text_content
from ..javastr import java_parse_int  # noqa: F401  (re-exported for the rule modules)

__all__ = [
    "child_elements",
    "cluster_elements",
    "connector_names",
    "defined_acceptors",
    "defined_connectors",
    "deployed_cluster_connections",
    "divert_elements",
    "java_parse_int",
    "local",
    "plaintext_password",
    "raw_elements",
    "real_cluster_connections",
    "router_elements",
    "text_content",
]

def plaintext_password(value: str, mask_password: bool | None) -> bool:
    """Whether the broker reads ``value`` as the password itself (PasswordMaskingUtil.resolveMask).

    ``mask-password`` true: every password is masked; false: every password is plain (even
    ``ENC(..)``); not set: only ``ENC(..)`` is masked.
    """
    if mask_password is True:
        return False
    if mask_password is False:
        return True
    return not is_enc_masked(value)


def _section_children(core: etree._Element, section: str, name: str) -> Iterator[etree._Element]:
    for el in descendants(core, name):
        parent = el.getparent()
        if parent is not None and local(parent) == section:
            yield el


class RawElements:
    """The elements several families read, found in one walk over ``<core>`` (document order each):
    the broker's getElementsByTagName of each name, any namespace. (A plain class: no record made at
    import, which validate's start-up would pay.)"""

    __slots__ = ("acceptors", "cluster_connections", "connectors", "routers")

    def __init__(self, *, connectors: list[etree._Element], acceptors: list[etree._Element],
                 routers: list[etree._Element], cluster_connections: list[etree._Element]) -> None:
        self.connectors = connectors  # <connector> with a <connectors> parent
        self.acceptors = acceptors  # <acceptor> with an <acceptors> parent
        self.routers = routers  # every <connection-router>
        self.cluster_connections = cluster_connections  # every <cluster-connection> but a router pool's


_TAG = attrgetter("tag")
_WALKED = ("connector", "acceptor", "connection-router", "cluster-connection")


def raw_elements(config: BrokerConfig) -> RawElements:
    """One walk over ``<core>`` (libxml2 matches the names; Python sees only the elements found)."""
    found: dict[str, list[etree._Element]] = {name: [] for name in _WALKED}
    below = config.elements_below
    if below is not None and config.core is not None:  # found by the model's own walk (the same lists)
        found = {name: below[name] for name in _WALKED}
    elif config.core is not None:
        elements = list(config.core.iterdescendants(*("{*}" + name for name in _WALKED)))
        by_tag: dict[str, list[etree._Element]] = {}  # by the whole tag: a few, each element's found by C-level calls
        for tag, el in zip(map(_TAG, elements), elements):  # noqa: B905 (one list read twice)
            group = by_tag.get(tag)
            if group is None:
                group = by_tag[tag] = []
            group.append(el)
        if len(by_tag) == 1:  # one namespace, one name (the lists keep document order)
            ((tag, els),) = by_tag.items()
            found[tag.rpartition("}")[2]] = els
        else:  # several: merged per local name in document order
            local_of = {tag: tag.rpartition("}")[2] for tag in by_tag}
            if len(set(local_of.values())) == len(local_of):
                for tag, els in by_tag.items():
                    found[local_of[tag]] = els
            else:
                for el in elements:
                    found[local_of[el.tag]].append(el)
    return RawElements(
        connectors=_with_parent(found["connector"], "connectors", True),
        acceptors=_with_parent(found["acceptor"], "acceptors", True),
        routers=found["connection-router"],
        cluster_connections=_with_parent(found["cluster-connection"], "pool", False),
    )


def _with_parent(elements: list[etree._Element], name: str, wanted: bool) -> list[etree._Element]:
    """The elements whose parent is (``wanted``) or is not called ``name``. Each parent is held while
    the list is read, so lxml hands back that very proxy for its next child and its name is read once
    (thousands of connectors share one ``<connectors>``)."""
    parents: dict[etree._Element | None, bool] = {}
    out = []
    for el in elements:
        parent = el.getparent()
        named = parents.get(parent)
        if named is None:
            named = parents[parent] = local(parent) == name
        if named is wanted:
            out.append(el)
    return out


def connector_names(config: BrokerConfig, raw: RawElements | None = None) -> set[str]:
    """Names of every ``<connector>`` written under ``<connectors>``, bad URLs included (so that a
    reference to one is not reported twice), and the names the broker gives them (``?name=``)."""
    if config.core is None:
        return set(config.connectors)
    raw = raw if raw is not None else raw_elements(config)
    written = {el.get("name") or "" for el in raw.connectors}
    return written | set(config.connectors)


def defined_connectors(config: BrokerConfig, raw: RawElements | None = None) -> list[etree._Element]:
    return list((raw if raw is not None else raw_elements(config)).connectors)


def defined_acceptors(config: BrokerConfig, raw: RawElements | None = None) -> list[etree._Element]:
    return list((raw if raw is not None else raw_elements(config)).acceptors)


def router_elements(config: BrokerConfig,
                    raw: RawElements | None = None) -> list[tuple[ConnectionRouter, etree._Element | None]]:
    """Each router of the model with its ``<connection-router>`` element (same document order)."""
    elements = (raw if raw is not None else raw_elements(config)).routers
    if len(elements) != len(config.connection_routers):
        return [(r, None) for r in config.connection_routers]
    return list(zip(config.connection_routers, elements, strict=True))


def cluster_elements(config: BrokerConfig,
                     raw: RawElements | None = None) -> list[tuple[ClusterConnection, etree._Element | None]]:
    """Each ``<cluster-connection>`` of the model with its element (``-uri`` forms get None).

    A router pool's ``<cluster-connection>NAME</cluster-connection>`` is no cluster connection of
    the model, so its element is left out too (otherwise the two lists would not line up)."""
    elements = (raw if raw is not None else raw_elements(config)).cluster_connections
    plain = [cc for cc in config.cluster_connections if cc.uri is None]
    if len(elements) != len(plain):
        return [(cc, None) for cc in config.cluster_connections]
    by_id = {id(cc): el for cc, el in zip(plain, elements, strict=True)}
    return [(cc, by_id.get(id(cc))) for cc in config.cluster_connections]


def real_cluster_connections(config: BrokerConfig) -> list[ClusterConnection]:
    """The cluster connections the broker actually parses as such.

    The broker collects ``cluster-connection`` elements from anywhere in ``<core>``, so a router
    pool's ``<cluster-connection>name</cluster-connection>`` is parsed too; having no
    ``connector-ref`` it is logged and skipped. Those are left out here.
    """
    return [cc for cc in config.cluster_connections if cc.uri is not None or cc.connector_ref is not None]


def deployed_cluster_connections(config: BrokerConfig, raw: RawElements | None = None) -> list[ClusterConnection]:
    """The cluster connections the broker deploys (ClusterManager.deployClusterConnection): its
    ``<connector-ref>`` names a connector and, with a ``<discovery-group-ref>``, that group exists.
    ``-uri`` forms are taken as deployed. (Connectors with a URL the broker cannot read count as
    present: the broker does not start at all then, and AR702 says so.)"""
    connectors = connector_names(config, raw)
    groups = config.discovery_groups
    return [cc for cc in real_cluster_connections(config)
            if cc.uri is not None or (cc.connector_ref in connectors
                                      and (cc.discovery_group is None or cc.discovery_group in groups))]


def divert_elements(config: BrokerConfig) -> list[tuple[Divert, etree._Element | None]]:
    raw = list(_section_children(config.core, "diverts", "divert")) if config.core is not None else []
    if len(raw) != len(config.diverts):
        return [(d, None) for d in config.diverts]
    return list(zip(config.diverts, raw, strict=True))


# The functions above that take the one walk's answer (``Context.shared`` hands it to them).
WALK_READERS = frozenset({connector_names, defined_connectors, defined_acceptors, router_elements,
                          cluster_elements, deployed_cluster_connections})
