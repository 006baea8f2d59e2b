"""(1) The broker's own pick is the oracle: for 1,000 keys per router, the real broker's management
``getTargetAsJSON(key)`` (through its Jolokia) equals ``arouter simulate --management`` with the targets
file ``arouter probe --save`` read from the running brokers."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import arouter
from tests.realbroker.cluster import Cluster
from tests.realbroker.instances import HANG_GUARD_SECONDS
from tests.realbroker.jolokia import targets_of
from tests.realbroker.keys import keys
from tests.realbroker.simulate import simulate_keys


def answer(target: dict[str, Any] | None, own_node: str) -> tuple[str, str | None, bool]:
    """The broker's answer as (status, node id, local): null is no target (a refusal)."""
    if target is None:
        return ("REFUSED", None, False)
    return ("OK", target["nodeID"] if not target["local"] else own_node, bool(target["local"]))


def simulated(record: dict[str, Any], own_node: str) -> tuple[str, str | None, bool]:
    if record["status"] != "OK":
        return ("REFUSED", None, False)
    return ("OK", own_node if record["local"] else record["node_id"], bool(record["local"]))


def mismatches(keys_: list[str], broker: list[Any], ours: list[Any]) -> list[str]:
    return [f"key {k!r}: broker {b}, simulate {o}" for k, b, o in zip(keys_, broker, ours, strict=True) if b != o]


@pytest.mark.parametrize("router", ["ch", "chu", "fe"])
def test_deterministic_routers_pick_as_the_broker(cluster: Cluster, targets: Path, tmp_path: Path, router: str) -> None:
    own = cluster.brokers[0].node_id
    sample = keys(f"m1{router}-")
    broker = [answer(t, own) for t in targets_of(cluster.jolokia(0), "b0", router, sample)]
    ours = [simulated(r, own) for r in simulate_keys(cluster.config(0), router, sample, tmp_path,
                                                     "--targets", str(targets), "-D", "ordinal=0")]
    assert mismatches(sample, broker, ours) == []
    assert len({b[1] for b in broker}) >= 2  # the keys spread: a router stuck on one target would pass otherwise


@pytest.mark.parametrize("index", [0, 1, 2])
def test_modulo_shards_as_each_broker(cluster: Cluster, tmp_path: Path, index: int) -> None:
    """CONSISTENT_HASH_MODULO with ``local-target-filter`` ``NULL|${ordinal}``: each broker keeps its shard."""
    own = cluster.brokers[index].node_id
    sample = keys(f"m1chm{index}-")
    broker = [answer(t, own) for t in targets_of(cluster.jolokia(index), f"b{index}", "chm", sample)]
    ours = [simulated(r, own) for r in simulate_keys(cluster.config(index), "chm", sample, tmp_path,
                                                     "-D", f"ordinal={index}")]
    assert mismatches(sample, broker, ours) == []
    kept = sum(1 for b in broker if b[2])
    assert 0 < kept < len(sample)


def test_round_robin_with_cache_turns_as_the_broker(cluster: Cluster, targets: Path, tmp_path: Path) -> None:
    """ROUND_ROBIN starts at a random position: some start position of simulate gives the broker's 1,000 picks,
    repeated keys answered from the cache (each key asked twice)."""
    own = cluster.brokers[0].node_id
    base = keys("m1rr-", 500)
    sample = [k for pair in zip(base, base, strict=True) for k in pair]
    broker = [answer(t, own) for t in targets_of(cluster.jolokia(0), "b0", "rr", sample)]
    tries = {}
    for seed in range(3):
        ours = [simulated(r, own) for r in simulate_keys(cluster.config(0), "rr", sample, tmp_path, "--seed", str(seed),
                                                         "--targets", str(targets), "-D", "ordinal=0")]
        tries[seed] = mismatches(sample, broker, ours)
    assert min(len(found) for found in tries.values()) == 0, tries
    assert len({b[1] for b in broker}) == 3


COUNT_LINE = re.compile(r"LeastConnectionsPolicy\] Updating the connection count to (\d+) for the target "
                        r"ActiveMQTarget \[connector=TransportConfiguration\(name=(c\d),")


def broker_counts(cluster: Cluster, mark: int) -> dict[str, int]:
    """The counts broker 0's LEAST_CONNECTIONS policies last read since ``mark`` (its DEBUG lines)."""
    counts: dict[str, int] = {}
    for line in cluster.brokers[0].log_since(mark):
        found = COUNT_LINE.search(line)
        if found:
            counts[found.group(2)] = int(found.group(1))
    return counts


def probe_lc(cluster: Cluster, saved: Path) -> dict[str, int]:
    done = arouter("probe", "-c", str(cluster.config(0)), "-r", "lc", "--jolokia", cluster.jolokia_template(),
                   "--save", str(saved), "--timeout", "30", "--format", "json", "-D", "ordinal=0")
    assert done.code == 0, done.out + done.err
    return {t["name"]: t["connection_count"] for t in json.loads(done.out)["pools"][0]["targets"]}


def test_least_connections_picks_as_the_broker_with_the_counts_probe_read(cluster: Cluster, tmp_path: Path) -> None:
    """LEAST_CONNECTIONS over c1 and c2: with the connection counts ``arouter probe --save`` read over Jolokia
    (once they are the counts the broker's policy read last: connections come and go around a start),
    simulate gives the broker's pick for 1,000 keys; a tie is broken by the round-robin rule from some start
    position."""
    saved = tmp_path / "lc-targets.json"
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while True:
        mark = cluster.brokers[0].log_size()
        ours_counts = probe_lc(cluster, saved)
        # the policy reads each count every check-period (1 s); a probe takes longer than that
        if broker_counts(cluster, mark) == ours_counts:
            break
        assert time.monotonic() < deadline, (broker_counts(cluster, mark), ours_counts)
    own = cluster.brokers[0].node_id
    sample = keys("m1lc-")
    broker = [answer(t, own) for t in targets_of(cluster.jolokia(0), "b0", "lc", sample)]
    tries = {}
    for seed in range(2):
        ours = [simulated(r, own) for r in simulate_keys(cluster.config(0), "lc", sample, tmp_path, "--seed", str(seed),
                                                         "--targets", str(saved), "-D", "ordinal=0")]
        tries[seed] = mismatches(sample, broker, ours)
    assert min(len(found) for found in tries.values()) == 0, {k: v[:3] for k, v in tries.items()}
