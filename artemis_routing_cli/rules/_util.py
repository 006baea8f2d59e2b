"""Small helpers the rule families share: raw elements, Java number and boolean parsing, names.

Not a rule family (the leading underscore keeps the registry away from it).
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

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
    return not (value.startswith("ENC(") and value.endswith(")"))


def _section_children(core: etree._Element, section: str, name: str) -> Iterator[etree._Element]:
    for el in descendants(core, name):
        parent = el.getparent()
        if parent is not None and local(parent) == section:
            yield el


def connector_names(config: BrokerConfig) -> set[str]:
    """Names of every ``<connector>`` written under ``<connectors>``, bad URLs included (so that a
    reference to one is not reported twice), and the names the broker gives them (``?name=``)."""
    if config.core is None:
        return set(config.connectors)
    written = {el.get("name") or "" for el in _section_children(config.core, "connectors", "connector")}
    return written | set(config.connectors)


def defined_connectors(config: BrokerConfig) -> list[etree._Element]:
    return list(_section_children(config.core, "connectors", "connector")) if config.core is not None else []


def defined_acceptors(config: BrokerConfig) -> list[etree._Element]:
    return list(_section_children(config.core, "acceptors", "acceptor")) if config.core is not None else []


def router_elements(config: BrokerConfig) -> list[tuple[ConnectionRouter, etree._Element | None]]:
    """Each router of the model with its ``<connection-router>`` element (same document order)."""
    raw = list(descendants(config.core, "connection-router")) if config.core is not None else []
    if len(raw) != len(config.connection_routers):
        return [(r, None) for r in config.connection_routers]
    return list(zip(config.connection_routers, raw, strict=True))


def cluster_elements(config: BrokerConfig) -> list[tuple[ClusterConnection, etree._Element | None]]:
    """Each ``<cluster-connection>`` of the model with its element (``-uri`` forms get None).

    A router pool's ``<cluster-connection>NAME</cluster-connection>`` is no cluster connection of
    the model, so its element is left out too (otherwise the two lists would not line up)."""
    raw = [el for el in descendants(config.core, "cluster-connection")
           if local(el.getparent()) != "pool"] if config.core is not None else []
    plain = [cc for cc in config.cluster_connections if cc.uri is None]
    if len(raw) != len(plain):
        return [(cc, None) for cc in config.cluster_connections]
    by_id = {id(cc): el for cc, el in zip(plain, raw, strict=True)}
    return [(cc, by_id.get(id(cc))) for cc in config.cluster_connections]


def real_cluster_connections(config: BrokerConfig) -> list[ClusterConnection]:
    """The cluster connections the broker actually parses as such.

    The broker collects ``cluster-connection`` elements from anywhere in ``<core>``, so a router
    pool's ``<cluster-connection>name</cluster-connection>`` is parsed too; having no
    ``connector-ref`` it is logged and skipped. Those are left out here.
    """
    return [cc for cc in config.cluster_connections if cc.uri is not None or cc.connector_ref is not None]


def deployed_cluster_connections(config: BrokerConfig) -> list[ClusterConnection]:
    """The cluster connections the broker deploys (ClusterManager.deployClusterConnection): its
    ``<connector-ref>`` names a connector and, with a ``<discovery-group-ref>``, that group exists.
    ``-uri`` forms are taken as deployed. (Connectors with a URL the broker cannot read count as
    present: the broker does not start at all then, and AR702 says so.)"""
    connectors = connector_names(config)
    groups = config.discovery_groups
    return [cc for cc in real_cluster_connections(config)
            if cc.uri is not None or (cc.connector_ref in connectors
                                      and (cc.discovery_group is None or cc.discovery_group in groups))]


def divert_elements(config: BrokerConfig) -> list[tuple[Divert, etree._Element | None]]:
    raw = list(_section_children(config.core, "diverts", "divert")) if config.core is not None else []
    if len(raw) != len(config.diverts):
        return [(d, None) for d in config.diverts]
    return list(zip(config.diverts, raw, strict=True))
