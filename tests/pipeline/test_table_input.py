"""analyze's inputs beyond a path (real local Spark): a table of a real Hive metastore written by
Spark (--keys-table) filtered by --where, the input's own id column as ``row`` (--id-column), and
--max-errors stopping a run — each compared with ``simulate --keys-file``."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from tests.cli.helpers import REPO, Run
from tests.pipeline.cli_run import TIMEOUT, arouter_spark

pytestmark = pytest.mark.spark

ROUTER = "sticky-router"  # the bundled sample: CLIENT_ID, CONSISTENT_HASH over a static pool


@pytest.fixture(scope="module")
def need_spark() -> None:
    pytest.importorskip("pyspark")
    from artemis_routing_cli.pipeline.session import java_available

    if not java_available():
        pytest.skip("Java is not installed")


def _arouter(*args: str, cwd: Path) -> Run:
    return arouter_spark(*args, cwd=cwd)


def _metastore(tmp: Path) -> list[str]:
    """--conf items of a Hive metastore (embedded Derby) and warehouse in ``tmp``."""
    return ["spark.sql.catalogImplementation=hive", f"spark.sql.warehouse.dir={tmp / 'warehouse'}",
            f"spark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName={tmp / 'metastore_db'};create=true"]


def _simulated(tmp: Path, ids: list[str]) -> list[dict[str, object]]:
    plain = tmp / "plain.csv"
    with plain.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["client_id"])
        w.writerows([i] for i in ids)
    run = _arouter("simulate", "-r", ROUTER, "--keys-file", str(plain), "-f", "jsonl", cwd=tmp)
    assert run.code == 0, run.err
    return [json.loads(x) for x in run.out.splitlines()]


def _written(out: Path) -> list[dict[str, str]]:
    return [row for f in sorted(out.glob("*.csv")) for row in csv.DictReader(f.open(encoding="utf-8"))]


def test_keys_table_from_a_hive_metastore_with_where_equals_simulate(need_spark, tmp_path: Path) -> None:
    rows = [(f"app-{n}", "eu" if n % 3 else "us", n) for n in range(600)]
    (tmp_path / "rows.json").write_text(json.dumps(rows), encoding="utf-8")
    # The table is written by Spark itself, in its own process, with the session the CLI uses.
    script = textwrap.dedent(f"""
        import json
        from artemis_routing_cli.pipeline.session import start_session
        conf = dict(item.split("=", 1) for item in {_metastore(tmp_path)!r})
        spark = start_session("local[1]", conf)
        rows = json.load(open("rows.json", encoding="utf-8"))
        spark.sql("CREATE DATABASE IF NOT EXISTS fleet")
        spark.createDataFrame(rows, "client_id string, region string, n int").write.saveAsTable("fleet.conns")
        spark.stop()
    """)
    made = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=TIMEOUT, env={**os.environ, "PYTHONPATH": str(REPO)}, check=False)
    assert made.returncode == 0, made.stderr
    conf = [a for c in _metastore(tmp_path) for a in ("--conf", c)]
    out = tmp_path / "out"
    run = _arouter("analyze", "--keys-table", "fleet.conns", "--where", "region = 'eu' AND n >= 30",
                   "--key-column", "CLIENT_ID=client_id", "--id-column", "n", "-r", ROUTER, "-f", "json",
                   "--output", str(out), "--output-format", "csv", "--master", "local[1]", *conf, cwd=tmp_path)
    assert run.code == 0, run.err
    assert "keys: the table fleet.conns (Spark catalog), rows where region = 'eu' AND n >= 30" in run.err
    kept = [r for r in rows if r[1] == "eu" and r[2] >= 30]
    want = {str(n): s for (_, _, n), s in zip(kept, _simulated(tmp_path, [r[0] for r in kept]), strict=True)}
    got = {r["row"]: r for r in _written(out)}
    assert sorted(got) == sorted(want)
    for n, w in want.items():
        assert (got[n]["key"], got[n]["target"], got[n]["node_id"]) == (w["key"], w["target"], w["node_id"])
    (r,) = json.loads(run.out)["routers"]
    assert r["total"] == len(kept)

    missing = _arouter("analyze", "--keys-table", "fleet.nope", "-r", ROUTER, "--master", "local[1]", *conf,
                       cwd=tmp_path)
    assert missing.code == 2
    assert missing.err.strip().splitlines()[-1] == ("arouter: --keys-table 'fleet.nope': no such table in the "
                                                    "Spark catalog (hive; a Hive metastore needs --conf "
                                                    "spark.sql.catalogImplementation=hive)")
    assert "Traceback" not in missing.err


def test_table_name_and_input_choice_are_checked_before_spark(tmp_path: Path) -> None:
    for args, said in [
        (("--keys-table", "fleet.conns; drop"), "--keys-table 'fleet.conns; drop': expected a table name"),
        (("--keys-table", "a.b", "--keys", "x.txt"), "give the keys with --keys PATH or --keys-table db.table"),
        ((), "give the keys with --keys PATH or --keys-table db.table"),
        (("--keys-table", "a.b", "--keys-format", "csv"), "--keys-format csv is for files"),
        (("--keys", str(REPO / "README.md"), "--id-column", "id"), "--id-column needs an input with columns"),
    ]:
        run = _arouter("analyze", *args, "-r", ROUTER, cwd=tmp_path)
        assert run.code == 2, (args, run.err)
        assert said in run.err, run.err
        assert "Spark workers run" not in run.err  # refused before Spark


def test_where_and_id_column_on_a_file_with_bad_rows(need_spark, tmp_path: Path) -> None:
    recs = [{"id": f"c{n}", "client_id": f"app-{n}", "source_ip": "10.0.0.1" if n != 7 else "not-an-ip",
             "region": "eu" if n % 2 else "us"} for n in range(200)]
    keys = tmp_path / "conns.jsonl"
    keys.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    out = tmp_path / "out"
    run = _arouter("analyze", "--keys", str(keys), "--where", "region = 'eu'", "--id-column", "id", "-r", ROUTER,
                   "--key-column", "CLIENT_ID=client_id", "--key-column", "SOURCE_IP=source_ip",
                   "-f", "json", "--output", str(out), "--output-format", "csv", "--master", "local[1]",
                   cwd=tmp_path)
    assert run.code == 1, run.err  # c7 is a bad row
    doc = json.loads(run.out)
    assert doc["bad_rows"] == 1
    assert doc["bad_row_samples"][0]["row"] == "c7" and "not-an-ip" in doc["bad_row_samples"][0]["error"]
    kept = [r for r in recs if r["region"] == "eu" and r["id"] != "c7"]
    sim = _simulated(tmp_path, [r["client_id"] for r in kept])
    written = {r["row"]: r for r in _written(out)}
    assert sorted(written) == sorted(r["id"] for r in recs if r["region"] == "eu")
    assert written["c7"]["status"] == "BAD_KEY"
    for rec, want in zip(kept, sim, strict=True):
        assert (written[rec["id"]]["key"], written[rec["id"]]["target"]) == (want["key"], want["target"])

    bad = _arouter("analyze", "--keys", str(keys), "--where", "region = ", "-r", ROUTER, "--master", "local[1]",
                   "--key-column", "CLIENT_ID=client_id", cwd=tmp_path)
    assert bad.code == 2
    (line,) = [x for x in bad.err.splitlines() if x.startswith("arouter: --where")]
    assert line.startswith("arouter: --where 'region = ': ") and "Traceback" not in bad.err


def test_max_errors_stops_early_and_says_how_far_it_read(need_spark, tmp_path: Path) -> None:
    lines = [f"10.0.{n // 250}.{n % 250}" if n % 10 != 9 else f"junk-{n}" for n in range(1000)]
    keys = tmp_path / "ips.txt"
    keys.write_text("".join(v + "\n" for v in lines), encoding="utf-8")
    run = _arouter("analyze", "--keys", str(keys), "-r", "simple-router", "--max-errors", "2", "-f", "json",
                   "--master", "local[1]", cwd=tmp_path)
    assert run.code == 1, run.err
    doc = json.loads(run.out)
    # lines 10, 20 and 30 are bad: the run stops at line 30, the third
    assert (doc["stopped_early"], doc["rows_read"], doc["bad_rows"], doc["max_errors"]) == (True, 30, 3, 2)
    assert [s["line"] for s in doc["bad_row_samples"]] == [10, 20, 30]
    (r,) = doc["routers"]
    assert r["total"] == 27 and Counter({t["target"]: t["count"] for t in r["targets"]}).total() == 27
    assert ("stopped early: more than 2 bad row(s) (--max-errors); the figures cover the 30 row(s) read up to there"
            in run.err)
    whole = _arouter("analyze", "--keys", str(keys), "-r", "simple-router", "--max-errors", "100", "-f", "json",
                     "--master", "local[1]", cwd=tmp_path)
    assert whole.code == 1
    doc = json.loads(whole.out)
    assert (doc["stopped_early"], doc["rows_read"], doc["bad_rows"]) == (False, 1000, 100)
