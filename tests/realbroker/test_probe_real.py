"""(4) ``arouter probe`` on real Artemis: the node ids, readiness and quorum it reports are the brokers' own;
a broker that stops is seen down by probe, by ``arouter serve``'s monitor and by the real router alike."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cli.helpers import arouter
from tests.real_clients import import_peer
from tests.realbroker.brokerxml import VICTIM, broker_xml, host_of
from tests.realbroker.clients import paho_mqtt5
from tests.realbroker.cluster import Cluster
from tests.realbroker.instances import ACTIVE, HANG_GUARD_SECONDS, Running, create, launch, wait_logged
from tests.realbroker.jolokia import broker_mbean, read, targets_of
from tests.realbroker.serving import Serve, start_serve


def probe(cluster: Cluster, router: str, *extra: str) -> dict:
    done = arouter("probe", "-c", str(cluster.config(0)), "-r", router, "--format", "json", "--timeout", "30",
                   "-D", "ordinal=0", *extra)
    assert done.code in (0, 1), done.out + done.err
    [pool] = json.loads(done.out)["pools"]
    return pool


def test_probe_reads_node_ids_readiness_and_quorum_as_the_brokers_report(cluster: Cluster) -> None:
    pool = probe(cluster, "ch", "--jolokia", cluster.jolokia_template())
    by_name = {t["name"]: t for t in pool["targets"]}
    for n in range(3):
        url = cluster.jolokia(n)
        assert by_name[f"c{n}"]["node_id"] == cluster.brokers[n].node_id == read(url, broker_mbean(f"b{n}"), "NodeID")
        assert by_name[f"c{n}"]["ready"] is read(url, broker_mbean(f"b{n}"), "Active") is True
    assert (pool["ready"], pool["quorum_size"], pool["active"]) == (3, 1, True)


@pytest.fixture
def victim(cluster: Cluster, tmp_path: Path) -> Iterator[Running]:
    """A broker outside the cluster that router ``vq`` of broker 0 pools (``cv``, first, quorum-size 2)."""
    folder = create(tmp_path / "victim", host_of(0), None)
    (folder / "etc" / "broker.xml").write_text(broker_xml(0, cluster.layout, victim=True), encoding="utf-8")
    running = launch(folder)
    try:
        assert wait_logged(running, ACTIVE), running.log_text()[-3000:]
        yield running
    finally:
        running.stop()


def wait_until(lines: Callable[[], list[str]], needle: str, what: str, writer: subprocess.Popen[bytes]) -> None:
    """Wait for ``needle`` in what ``lines()`` reads (the log ``writer`` writes), under the hang guard."""
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while time.monotonic() < deadline:
        if any(needle in line for line in lines()):
            return
        try:
            writer.wait(0.2)  # paced by the writer: it must not end meanwhile
        except subprocess.TimeoutExpired:
            continue
        raise AssertionError(f"the process ended before it logged: {what}")
    raise AssertionError(f"never logged: {what}")


def broker_pick(cluster: Cluster) -> str | None:
    [target] = targets_of(cluster.jolokia(0), "b0", "vq", ["m4-key"])
    return None if target is None else target["nodeID"]


def serve_answer(served: Serve) -> tuple[int, str | None]:
    import_peer("paho.mqtt.client", "paho-mqtt")
    return paho_mqtt5("127.0.0.1", served.port, "m4-key")


def test_a_stopped_broker_is_down_for_probe_serve_and_the_broker_alike(cluster: Cluster, victim: Running,
                                                                        targets: Path, tmp_path: Path) -> None:
    b0 = cluster.brokers[0]
    mark = b0.log_size()
    wait_until(lambda: b0.log_since(mark), "(name=cv, ", "broker 0 checking the victim", b0.proc)
    wait_until(lambda: [x for x in b0.log_since(mark) if "(name=cv, " in x and x.endswith("is ready")], "is ready",
               "broker 0 seeing the victim ready", b0.proc)
    served = start_serve(cluster.config(0), "vq", tmp_path, "--targets", str(targets), "-D", "ordinal=0")
    try:
        wait_until(lambda: served.text().splitlines(), "target cv is ready", "serve's monitor seeing cv ready",
                   served.proc)
        pool = probe(cluster, "vq")
        cv = next(t for t in pool["targets"] if t["name"] == "cv")
        assert (cv["ready"], cv["node_id"], pool["active"]) == (True, victim.node_id, True)
        assert broker_pick(cluster) == victim.node_id
        assert serve_answer(served) == (0x9C, f"{host_of(0)}:{cluster.layout.port(VICTIM)}")

        mark = b0.log_size()
        victim.stop()
        wait_until(lambda: b0.log_since(mark), "Error monitoring ActiveMQTarget [connector=TransportConfiguration"
                                               "(name=cv,", "broker 0 seeing the victim down", b0.proc)
        wait_until(lambda: served.text().splitlines(), "target cv is not ready", "serve's monitor seeing cv down",
                   served.proc)
        pool = probe(cluster, "vq")
        cv = next(t for t in pool["targets"] if t["name"] == "cv")
        assert (cv["ready"], pool["ready"], pool["active"]) == (False, 1, False)  # quorum-size 2 not met
        assert broker_pick(cluster) is None
        assert serve_answer(served) == (0x88, None)  # server unavailable: the router is not ready
    finally:
        served.stop()

