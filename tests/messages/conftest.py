from __future__ import annotations

import pytest

from artemis_routing_cli.config import load_text

HEADER = '<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">'
FOOTER = "</core></configuration>"


def divert_xml(name: str, address: str, forward: str, *, exclusive: bool = False, filter: str | None = None,
               routing_type: str | None = None, routing_name: str | None = None,
               transformer: str | None = None) -> str:
    parts = [f'<divert name="{name}">', f"<address>{address}</address>",
             f"<forwarding-address>{forward}</forwarding-address>", f"<exclusive>{str(exclusive).lower()}</exclusive>"]
    if filter is not None:
        quoted = filter.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
        parts.append(f'<filter string="{quoted}"/>')
    if routing_type:
        parts.append(f"<routing-type>{routing_type}</routing-type>")
    if routing_name:
        parts.append(f"<routing-name>{routing_name}</routing-name>")
    if transformer:
        parts.append(f"<transformer-class-name>{transformer}</transformer-class-name>")
    parts.append("</divert>")
    return "".join(parts)


def cluster_xml(name: str, address: str | None, balancing: str = "ON_DEMAND") -> str:
    addr = f"<address>{address}</address>" if address is not None else ""
    return (f'<cluster-connection name="{name}">{addr}<connector-ref>netty</connector-ref>'
            f"<message-load-balancing>{balancing}</message-load-balancing></cluster-connection>")


@pytest.fixture
def broker():
    def build(diverts: list[str], clusters: list[str] | None = None):
        body = "<connectors><connector name=\"netty\">tcp://localhost:61616</connector></connectors>"
        body += "<diverts>" + "".join(diverts) + "</diverts>"
        if clusters:
            body += "<cluster-connections>" + "".join(clusters) + "</cluster-connections>"
        return load_text(HEADER + body + FOOTER)

    return build
