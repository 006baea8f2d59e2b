"""One real Artemis cluster for every realbroker test of the run (they share one xdist group, so one
worker runs them all against it); stopped at the end of the session whatever happens."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.realbroker.cluster import Cluster, probe_save, save_route_logs, start_cluster


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.realbroker)
            item.add_marker(pytest.mark.xdist_group("realbroker"))


#: Set to a folder (e.g. tests/data/broker-logs/2.40.0) to keep the brokers' route lines of this run there.
SAVE_LOGS = "AROUTER_SAVE_BROKER_LOGS"


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    started = start_cluster(tmp_path_factory.mktemp("artemis-cluster"))
    try:
        yield started
    finally:
        started.stop()
        if os.environ.get(SAVE_LOGS):
            save_route_logs(started, Path(os.environ[SAVE_LOGS]))


@pytest.fixture(scope="session")
def targets(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """broker 0's pool targets as ``arouter probe --save`` reads them from the running brokers."""
    path = tmp_path_factory.mktemp("targets") / "targets.json"
    probe_save(cluster, path)
    return path
