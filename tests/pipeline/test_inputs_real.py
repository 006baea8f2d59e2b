"""analyze on the inputs people have (real local Spark): wide files with --key-column, Parquet
directories without extensions, ORC, --mode, CSV/Markdown summaries, workers started with arouter's
own Python, and a report that says what produced it — each compared with ``simulate --keys-file``."""

from __future__ import annotations

import csv
import json
import os
import random
import shutil
import stat
from collections import Counter
from pathlib import Path

import pytest

from tests.cli.helpers import arouter

pytestmark = pytest.mark.spark

ROUTER = "sticky-router"  # the bundled sample: CLIENT_ID, CONSISTENT_HASH over a static pool


@pytest.fixture(scope="module")
def need_spark() -> None:
    pytest.importorskip("pyspark")
    pytest.importorskip("pyarrow")
    from artemis_routing_cli.pipeline.session import java_available

    if not java_available():
        pytest.skip("Java is not installed")


def _ids(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [f"app-{rng.randrange(10**6)}" + rng.choice(["", "-x", "\u00e9"]) for _ in range(n)]


def _simulated_counts(tmp: Path, ids: list[str]) -> Counter[str]:
    plain = tmp / "plain.csv"
    with plain.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["client_id"])
        w.writerows([i] for i in ids)
    run = arouter("simulate", "-r", ROUTER, "--keys-file", str(plain), "-f", "jsonl")
    assert run.code == 0, run.err
    return Counter((r["target"] or r["status"]) for r in map(json.loads, run.out.splitlines()))


def _no_python3_on_path(tmp: Path) -> dict[str, str]:
    """A PATH whose python3 is not arouter's interpreter: PySpark's default worker would fail."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python3"
    fake.write_text("#!/bin/sh\necho 'not the python running arouter' >&2\nexit 1\n", encoding="utf-8")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    java = shutil.which("java")
    assert java is not None
    path = os.pathsep.join([str(bin_dir), str(Path(java).resolve().parent), "/usr/bin", "/bin"])
    env = {"PATH": path}
    env.pop("PYSPARK_PYTHON", None)
    return env


def test_wide_csv_with_key_column_on_pandas_workers_equals_simulate(need_spark, tmp_path: Path) -> None:
    ids = _ids(3000, 1)
    wide = tmp_path / "wide.csv"
    with wide.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "mqtt_client", "region"])
        w.writerows([n, i, "eu"] for n, i in enumerate(ids))
    report = tmp_path / "report.html"
    env = _no_python3_on_path(tmp_path)
    run = arouter("analyze", "--keys", str(wide), "-r", ROUTER, "--key-column", "CLIENT_ID=mqtt_client",
                  "--engine", "pandas", "-f", "csv", "--report", str(report), "--master", "local[1]",
                  env=env)
    assert run.code == 0, run.err
    rows = list(csv.DictReader(run.out.splitlines()))
    assert {r["router"] for r in rows} == {ROUTER}
    got = Counter({r["answer"]: int(r["keys"]) for r in rows})
    assert got == _simulated_counts(tmp_path, ids)
    assert "key columns: CLIENT_ID=mqtt_client" in run.err
    page = report.read_text(encoding="utf-8")
    from artemis_routing_cli import __version__

    for shown in (f"<dd>{__version__}</dd>", "<dt>config</dt>", "<dt>node ids</dt>", "<dt>date</dt>", "UTC"):
        assert shown in page


def test_parquet_directory_without_extensions_overwrite_and_markdown(need_spark, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    ids = _ids(2000, 2)
    d = tmp_path / "ids"
    d.mkdir()
    pq.write_table(pa.table({"client_id": ids[:1000]}), d / "part-00000")
    pq.write_table(pa.table({"client_id": ids[1000:]}), d / "part-00001")
    (d / "_SUCCESS").write_bytes(b"")
    out = tmp_path / "assignments"
    out.mkdir()
    (out / "stale.txt").write_text("old", encoding="utf-8")
    run = arouter("analyze", "--keys", str(d), "-r", ROUTER, "-f", "markdown", "--output", str(out),
                  "--mode", "overwrite", "--output-format", "csv", "--master", "local[1]")
    assert run.code == 0, run.err
    assert "keys: parquet, from the data files in the directory" in run.err
    assert run.out.startswith(f"### {ROUTER}\n")
    table = [line for line in run.out.splitlines() if line.startswith("| ") and not line.startswith("| answer")]
    got = Counter({line.split(" | ")[0][2:]: int(line.split(" | ")[1].replace(",", "")) for line in table})
    assert got == _simulated_counts(tmp_path, ids)
    assert not (out / "stale.txt").exists() and list(out.glob("*.csv"))


def test_orc_input(need_spark, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.orc as orc

    ids = _ids(500, 3)
    f = tmp_path / "keys.orc"
    orc.write_table(pa.table({"cid": ids, "n": list(range(500))}), f)
    run = arouter("analyze", "--keys", str(f), "-r", ROUTER, "--key-column", "CLIENT_ID=cid", "-f", "json",
                  "--master", "local[1]")
    assert run.code == 0, run.err
    (r,) = json.loads(run.out)["routers"]
    got = Counter({t["target"]: t["count"] for t in r["targets"]})
    got.update({s: n for s, n in r["refused"].items() if n})
    assert got == _simulated_counts(tmp_path, ids)


def test_bad_rows_are_counted_sampled_and_the_rest_routed(need_spark, tmp_path: Path) -> None:
    good = ["10.0.0.1", "[::1]:5000", "", "/10.1.2.3:9", "192.168.7.7"] * 40
    lines: list[bytes] = [g.encode() for g in good]
    lines.insert(1, b"FOO1")  # line 2: not an address for a SOURCE_IP router
    lines.insert(4, b"\xff\xfe10.0.0.9")  # line 5: not UTF-8
    keys = tmp_path / "ips.txt"
    keys.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "out"
    run = arouter("analyze", "--keys", str(keys), "-r", "simple-router", "-f", "json", "--output", str(out),
                  "--output-format", "csv", "--master", "local[1]")
    assert run.code == 1, run.err
    doc = json.loads(run.out)
    assert doc["bad_rows"] == 2
    assert [(s["line"], s["router"], s["error"][:20]) for s in doc["bad_row_samples"]] == [
        (2, "simple-router", "SOURCE_IP='FOO1': ex"), (5, None, "invalid UTF-8")]
    assert all(s["file"] == str(keys) for s in doc["bad_row_samples"])
    (r,) = doc["routers"]
    assert r["bad"] == 2 and r["total"] == len(good)
    plain = tmp_path / "good.txt"
    plain.write_text("".join(g + "\n" for g in good), encoding="utf-8")
    sim = arouter("simulate", "-r", "simple-router", "--keys-file", str(plain), "-f", "jsonl")
    assert sim.code == 0, sim.err
    expected = Counter((x["target"] or x["status"]) for x in map(json.loads, sim.out.splitlines()))
    got = Counter({t["target"]: t["count"] for t in r["targets"]})
    got.update({s: n for s, n in r["refused"].items() if n})
    assert got == expected
    written = [row for f in sorted(out.glob("*.csv")) for row in csv.DictReader(f.open(encoding="utf-8"))]
    assert {row["file"] for row in written} == {str(keys)}
    by_line = {int(row["line"]): row for row in written}
    assert sorted(by_line) == list(range(1, len(lines) + 1))
    assert by_line[2]["status"] == "BAD_KEY" and by_line[3]["key"] == "[::1]:5000"
    assert "2 bad row(s) were not routed" in run.err


def test_a_line_that_is_not_json_is_a_bad_row(need_spark, tmp_path: Path) -> None:
    keys = tmp_path / "k.jsonl"
    keys.write_text('{"client_id": "a"}\nnot json\n{"client_id": "b"}\n', encoding="utf-8")
    run = arouter("analyze", "--keys", str(keys), "-r", ROUTER, "-f", "json", "--master", "local[1]")
    assert run.code == 1, run.err
    doc = json.loads(run.out)
    assert doc["bad_rows"] == 1 and doc["routers"][0]["total"] == 2
    assert doc["bad_row_samples"] == [{"file": str(keys), "record": 2, "router": None,
                                       "error": "not a JSON object"}]


def test_a_cluster_with_executors_in_their_own_processes_gives_simulates_answers(need_spark, tmp_path: Path) -> None:
    """local-cluster[2,1,1024]: a master and two executors, each its own JVM with its own Python workers
    (the standalone deployment's processes, started by Spark for the test); per-key answers equal
    ``simulate --keys-file``, key by key."""
    ids = _ids(2000, 4)
    keys = tmp_path / "ids.txt"
    keys.write_text("".join(i + "\n" for i in ids), encoding="utf-8")
    out = tmp_path / "assignments"
    run = arouter("analyze", "--keys", str(keys), "-r", ROUTER, "--engine", "pandas", "--output", str(out),
                  "--output-format", "csv", "--master", "local-cluster[2,1,1024]", "-f", "json")
    assert run.code == 0, run.err
    rows = [row for f in sorted(out.glob("*.csv")) for row in csv.DictReader(f.open(encoding="utf-8"))]
    got = {int(r["line"]): (r["key"], r["status"], r["target"]) for r in rows}
    sim = arouter("simulate", "-r", ROUTER, "--keys-file", str(keys), "-f", "jsonl")
    assert sim.code == 0, sim.err
    expected = {n: (x["key"], x["status"], x["target"] or "")
                for n, x in enumerate(map(json.loads, sim.out.splitlines()), 1)}
    assert got == expected
