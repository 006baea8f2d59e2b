"""``arouter analyze`` on local Spark gives the engine's answers, key for key (artemis-facts §2)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from artemis_routing_cli.config import load
from artemis_routing_cli.routing.batch import route_batch
from artemis_routing_cli.routing.targets import TargetState
from tests.conftest import broker_xml

pytestmark = pytest.mark.spark

CONNECTORS = "<connectors>" + "".join(
    f'<connector name="c{i}">tcp://h{i}:61616</connector>' for i in range(1, 7)) + "</connectors>"
STATIC = "<static-connectors>" + "".join(f"<connector-ref>c{i}</connector-ref>" for i in range(1, 6)) \
    + "</static-connectors>"
ROUTERS = f"""
<connection-routers>
  <connection-router name="hash-filtered">
    <key-type>CLIENT_ID</key-type><key-filter>[^-]+</key-filter><local-target-filter>FOO.*</local-target-filter>
    <policy name="CONSISTENT_HASH"/>
    <pool><local-target-enabled>true</local-target-enabled>{STATIC}</pool>
  </connection-router>
  <connection-router name="shard">
    <key-type>CLIENT_ID</key-type><local-target-filter>^0$</local-target-filter>
    <policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="3"/></policy>
  </connection-router>
  <connection-router name="shard-pool">
    <key-type>USER_NAME</key-type><key-filter>^\\p{{L}}+</key-filter><local-target-filter>1|2</local-target-filter>
    <policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="5"/></policy>
    <pool>{STATIC}</pool>
  </connection-router>
  <connection-router name="first"><key-type>SNI_HOST</key-type><policy name="FIRST_ELEMENT"/>
    <pool><quorum-size>2</quorum-size>{STATIC}</pool></connection-router>
  <connection-router name="rr"><key-type>CLIENT_ID</key-type><local-target-filter>FOO</local-target-filter>
    <policy name="ROUND_ROBIN"/><pool>{STATIC}</pool></connection-router>
  <connection-router name="least"><key-type>ROLE_NAME</key-type><key-filter>a.</key-filter>
    <policy name="LEAST_CONNECTIONS"/><pool>{STATIC}</pool></connection-router>
  <connection-router name="sticky"><key-type>CLIENT_ID</key-type><cache><timeout>0</timeout></cache>
    <policy name="CONSISTENT_HASH"/><pool>{STATIC}</pool></connection-router>
  <connection-router name="partition"><key-type>CLIENT_ID</key-type><key-filter>^.{{3}}</key-filter>
    <local-target-filter>^FOO.*</local-target-filter></connection-router>
  <connection-router name="empty-match"><key-type>CLIENT_ID</key-type><key-filter>a*</key-filter>
    <local-target-filter>(?x) FOO \\d+ # free-spacing, with a comment</local-target-filter>
    <policy name="CONSISTENT_HASH"/>
    <pool><static-connectors><connector-ref>c5</connector-ref><connector-ref>c6</connector-ref>
      <connector-ref>c1</connector-ref><connector-ref>c3</connector-ref></static-connectors></pool>
  </connection-router>
  <connection-router name="no-quorum"><key-type>USER_NAME</key-type><local-target-filter>FOO\\d+</local-target-filter>
    <policy name="FIRST_ELEMENT"/><pool><quorum-size>5</quorum-size>{STATIC}</pool></connection-router>
  <!-- an SNI name from a raw client is its UTF-8 bytes read as Latin-1: an emoji is F0 9F 98/99 xx -->
  <connection-router name="emoji"><key-type>SNI_HOST</key-type>
    <key-filter>[\\x{{1F600}}-\\x{{1F64F}}]+|\\p{{IsHan}}|(?i)i\\d|\u00f0\\x{{9F}}[\\x{{98}}\\x{{99}}].</key-filter><local-target-filter>[0-3]</local-target-filter>
    <policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="7"/></policy>
    <pool><local-target-enabled>true</local-target-enabled>{STATIC}</pool>
  </connection-router>
</connection-routers>"""
# c6 shares c5's node id: one ring point, the later target wins (empty-match)
NODE_IDS = ["c1=7f1b3c2e-0001", "c2=9a8d-0002", "c3=node-\u00e9-3", "c4=\U0001F600-4", "c5=z5", "c6=z5"]
PIECES = ["FOO", "foo", "a", "\u00e9", "\u4e2d", "\U0001F600", "\U0001F4A9", "-", ",", "0", "7", "x y", "\r",
          "$.artemis.internal.router.client.", "NULL", "ab", "\u0130"]


def write_keys(path: Path, n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    keys = ["".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 8))) + str(rng.randrange(10_000))
            if rng.random() > 0.02 else "" for _ in range(n)]
    path.write_text("".join(k + "\n" for k in keys), encoding="utf-8")
    return keys


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    d = tmp_path_factory.mktemp("analyze")
    cfg_path = d / "broker.xml"
    cfg_path.write_text(broker_xml(CONNECTORS + ROUTERS), encoding="utf-8")
    keys_path = d / "keys.txt"
    write_keys(keys_path, 100_000, seed=3)
    return d, cfg_path, keys_path


def engine_state() -> TargetState:
    from artemis_routing_cli.routing.targets import state_from_options

    return state_from_options(NODE_IDS, ["c2"], ["c1=3", "c3=3", "c4=10"])


# The routers each engine routes (every other one goes to pandas whatever the engine).
ON_JVM = {"hash-filtered", "shard", "shard-pool", "first", "sticky", "partition", "empty-match", "no-quorum",
          "emoji"}


@pytest.fixture(scope="module")
def simulated(setup) -> list[dict]:
    from artemis_routing_cli.cli.simulate_batch import run_batch

    d, cfg_path, keys_path = setup
    out = d / "simulated.jsonl"
    # SNI names as a raw client sends them: any text is one, and Spark SQL routes them (a Java client's
    # IDN names go to Python; tests/routing/test_sni_java.py holds those against the JDK)
    run_batch(load(str(cfg_path)), engine_state(), None, str(keys_path), str(out), "jsonl", 12345, False,
              key_options=("raw", None))
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("engine", ["jvm", "pandas"])
def test_per_key_assignments_equal_simulate_keys_file(spark, setup, simulated, engine) -> None:
    from artemis_routing_cli.pipeline.assign import assign, plan
    from artemis_routing_cli.pipeline.inputs import read_keys
    from artemis_routing_cli.pipeline.run import assignments, build_jobs
    from artemis_routing_cli.routing.selection import select_routers

    d, cfg_path, keys_path = setup
    expected = simulated
    routers = select_routers(load(str(cfg_path)), engine_state(), None, 12345)
    for r in routers:
        r.sni_encoding = "raw"
    jobs = build_jobs(routers, [])
    keys = read_keys(spark, str(keys_path))
    engines = plan(jobs, keys.columns, engine == "jvm")
    assert {r.name for r, e in zip(routers, engines, strict=True) if e == "jvm"} == (
        ON_JVM if engine == "jvm" else set())
    assigned = assign(keys, jobs, engine=engine).persist()  # routed once, not once per router
    got = assignments(assigned, jobs).toPandas()
    assigned.unpersist()
    order = {r.name: i for i, r in enumerate(routers)}
    got["_r"] = got["router"].map(order)
    got = got.sort_values(["_r", "row"], kind="stable")
    cols = ["router", "key", "key_value", "status", "target", "node_id", "local"]
    actual = [dict(zip(cols, row, strict=True)) for row in got[cols].itertuples(index=False, name=None)]
    assert len(actual) == len(expected) == 100_000 * len(routers)
    for a, e in zip(actual, expected, strict=True):
        e = {k: e[k] for k in cols}
        a = {k: (None if a[k] is None or a[k] != a[k] else a[k]) for k in cols}
        a["local"] = bool(a["local"])
        assert a == e
    answers = {(r["router"], r["status"], r["local"]) for r in expected}
    # every kind of answer occurs, so the equality covers them all
    assert {("shard", "OK", True), ("shard", "REFUSED_USE_ANOTHER", False),
            ("shard-pool", "REFUSED_UNAVAILABLE", False), ("shard-pool", "OK", True), ("first", "OK", False),
            ("partition", "REFUSED_USE_ANOTHER", False), ("hash-filtered", "OK", True),
            ("empty-match", "OK", True), ("empty-match", "OK", False), ("no-quorum", "REFUSED_UNAVAILABLE", False),
            ("no-quorum", "OK", True), ("emoji", "OK", True), ("emoji", "REFUSED_UNAVAILABLE", False)} <= answers
    keys_seen = {(r["router"], r["key_value"]) for r in expected}
    assert ("empty-match", "") in keys_seen and ("hash-filtered", "NULL") in keys_seen
    assert any(r["router"] == "hash-filtered" and r["key"].startswith("$.artemis") and r["local"] for r in expected)


def test_what_if_churn_equals_the_engine(spark, setup) -> None:
    from artemis_routing_cli.pipeline.run import analyze
    from artemis_routing_cli.pipeline.whatif import parse_scenarios, variant
    from artemis_routing_cli.routing.selection import select_named

    d, cfg_path, keys_path = setup
    keys = keys_path.read_bytes().decode("utf-8").split("\n")[:-1]
    cfg = load(str(cfg_path))
    state = TargetState(node_ids=dict(n.split("=", 1) for n in NODE_IDS))
    scenarios = parse_scenarios(["down=c3", "add=new-node", "down=local"])
    summary = analyze(spark, select_named(cfg, state, ["hash-filtered"], None), str(keys_path),
                      scenarios=scenarios)
    (r,) = summary["routers"]
    router = select_named(cfg, state, ["hash-filtered"], None)[0]  # node ids of every router
    base = route_batch(router, keys)
    assert r["total"] == len(keys)
    assert {t["target"]: t["count"] for t in r["targets"]} == {
        t: int((base.target == t).sum()) for t in set(base.target.tolist()) if t is not None}
    assert r["null_keys"] == int((base.key == "NULL").sum())
    assert r["local"] == int(base.local.sum())
    for s, w in zip(scenarios, r["what_if"], strict=True):
        after = route_batch(variant(router, s), keys)
        moved = int(((base.status != after.status) | (base.target != after.target)).sum())
        assert (w["scenario"], w["moved"]) == (s.label, moved)
        assert moved > 0
    down_c3 = r["what_if"][0]
    assert {f["from"] for f in down_c3["flows"]} == {"c3"}  # consistent hashing: only c3's keys move


def test_csv_and_json_columns_per_key_type_equal_simulate(spark, tmp_path) -> None:
    import csv

    from artemis_routing_cli.cli.simulate_batch import run_batch
    from artemis_routing_cli.pipeline.assign import assign, plan
    from artemis_routing_cli.pipeline.inputs import read_keys
    from artemis_routing_cli.pipeline.run import assignments, build_jobs
    from artemis_routing_cli.routing.selection import select_routers

    rows = [("FOO1", "alice", "10.0.0.1:5000", "A.Example", "guest,admin"), ("", "", "", "", ""),
            ("$.artemis.internal.router.client.x", "b\u00e9", "[::1]:7", "b", "x"),
            ("x\U0001F600", "FOO", "/10.1.2.3:9", "\u4e2dXY\u0130", "ab,ac")] * 5  # SNI names: Netty lowercases
    names = ["client_id", "user_name", "source_ip", "sni_host", "roles"]
    csv_path = tmp_path / "k.csv"
    with csv_path.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(names)
        w.writerows(rows)
    no_ip = tmp_path / "no-ip.csv"  # without a source_ip column every plain key type routes on the JVM
    with no_ip.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow([n for n in names if n != "source_ip"])
        w.writerows([r[:2] + r[3:] for r in rows])
    jsonl = tmp_path / "k.jsonl"
    jsonl.write_text("".join(json.dumps({"client_id": r[0], "user_name": r[1], "source_ip": r[2] or None,
                                         "roles": r[4].split(",") + [" x,y"]}) + "\n" for r in rows), encoding="utf-8")
    cfg_path = tmp_path / "broker.xml"
    key_types = ["CLIENT_ID", "USER_NAME", "SOURCE_IP", "SNI_HOST", "ROLE_NAME"]
    cfg_path.write_text(broker_xml(CONNECTORS + "<connection-routers>" + "".join(
        f'<connection-router name="{kt}"><key-type>{kt}</key-type><key-filter>[^,.]+</key-filter>'
        f'<local-target-filter>FOO.*</local-target-filter><policy name="CONSISTENT_HASH"/><pool>{STATIC}</pool>'
        "</connection-router>" for kt in key_types) + "</connection-routers>"), encoding="utf-8")
    cfg = load(str(cfg_path))
    for path in (csv_path, jsonl, no_ip):
        out = tmp_path / (path.name + ".out")
        run_batch(cfg, TargetState(), None, str(path), str(out), "jsonl", None, False)
        expected = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        jobs = build_jobs(select_routers(cfg, TargetState(), None, None), [])
        keys = read_keys(spark, str(path))
        on_jvm = [kt for kt, e in zip(key_types, plan(jobs, keys.columns, True), strict=True) if e == "jvm"]
        # SNI (Java-encoded): sni.py; a source_ip column sends no router to Python (SOURCE_IP included)
        assert on_jvm == ["CLIENT_ID", "USER_NAME", "SOURCE_IP"]
        got = assignments(assign(keys, jobs), jobs).toPandas()
        got["_r"] = got["router"].map({kt: i for i, kt in enumerate(key_types)})
        got = got.sort_values(["_r", "row"], kind="stable")
        cols = ["router", "key", "key_value", "status", "target", "node_id", "local"]
        actual = [dict(zip(cols, (None if v is None or v != v else v for v in row), strict=True))
                  for row in got[cols].itertuples(index=False, name=None)]
        for a, e in zip(actual, expected, strict=True):  # a roles list is shown as its JSON text
            if isinstance(e["key"], list):
                a["key"] = json.loads(a["key"])
        assert actual == [{k: e[k] for k in cols} for e in expected], path.name


def test_cli_json_and_report(setup, tmp_path) -> None:
    pytest.importorskip("pyspark")
    d, cfg_path, keys_path = setup
    report = tmp_path / "report.html"
    out = tmp_path / "assignments"
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.run(
        [sys.executable, "-m", "artemis_routing_cli", "analyze", "--config", str(cfg_path), "--router", "sticky",
         "--keys", str(keys_path), "--format", "json", "--what-if", "down=c1", "--report", str(report),
         "--output", str(out), "--output-format", "csv", "--conf", "spark.sql.shuffle.partitions=2",
         *[a for n in NODE_IDS if not n.startswith("c6=") for a in ("--node-id", n)]],  # c6: not in sticky
        capture_output=True, text=True, env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    (r,) = doc["routers"]
    assert r["router"] == "sticky" and r["total"] == 100_000
    assert sum(t["count"] for t in r["targets"]) == 100_000
    assert abs(sum(t["share"] for t in r["targets"]) - 1) < 1e-4
    assert r["what_if"][0]["scenario"] == "down=c1" and 0 < r["what_if"][0]["moved"] < 100_000
    assert set(r["imbalance"]) >= {"max_over_mean", "coefficient_of_variation"}
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "sticky" in page
    assert "src=\"http" not in page and "<script src" not in page  # self-contained
    assert list(out.glob("*.csv"))
    noise = [line for line in proc.stderr.splitlines() if not line.startswith(("arouter:", "warning:"))]
    assert noise == []  # no JVM or log4j chatter by default


def test_cli_bad_what_if_is_one_line(tmp_path) -> None:
    proc = subprocess.run([sys.executable, "-m", "artemis_routing_cli", "analyze", "--keys", "x.txt",
                           "--what-if", "sideways=c1"], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith("arouter: --what-if 'sideways=c1'")
