"""arouter fleet's core on the operator's documented sharding shapes (our own files): the proof over
CONSISTENT_HASH_MODULO's values, each failure mode, changes, and the proof held equal to the engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from artemis_routing_cli.cli.fleet_options import FleetOptions
from artemis_routing_cli.cli.fleet_pods import cr_specs, listed_specs, replica_specs
from artemis_routing_cli.fleet.count import home_transfer
from artemis_routing_cli.fleet.pods import Pod, load_pods, with_version
from artemis_routing_cli.fleet.proof import prove, prove_change
from artemis_routing_cli.routing.keys import Connection
from artemis_routing_cli.routing.policies import java_remainder
from artemis_routing_cli.routing.shards import domain

DATA = Path(__file__).parent / "data"
NEW = (2, 41)
OLD = (2, 22)


def cr_pods(name: str, count: int | None = None, version: tuple[int, int] = NEW) -> list[Pod]:
    from artemis_routing_cli.config.properties.cr import deployment_size

    cr = str(DATA / name)
    return load_pods(cr_specs(FleetOptions(cr=cr), cr, count or deployment_size(cr)), version)


def test_the_operators_shards_have_one_home_each() -> None:
    proof = prove(cr_pods("shard-cr.yaml"), "partition")
    assert proof.proven and proof.ok and proof.values == 4
    assert proof.homes == {"NULL": ["shard-ss-0", "shard-ss-1", "shard-ss-2"], "0": ["shard-ss-0"],
                           "1": ["shard-ss-1"], "2": ["shard-ss-2"]}
    assert proof.homeless == [] and proof.idle == []


def test_broker_n_lines_shard_as_the_ordinal_variable_does() -> None:
    proof = prove(cr_pods("shard-ordinal-lines-cr.yaml"), "partition")
    assert proof.ok and proof.homes["0"] == ["lines-ss-0"] and proof.homes["1"] == ["lines-ss-1"]


def test_a_plain_broker_xml_with_replicas_is_the_cr() -> None:
    opts = FleetOptions(config=str(DATA / "shard-broker.xml"), replicas="3")
    plain = prove(load_pods(replica_specs(opts, 3), NEW), "partition")
    cr = prove(cr_pods("shard-cr.yaml"), "partition")
    assert plain.ok
    assert {v: [p[-1] for p in pods] for v, pods in plain.homes.items()} == \
        {v: [p[-1] for p in pods] for v, pods in cr.homes.items()}


def test_per_pod_configs() -> None:
    xml = str(DATA / "shard-broker.xml")
    pods = load_pods(listed_specs(FleetOptions(pods=[f"a-0={xml}", f"b-2={xml}", f"c-1={xml}"])), NEW)
    assert [p.ordinal for p in pods] == [0, 2, 1]
    assert prove(pods, "partition").homes["2"] == ["b-2"]


def test_modulo_3_on_2_pods_leaves_a_residue_homeless() -> None:
    pods = cr_pods("shard-cr.yaml", 3)
    proof = prove(pods[:2], "partition")
    assert proof.proven and not proof.ok and proof.homeless == ["2"]
    assert prove(pods[:1], "partition").homeless == ["1", "2"]


def test_the_same_filter_on_every_pod_gives_double_homes() -> None:
    proof = prove(cr_pods("same-filter-cr.yaml"), "partition")
    assert not proof.ok
    assert proof.several == [("NULL", ["same-ss-0", "same-ss-1", "same-ss-2"]),
                             ("0", ["same-ss-0", "same-ss-1", "same-ss-2"]),
                             ("1", ["same-ss-0", "same-ss-1", "same-ss-2"])]
    assert proof.homeless == ["2"]


def test_an_undefined_ordinal_variable_leaves_every_residue_homeless() -> None:
    # ${STATEFULSET_ORDINAL} is no variable the pod has: the broker substitutes "", the filter is NULL|
    proof = prove(cr_pods("typo-cr.yaml"), "partition")
    assert proof.homeless == ["0", "1", "2"] and proof.idle == ["typo-ss-0", "typo-ss-1", "typo-ss-2"]


def test_scale_3_to_4_keeping_modulo_3_leaves_the_new_pod_idle() -> None:
    before, after = cr_pods("shard-cr.yaml", 3), cr_pods("shard-cr.yaml", 4)
    assert prove(after, "partition").idle == ["shard-ss-3"]
    assert prove(after, "partition").shares["shard-ss-3"] == 0
    change = prove_change(before, after, "partition")
    assert change.proven and all(a == b for a, b in change.pairs)  # nobody moves


def test_scale_3_to_4_with_modulo_4_moves_three_quarters() -> None:
    before, after = cr_pods("shard-cr.yaml"), cr_pods("shard4-cr.yaml")
    change = prove_change(before, after, "partition")
    t = home_transfer(change.pairs, [p.name for p in before], [p.name for p in after])
    assert change.classes == 24 and t.keys == 24  # lcm(3, 4) = 12 residues, of each sign
    # a class stays where its hash's pod is the same with 3 and with 4 (a hash of each class, each sign)
    reps = [*range(12), *(-(r or 12) for r in range(12))]
    stays = sum((h & 0x7FFFFFFF) % 3 == (h & 0x7FFFFFFF) % 4 for h in reps)
    assert t.moved == 24 - stays and t.became_refused == 0 and 0 < stays < 12
    assert prove(after, "partition").ok


def test_an_upgrade_across_2_23_moves_negative_hashes() -> None:
    old = cr_pods("shard-cr.yaml", version=OLD)
    proof = prove(old, "partition")
    # before 2.23 the values are -2..2: -1 and -2 have no home (the operator's NULL|N|-N works around it)
    assert proof.homeless == ["-1", "-2"] and proof.values == 6
    change = prove_change(old, with_version(old, NEW), "partition")
    t = home_transfer(change.pairs, [p.name for p in old], [p.name for p in old])
    # a hash of each class: before, Java's h % 3 (a negative value has no home); after, (h & 0x7fffffff) % 3
    reps = [0, 1, 2, -3, -1, -2]
    moved = sum(java_remainder(h, 3) != (h & 0x7FFFFFFF) % 3 for h in reps)
    assert t.keys == 6 and t.became_routed == 2 and t.moved == moved == 3  # -1, -2 find a home; -3's class moves


@pytest.mark.parametrize(("rules", "classes"), [([(3, False)], 6), ([(3, True)], 6), ([(2, False), (3, True)], 12),
                                               ([None, (5, False)], 10), ([None], 2)])
def test_domain_classes_cover_the_hash_space(rules: list, classes: int) -> None:
    """2·lcm hash classes (both signs), each in exactly one value, NULL apart."""
    values = domain(rules)
    assert values[0].label == "NULL" and values[0].weight == 0
    assert sum(r.weight for r in values) == classes


@pytest.mark.parametrize(("name", "version"), [("shard-cr.yaml", NEW), ("shard-cr.yaml", OLD),
                                               ("same-filter-cr.yaml", NEW), ("shard4-cr.yaml", OLD)])
def test_the_proof_is_the_engines_answer_key_by_key(name: str, version: tuple[int, int]) -> None:
    """Every key's homes, asked of the engine (Router.route on each pod), are its value's homes in the proof."""
    pods = cr_pods(name, version=version)
    proof = prove(pods, "partition")
    first = pods[0].routers["partition"]
    keys = [f"client-{i}" for i in range(600)] + ["a", "test", "", "FOO1", "héllo", "😀x"]
    seen = set()
    for k in [*keys, None]:
        conn = Connection(client_id=k)
        value = first.route(conn).key_value
        homes = [p.name for p in pods if (res := p.routers["partition"].route(conn)).status == "OK" and res.local]
        assert homes == proof.homes[value], (k, value)
        seen.add(value)
    assert seen == set(proof.homes)  # every value of the domain is reached by some key


def test_broker_n_lines_of_a_properties_file_go_to_their_pod() -> None:
    opts = FleetOptions(properties=[str(DATA / "shard-lines.properties")], replicas="2")
    pods = load_pods(replica_specs(opts, 2), NEW)
    assert [p.routers["partition"].local_target_filter.source for p in pods] == ["NULL|0", "NULL|1"]
    plain, cr = prove(pods, "partition"), prove(cr_pods("shard-ordinal-lines-cr.yaml"), "partition")
    assert plain.ok and list(plain.homes) == list(cr.homes)
    assert [len(v) for v in plain.homes.values()] == [len(v) for v in cr.homes.values()]


def test_a_pool_under_consistent_hash_modulo_changes_no_home() -> None:
    pooled, plain = cr_pods("shard-pool-cr.yaml"), cr_pods("shard-cr.yaml")
    assert all(p.routers["partition"].pool is not None for p in pooled)
    assert prove(pooled, "partition").homes == prove(plain, "partition").homes
    answer = pooled[0].routers["partition"].route(Connection(client_id="client-1"))
    assert answer.status == "REFUSED_UNAVAILABLE" or answer.local  # refused, never sent elsewhere
