"""The order the suite runs in: long tests (a Spark JVM, a local cluster, a browser) first, dealt
evenly to the xdist workers, so that no worker is left alone with a queue of them at the end.

pytest-xdist's ``load`` scheduling (``-n N``) sends each worker a first chunk of consecutive tests
(a quarter of its share), then smaller chunks as they finish. Tests met late in that order are the
tail: a worker that took a few Spark tests in its last chunk runs them while the others have
nothing left. Here the long tests are put at the front of each worker's first chunk, balanced by
their estimated cost; tests sharing one JVM fixture (the session's ``spark``, a module's Spark
Connect ``server``) stay together so that one worker starts that JVM once. Every worker orders the
same collection the same way (xdist requires it). Without xdist the long tests simply come first.
"""

from __future__ import annotations

import inspect
import itertools
from dataclasses import dataclass, field

import pytest

# Rough seconds of one start of each kind (a quiet 2-core machine): only the order uses them.
SPARK_RUN = 15.0  # a CLI subprocess that starts local Spark (analyze, diff --keys, spark-submit)
LOCAL_CLUSTER = 30.0  # a local-cluster master, worker and executors on top of that
SHARED_START = 15.0  # the one start of a JVM fixture shared by its tests
SHARED_TEST = 2.0  # a test on a JVM that is already up

# Fixtures that hold a JVM for their scope: the tests using one form one group (``cluster``: the
# real Artemis brokers of tests/realbroker, one start per worker that runs its tests).
SHARED_JVM = {"spark": "session", "server": "module", "cluster": "session"}

# Other long tests (measured, seconds, a quiet 2-core machine), by node id prefix.
KNOWN: dict[str, float] = {}


@dataclass
class Group:
    key: str
    cost: float = 0.0
    items: list[pytest.Item] = field(default_factory=list)


def _source(item: pytest.Item) -> str:
    fn = getattr(item, "function", None)
    if fn is None:
        return ""
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return ""


def _readme_cost(item: pytest.Item) -> float:
    callspec = getattr(item, "callspec", None)
    block = callspec.params.get("block") if callspec is not None else None
    if not block or not any(ex.has("spark") for ex in block):
        return 0.0
    return SPARK_RUN * sum(1 for ex in block if "arouter analyze" in ex.command or "spark-submit" in ex.command)


def cost(item: pytest.Item) -> tuple[str, float]:
    """The item's group key and its estimated seconds (0: not a long test)."""
    for name, scope in SHARED_JVM.items():
        if name in item.fixturenames and (scope == "session" or item.get_closest_marker("spark") is not None):
            key = f"{name}-session" if scope == "session" else f"{item.nodeid.split('::')[0]}::{name}"
            return key, SHARED_TEST
    for prefix, seconds in KNOWN.items():
        if item.nodeid.startswith(prefix):
            return item.nodeid, seconds
    if item.nodeid.startswith("tests/test_readme_examples.py::test_readme_block"):
        return item.nodeid, _readme_cost(item)
    if item.get_closest_marker("spark") is None:
        return item.nodeid, 0.0
    src = _source(item)
    runs = max(1, src.count('"analyze"') + src.count('"diff"') + src.count("spark-submit"))
    return item.nodeid, SPARK_RUN * runs + LOCAL_CLUSTER * src.count("local-cluster[")


def order(items: list[pytest.Item], workers: int) -> None:
    """Reorder ``items`` in place: the long ones dealt to ``workers`` first chunks, the rest after."""
    groups: dict[str, Group] = {}
    rest: list[pytest.Item] = []
    for item in items:
        key, seconds = cost(item)
        if seconds <= 0:
            rest.append(item)
            continue
        group = groups.setdefault(key, Group(key, SHARED_START if key != item.nodeid else 0.0))
        group.cost += seconds
        group.items.append(item)
    if not groups:
        return
    heavy = sorted(groups.values(), key=lambda g: -g.cost)  # stable: equal costs keep collection order
    workers = max(1, workers)
    dealt: list[list[pytest.Item]] = [[] for _ in range(workers)]
    load = [0.0] * workers
    for group in heavy:  # longest first, each to the least loaded worker
        w = load.index(min(load))
        dealt[w].extend(group.items)
        load[w] += group.cost
    # xdist's first chunk per worker: a quarter of its share of the collection
    chunk = max(2, len(items) // workers // 4)
    if workers == 1 or any(len(d) > chunk for d in dealt):
        items[:] = [i for d in dealt for i in d] + rest
        return
    laid: list[pytest.Item] = []
    fill = iter(rest)
    for d in dealt:
        laid.extend(d)
        laid.extend(itertools.islice(fill, chunk - len(d)))
    laid.extend(fill)
    items[:] = laid
