"""The keys' alphabet and the router both analyze benches route with (bench/analyze_bench.py,
bench/analyze_scale.py): five static connectors behind one CONSISTENT_HASH router."""

from __future__ import annotations

from artemis_routing_cli.config import load_text
from artemis_routing_cli.routing.router import Router
from artemis_routing_cli.routing.targets import TargetState

NODES = {f"c{i}": f"{i:08x}-5a5a-11ee-8c99-0242ac12000{i}" for i in range(1, 6)}
PIECES = ["a", "b", "Z", "0", "7", "-", "\u00e9", "\u4e2d", "\U0001F600", "client", "user.", "\u0130"]


def router() -> Router:
    conns = "".join(f'<connector name="{c}">tcp://{c}:61616</connector>' for c in NODES)
    refs = "".join(f"<connector-ref>{c}</connector-ref>" for c in NODES)
    cfg = load_text(f'<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><connectors>{conns}'
                    '</connectors><connection-routers><connection-router name="bench"><key-type>CLIENT_ID'
                    f'</key-type><policy name="CONSISTENT_HASH"/><pool><static-connectors>{refs}</static-connectors>'
                    "</pool></connection-router></connection-routers></core></configuration>")
    r = Router.from_config(cfg, cfg.connection_routers[0], TargetState(node_ids=NODES))
    r.tracing = False
    return r
