"""A connector whose host java.net.URI refuses holds the host "null": its pool target is never ready."""

from __future__ import annotations

from artemis_routing_cli.config import LoadOptions, load_text
from artemis_routing_cli.routing.pool import build_pool
from artemis_routing_cli.routing.router import Router
from artemis_routing_cli.routing.targets import TargetState
from tests.conftest import broker_xml

CONFIG = broker_xml("""<connectors>
  <connector name="good">tcp://broker-1:61616</connector>
  <connector name="docker">tcp://my_broker:61616</connector>
</connectors>
<connection-routers><connection-router name="r"><key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>
  <pool><static-connectors><connector-ref>docker</connector-ref><connector-ref>good</connector-ref></static-connectors>
  </pool></connection-router></connection-routers>""")


def test_host_null_target_is_never_ready() -> None:
    cfg = load_text(CONFIG, LoadOptions(environ={}))
    router = cfg.connection_routers[0]
    pool = build_pool(cfg, router, TargetState())
    assert pool is not None
    docker, good = pool.targets
    assert (docker.host, docker.port, docker.ready) == ("null", -1, False) and good.ready
    assert docker.unready_reason is not None and "my_broker:61616" in docker.unready_reason
    assert any("never ready" in note for note in pool.notes)


def test_a_targets_file_cannot_make_it_ready() -> None:
    from artemis_routing_cli.routing.targets import Target

    cfg = load_text(CONFIG, LoadOptions(environ={}))
    known = TargetState(known=(Target(name="docker", node_id="n1", ready=True),))
    pool = build_pool(cfg, cfg.connection_routers[0], known)
    assert pool is not None and pool.targets[0].ready is False


def test_the_router_skips_it_and_says_why() -> None:
    cfg = load_text(CONFIG, LoadOptions(environ={}))
    router = Router.from_config(cfg, cfg.connection_routers[0])
    result = router.route_key("client-1")
    assert result.target is not None and result.target.name == "good"
    assert any("docker is not ready" in s.detail and "'null'" in s.detail for s in result.trace)
