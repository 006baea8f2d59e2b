"""What the hot path keeps between connections, and must never let go stale: a router's answer per
target (rebuilt when the engine hands out a new Target object: readiness, node id or address
changed) and the counters resolved once per label values (the same series as ``Metrics.inc``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from artemis_routing_cli.config import load
from artemis_routing_cli.routing.keys import Connection
from artemis_routing_cli.routing.router import OK, REFUSED_UNAVAILABLE, Router
from artemis_routing_cli.routing.targets import state_from_options
from artemis_routing_cli.serve.decide import RouterService
from artemis_routing_cli.serve.metrics import Metrics
from tests.conftest import broker_xml

from .conftest import NODE_IDS, ROUTER_CORE


def service_for(tmp_path: Path, name: str, local_target: tuple[str, int] | None = None) -> RouterService:
    path = tmp_path / "broker.xml"
    path.write_text(broker_xml(ROUTER_CORE), encoding="utf-8")
    cfg = load(str(path))
    router_cfg = next(r for r in cfg.connection_routers if r.name == name)
    return RouterService(Router.from_config(cfg, router_cfg, state_from_options(NODE_IDS)), cfg, local_target)


def test_the_answer_follows_the_target_object_the_engine_hands_out(tmp_path):
    service = service_for(tmp_path, "by-client")
    result = service.router.route(Connection(client_id="FOO1"))
    first = service.answer(result)
    assert (first.status, first.connector_name, first.host, first.port) == (OK, "target2", "10.0.0.2", 61618)
    assert first.node_id == "22222222-2222-2222-2222-222222222222"
    assert first.connector is not None and first.connector.params == {"port": "61618", "host": "10.0.0.2"}
    assert service.answer(service.router.route(Connection(client_id="FOO1"))) is first  # kept per target

    moved = replace(result, target=replace(result.target, node_id="33333333", host="10.0.0.9", port=5672))
    second = service.answer(moved)
    assert (second.node_id, second.host, second.port) == ("33333333", "10.0.0.9", 5672)
    assert second.connector is not None and second.connector.params == {"port": "5672", "host": "10.0.0.9"}
    assert service.answer(result) is not first and service.answer(result).node_id == first.node_id

    unknown = replace(result, target=replace(result.target, host=None))
    assert service.answer(unknown).status == REFUSED_UNAVAILABLE
    assert service.answer(unknown).shown == "REFUSED_UNAVAILABLE (target target2 has no known address)"


def test_local_answers_depend_on_the_local_target(tmp_path):
    refused = service_for(tmp_path, "by-client")
    local = refused.router.route(Connection(client_id="LOCAL-1"))
    assert local.local
    assert refused.answer(local).shown == "REFUSED_USE_ANOTHER (local target: no --local-target, refused)"
    sent = service_for(tmp_path, "by-client", ("127.0.0.1", 5555))
    answer = sent.answer(sent.router.route(Connection(client_id="LOCAL-1")))
    assert (answer.status, answer.connector_name, answer.host, answer.port) == (OK, "local", "127.0.0.1", 5555)
    assert answer.shown == "local (127.0.0.1:5555, node 00000000-0000-0000-0000-000000000000)"


def test_a_counter_family_counts_the_series_metrics_inc_counts():
    by_family, by_inc = Metrics(), Metrics()
    for router, target, protocol in [("r", "t1", "MQTT"), ("r", "t1", "MQTT"), ("r", "t2", "AMQP")]:
        by_family.redirects.inc(router, target, protocol)
        by_inc.inc("arouter_redirects_total", router=router, target=target, protocol=protocol)
    assert by_family.render() == by_inc.render()
    assert by_family.get("arouter_redirects_total", router="r", target="t1", protocol="MQTT") == 2
    # a family with no increments shows nothing, as before any inc
    assert "arouter_refusals_total" not in by_family.render()


def test_counter_cells_add_to_the_series_they_name() -> None:
    metrics = Metrics()
    cell = metrics.redirects.cell("r", "t1", "MQTT")
    assert cell is metrics.redirects.cell("r", "t1", "MQTT")  # one cell per series
    assert "arouter_redirects_total" not in metrics.render()  # not counted yet: not shown
    cell.n += 2
    metrics.redirects.inc("r", "t1", "MQTT")  # the session's way, on the same series
    metrics.redirects.inc("r", "t2", "AMQP")
    assert metrics.get("arouter_redirects_total", router="r", target="t1", protocol="MQTT") == 3
    assert metrics.get("arouter_redirects_total", router="r", target="t2", protocol="AMQP") == 1
    rendered = [line for line in metrics.render().splitlines() if line.startswith("arouter_redirects_total")]
    assert rendered == ['arouter_redirects_total{protocol="AMQP",router="r",target="t2"} 1',
                        'arouter_redirects_total{protocol="MQTT",router="r",target="t1"} 3']
    metrics.connections.cell("listen-1", "MQTT").n += 1
    assert 'arouter_connections_total{listener="listen-1",protocol="MQTT"} 1' in metrics.render()
