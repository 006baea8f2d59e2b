"""The user manual's connection-router examples (as shipped in samples/broker.xml) behave as the manual says."""

from __future__ import annotations

import json
from pathlib import Path

from artemis_routing_cli.config import load
from artemis_routing_cli.routing.keys import Connection
from artemis_routing_cli.routing.router import Router
from artemis_routing_cli.routing.targets import TargetState, read_targets_file
from tests.conftest import SAMPLE


def _router(name: str, state: TargetState | None = None, seed: int | None = 0) -> Router:
    cfg = load(str(SAMPLE))
    router = cfg.router(name)
    assert router is not None
    return Router.from_config(cfg, router, state, seed=seed)


def _discovery_members(tmp_path: Path, group: str, counts: dict[str, int]) -> TargetState:
    targets = [{"name": node, "source": f"discovery:{group}", "host": f"{node}.example.net", "port": 61616,
                "node_id": node, "ready": True, "connection_count": count} for node, count in counts.items()]
    path = tmp_path / "targets.json"
    path.write_text(json.dumps({"format": "arouter-targets/1", "targets": targets}), encoding="utf-8")
    return read_targets_file(str(path))


def test_local_partition_keeps_foo_clients_local_and_refuses_others() -> None:
    r = _router("local-partition")
    assert r.route(Connection(client_id="FOO1")).local
    assert r.route(Connection(client_id="FOOBAR")).local
    assert r.route(Connection(client_id="BAR1")).status == "REFUSED_USE_ANOTHER"


def test_simple_router_first_element_in_connector_order() -> None:
    r = _router("simple-router")
    assert r.route(Connection(client_id="anything")).target.name == "broker1"  # type: ignore[union-attr]
    down = _router("simple-router", TargetState(down=frozenset({"broker1"})))
    assert down.route(Connection(client_id="anything")).target.name == "broker2"  # type: ignore[union-attr]


def test_consistent_hash_router_keeps_admin_local() -> None:
    r = _router("consistent-hash-router")
    assert r.route(Connection(username="admin")).local
    # the local target is in the pool (local-target-enabled): other users hash over it and the members
    assert r.route(Connection(username="bob")).status == "OK"


def test_evenly_balance_uses_least_connections_on_the_key_prefix(tmp_path: Path) -> None:
    state = _discovery_members(tmp_path, "dg2", {"node-a": 12, "node-b": 3, "node-c": 40})
    r = _router("evenly-balance", state)
    res = r.route(Connection(client_id="FOO1"))
    assert (res.key, res.target.name) == ("FOO", "node-b")  # type: ignore[union-attr]
    tied = _router("evenly-balance", _discovery_members(tmp_path, "dg2", {"node-a": 5, "node-b": 5}), seed=0)
    assert [tied.route(Connection(client_id=f"C{i}")).target.name for i in range(3)] == [  # type: ignore[union-attr]
        "node-a", "node-b", "node-a"]


def test_shard_router_keeps_only_its_modulo_bucket() -> None:
    from artemis_routing_cli.routing.fnv import fnv1a32

    r = _router("shard-router")
    for cid in ("FOO1", "client-7", "x"):
        bucket = (fnv1a32(cid) & 0x7FFFFFFF) % 3
        assert r.route(Connection(client_id=cid)).local == (bucket == 0)
