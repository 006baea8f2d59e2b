"""The real cluster the realbroker tests share: three Artemis brokers on 127.0.0.1-3 (broker.xml from
tests/realbroker/brokerxml.py), started once per test run and stopped at its end whatever happens."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tests.cli.helpers import arouter
from tests.realbroker.brokerxml import MAIN, WEB, Layout, broker_xml, host_of
from tests.realbroker.instances import (
    ACTIVE,
    HANG_GUARD_SECONDS,
    WEB_STARTED,
    Running,
    create,
    enable_router_debug,
    launch,
    port_block,
    wait_logged,
)
from tests.realbroker.jolokia import broker_mbean, read


@dataclass
class Cluster:
    """Three running brokers; broker 0 carries the pooled routers."""

    folder: Path
    layout: Layout
    brokers: list[Running] = field(default_factory=list)

    def host(self, index: int) -> str:
        return host_of(index)

    def config(self, index: int = 0) -> Path:
        return self.folder / f"b{index}" / "etc" / "broker.xml"

    def jolokia(self, index: int) -> str:
        return f"http://{host_of(index)}:{self.layout.port(WEB)}/console/jolokia"

    def jolokia_template(self) -> str:
        return f"http://{{host}}:{self.layout.port(WEB)}/console/jolokia"

    def main_port(self) -> int:
        return self.layout.port(MAIN)

    def stop(self) -> None:
        for broker in self.brokers:
            broker.stop()


def start_cluster(folder: Path, count: int = 3, router_debug: bool = True) -> Cluster:
    """Create and start ``count`` brokers in ``folder``; on any failure the started ones are stopped.
    ``router_debug``: broker 0 logs its routers' DEBUG lines (the tests wait on them; a bench does not)."""
    hosts = [host_of(n) for n in range(count)]
    # the block is free on one more address: the broker configured by properties only (PROPERTIES_INDEX)
    layout = Layout(port_block([*hosts, host_of(count)]), count)
    cluster = Cluster(folder, layout)

    def make(index: int) -> Path:
        instance = create(folder / f"b{index}", hosts[index], layout.port(WEB))
        (instance / "etc" / "broker.xml").write_text(broker_xml(index, layout), encoding="utf-8")
        if index == 0 and router_debug:
            enable_router_debug(instance)
        return instance

    with ThreadPoolExecutor(count) as pool:
        instances = list(pool.map(make, range(count)))
    try:
        for index, instance in enumerate(instances):
            cluster.brokers.append(launch(instance, java_args=f"-Dordinal={index}"))
        for broker in cluster.brokers:
            if not wait_logged(broker, ACTIVE, WEB_STARTED):
                raise RuntimeError(f"a broker of the cluster did not start:\n{broker.log_text()[-3000:]}")
        if router_debug:
            wait_pools_ready(cluster.brokers[0])
        for index in range(count):  # Jolokia starts lazily: its first answer can take seconds
            read(cluster.jolokia(index), broker_mbean(f"b{index}"), "Active")
    except BaseException:
        cluster.stop()
        raise
    return cluster


#: How many of broker 0's pools hold each connector (brokerxml.routers_xml).
POOLS_OF = {"c0": 2, "c1": 6, "c2": 5}


def wait_pools_ready(broker: Running) -> None:
    """Wait until broker 0's router log (DEBUG) says every pool target is ready: for each connector, twice
    as many "is ready" lines as pools hold it since its last "Error monitoring" (targets that started
    later than broker 0 are first seen down)."""
    log = broker.folder / "log" / "artemis.log"
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while time.monotonic() < deadline:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
        if all(_ready_since_error(lines, name) >= 2 * pools for name, pools in POOLS_OF.items()):
            return
        try:
            broker.proc.wait(0.2)  # paced by the broker's check-period; it must not end meanwhile
        except subprocess.TimeoutExpired:
            continue
        raise RuntimeError(f"broker 0 ended:\n{broker.log_text()[-3000:]}")
    raise RuntimeError("broker 0's pools never became ready")


def _ready_since_error(lines: list[str], connector: str) -> int:
    mark = f"(name={connector}, "
    count = 0
    for line in lines:
        if mark not in line or "TargetMonitor" not in line:
            continue
        if "Error monitoring" in line:
            count = 0
        elif line.endswith("is ready"):
            count += 1
    return count


def probe_save(cluster: Cluster, targets: Path) -> dict:
    """``arouter probe --save`` against broker 0's pools: the node ids as the running brokers say them."""
    done = arouter("probe", "-c", str(cluster.config(0)), "--jolokia", cluster.jolokia_template(),
                   "--save", str(targets), "--format", "json", "--timeout", "30",
                   "--local", f"tcp://{cluster.host(0)}:{cluster.main_port()}")
    # exit 1: a pool short of its quorum (router vq, whose victim broker runs only in its own test)
    assert done.code in (0, 1) and targets.is_file(), done.out + done.err
    return json.loads(done.out)


def main() -> None:
    """By hand: start a cluster in the folder given, print where it listens, stop on Enter."""
    folder = Path(sys.argv[1])
    shutil.rmtree(folder, ignore_errors=True)
    cluster = start_cluster(folder)
    try:
        print(json.dumps({"base": cluster.layout.base, "nodes": [b.node_id for b in cluster.brokers]}))
        input()
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()


ROUTE_LINES = ("AMQ221085", "AMQ221086")
#: The router's DEBUG loggers whose lines tell one connection's decision (TargetMonitor's checks left out).
DECISION_LOGGERS = ("routing.KeyResolver]", "routing.ConnectionRouter]", "routing.pools.", "routing.policies.",
                    "routing.caches.")


def route_records(lines: list[str]) -> list[str]:
    """Each route line (AMQ221085/AMQ221086) with the router DEBUG lines of its decision just before it
    (from the key resolved on), blocks separated by an empty line; management calls' lines left out."""
    out: list[str] = []
    pending: list[str] = []
    for line in lines:
        if any(mark in line for mark in ROUTE_LINES):
            out.extend([*pending, line, ""])
            pending = []
        elif " DEBUG " in line and any(name in line for name in DECISION_LOGGERS):
            if "routing.KeyResolver]" in line:
                pending = []
            pending.append(line)
    return out


def save_route_logs(cluster: Cluster, dest: Path) -> None:
    """Write broker N's route records to ``dest/bN-routes.log`` (the future ``replay`` command's data)."""
    dest.mkdir(parents=True, exist_ok=True)
    for index, broker in enumerate(cluster.brokers):
        records = route_records(broker.log_since(0))
        if records:
            (dest / f"b{index}-routes.log").write_text("\n".join(records) + "\n", encoding="utf-8")
