"""The suite's order (tests/schedule.py): long tests dealt to the xdist workers' first chunks."""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.schedule import SHARED_START, SHARED_TEST, SPARK_RUN, order


@dataclass
class Item:
    """What the order reads of a pytest item."""

    nodeid: str
    fixturenames: list[str] = field(default_factory=list)
    spark: bool = False

    def get_closest_marker(self, name: str) -> object | None:
        return object() if name == "spark" and self.spark else None

    def function(self) -> None:
        """Runs the CLI once: ``"analyze"``."""


def _items() -> list[Item]:
    fast = [Item(f"tests/a.py::test_{n}") for n in range(200)]
    cli = [Item(f"tests/pipeline/test_b.py::test_{n}", spark=True) for n in range(3)]
    shared = [Item(f"tests/pipeline/test_c.py::test_{n}", ["spark", "tmp_path"]) for n in range(8)]
    return fast[:10] + cli[:1] + fast[10:30] + shared + cli[1:] + fast[30:]


def test_long_tests_lead_each_workers_first_chunk_and_the_rest_keep_their_order() -> None:
    items = _items()
    before = list(items)
    order(items, 2)  # type: ignore[arg-type]
    assert sorted(i.nodeid for i in items) == sorted(i.nodeid for i in before)  # nothing lost or doubled
    chunk = len(items) // 2 // 4  # xdist's first chunk per worker
    first, second = items[:chunk], items[chunk:2 * chunk]
    shared = [i for i in before if "spark" in i.fixturenames]
    # the tests on the session's one JVM stay on one worker; the CLI runs balance the other
    assert first[:len(shared)] == shared
    assert SHARED_START + len(shared) * SHARED_TEST > 2 * SPARK_RUN
    assert [i.nodeid for i in second[:3]] == [f"tests/pipeline/test_b.py::test_{n}" for n in range(3)]
    fast = [i for i in items if not i.spark and not i.fixturenames]
    assert fast == [i for i in before if not i.spark and not i.fixturenames]


def test_without_workers_the_long_tests_come_first() -> None:
    items = _items()
    order(items, 1)  # type: ignore[arg-type]
    assert all(i.spark or i.fixturenames for i in items[:11]) and not any(i.spark for i in items[11:])
