"""--max-errors over several input files (real local Spark, in process): the run stops at the
(N+1)-th bad row in input order (files by name, then lines) however Spark orders its reads (it reads
the largest file first), the summary's counts are those of the rows up to there, and with N or fewer
bad rows every key is routed once."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.spark


def _write(path: Path, n: int, bad: set[int]) -> None:
    path.write_text("".join((f"junk-{i}" if i in bad else f"10.1.{i // 200}.{i % 200}") + "\n"
                            for i in range(1, n + 1)), encoding="utf-8")


def test_max_errors_counts_in_input_order_and_routes_once(spark, tmp_path: Path, monkeypatch) -> None:
    from artemis_routing_cli.pipeline import run as run_module
    from tests.pipeline.test_source_ip_jvm import _named

    keys = tmp_path / "keys"
    keys.mkdir()
    # a.txt is small and read last by Spark; b.txt is the largest, read first; c.txt has no bad row
    _write(keys / "a.txt", 40, {5, 17})
    _write(keys / "b.txt", 600, {3, 50, 51, 400})
    _write(keys / "c.txt", 100, set())
    routings: list[int] = []
    real = run_module.assign

    def counted(frame, *args, **kwargs):  # noqa: ANN001, ANN202
        routings.append(1)
        return real(frame, *args, **kwargs)

    monkeypatch.setattr(run_module, "assign", counted)

    def summary(n: int) -> dict[str, object]:
        routings.clear()
        return run_module.analyze(spark, [_named("simple-router")], str(keys), max_errors=n, engine="jvm")

    # the 3rd bad row in input order is b.txt line 3: a.txt (40 rows) and b.txt's first 3 are read
    doc = summary(2)
    assert (doc["stopped_early"], doc["bad_rows"], doc["rows_read"]) == (True, 3, 43)
    assert [(Path(str(s["file"])).name, s["line"]) for s in doc["bad_row_samples"]] == [
        ("a.txt", 5), ("a.txt", 17), ("b.txt", 3)]
    # no more bad rows than allowed: the whole input, each key routed once (one routing, cached)
    monkeypatch.setattr(run_module, "count_answers", lambda *a, **k: pytest.fail("routed a second time"))
    doc = summary(6)
    assert (doc["stopped_early"], doc["bad_rows"], doc["rows_read"]) == (False, 6, 740)
    assert len(routings) == 1
    (r,) = doc["routers"]
    assert r["total"] == 734
