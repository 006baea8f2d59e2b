"""SOURCE_IP on the JVM path (real local Spark): a SOURCE_IP router, and every other router of a
file with a ``source_ip`` column, are routed by Spark SQL and our Java UDFs (no Python worker), with
the answers ``simulate --keys-file`` gives: IPv4, IPv6, scoped IPv6, IPv4-mapped, ports, Java's own
socket text, under both transports and broker versions; a value that is not an address is a bad row
for every router that reads it."""

from __future__ import annotations

import csv
import json
from copy import deepcopy
from pathlib import Path

import pytest

from artemis_routing_cli.errors import UsageError
from tests.cli.helpers import arouter
from tests.pipeline.cli_run import arouter_spark

pytestmark = pytest.mark.spark

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "broker.xml"
GOOD = ["10.0.0.1", "10.0.0.1:5000", "192.168.7.7", "::1", "[::1]:5000", "fe80::1%2", "fe80::1", "[fe80::a%0]:1",
        "2001:db8::1", "2001:db8::1%3", "::ffff:10.9.8.7", "/10.1.2.3:9", "/[0:0:0:0:0:0:0:1%0]:5000", "", " 10.0.0.5 ",
        "febf::1", "fec0::1", "1:2:3:4:5:6:7:8"]
GARBAGE = ["FOO1", "10.0.0.256", "010.0.0.1", "::1%eth0", "1::2::3", "[::1", "10.0.0.1:x", "   "]


def _routers() -> list:
    from artemis_routing_cli.config import load_text
    from artemis_routing_cli.routing.selection import select_routers
    from artemis_routing_cli.routing.targets import state_from_options

    cfg = load_text(SAMPLE.read_text(encoding="utf-8"), name=str(SAMPLE))
    return select_routers(cfg, state_from_options([], [], [], None), None, 1)


def _named(name: str):  # noqa: ANN202
    return next(r for r in _routers() if r.name == name)


def _source_ip_routers() -> list:
    """SOURCE_IP routers: the sample's, and a consistent-hash one under each transport and version."""
    ch = _named("sticky-router")
    out = [_named("simple-router")]
    for native, version in ((True, (2, 41)), (True, (2, 35)), (False, (2, 41))):
        r = deepcopy(ch)
        r.name, r.key_type = f"ip-{native}-{version[1]}", "SOURCE_IP"
        r.native_transport, r.broker_version = native, version
        out.append(r)
    return out


def test_source_ip_is_no_reason_for_python() -> None:
    from artemis_routing_cli.pipeline.sql_route import uncovered

    for r in _source_ip_routers():
        assert uncovered(r, ["key"]) is None
        assert uncovered(r, ["client_id", "source_ip"]) is None
    assert uncovered(_named("sticky-router"), ["client_id", "source_ip", "user_name"]) is None


def _engine_answer(router, record: dict[str, str]) -> tuple[str, str | None, str | None]:  # noqa: ANN001
    from artemis_routing_cli.routing.keys import connection_from_record

    try:
        conn = connection_from_record(router.key_type, record, router.sni_encoding)
    except UsageError:
        return "BAD_KEY", None, None
    res = router.route(conn)
    return res.status, res.target_label, res.key_value


def test_records_with_source_ip_are_routed_on_the_jvm_with_the_engines_answers(spark, tmp_path: Path) -> None:
    from artemis_routing_cli.pipeline.assign import assign
    from artemis_routing_cli.pipeline.inputs import read_keys
    from artemis_routing_cli.pipeline.run import build_jobs

    routers = [*_source_ip_routers(), _named("sticky-router"), _named("shard-router")]
    values = GOOD + GARBAGE
    f = tmp_path / "conns.csv"
    with f.open("w", encoding="utf-8", newline="") as out:
        w = csv.writer(out)
        w.writerow(["client_id", "source_ip"])
        w.writerows([f"app-{i}", v] for i, v in enumerate(values))
    frame = assign(read_keys(spark, str(f)), build_jobs(routers, []), engine="jvm")
    plan = frame._jdf.queryExecution().executedPlan().toString()  # noqa: SLF001
    assert "Python" not in plan and "Pandas" not in plan, plan  # no row leaves the JVM
    rows = {r["client_id"]: r for r in frame.collect()}
    for i, v in enumerate(values):
        row = rows[f"app-{i}"]
        for n, r in enumerate(routers):
            want = _engine_answer(deepcopy(r), {"client_id": f"app-{i}", "source_ip": v})
            got = (row[f"r{n}_status"], row[f"r{n}_target"], row[f"r{n}_key_value"])
            assert got == want, (r.name, v)
    assert sum(rows[f"app-{i}"]["r0_status"] == "BAD_KEY" for i in range(len(values))) == len(GARBAGE)


def test_analyze_text_addresses_on_the_jvm_equal_simulate(tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    from artemis_routing_cli.pipeline.session import java_available

    if not java_available():
        pytest.skip("Java is not installed")
    lines = GOOD + GARBAGE
    keys = tmp_path / "ips.txt"
    keys.write_text("".join(v + "\n" for v in lines), encoding="utf-8")
    out = tmp_path / "out"
    run = arouter_spark("analyze", "--keys", str(keys), "-r", "simple-router", "--engine", "jvm", "-f", "json",
                  "--output", str(out), "--output-format", "csv", "--master", "local[1]")
    assert run.code == 1, run.err  # the garbage lines are bad rows
    doc = json.loads(run.out)
    assert doc["bad_rows"] == len(GARBAGE)
    written = {int(r["line"]): r for f in sorted(out.glob("*.csv")) for r in csv.DictReader(f.open(encoding="utf-8"))}
    good = tmp_path / "good.txt"
    good.write_text("".join(v + "\n" for v in GOOD), encoding="utf-8")
    sim = arouter("simulate", "-r", "simple-router", "--keys-file", str(good), "-f", "jsonl")
    assert sim.code == 0, sim.err
    expected = [json.loads(x) for x in sim.out.splitlines()]
    for n, want in enumerate(expected, 1):
        got = written[n]
        assert (got["key_value"], got["status"], got["target"] or None) == (
            want["key_value"], want["status"], want["target"]), lines[n - 1]
    assert [written[len(GOOD) + k + 1]["status"] for k in range(len(GARBAGE))] == ["BAD_KEY"] * len(GARBAGE)
    for g in GARBAGE:
        bad = tmp_path / "one.txt"
        bad.write_text(g + "\n", encoding="utf-8")
        assert arouter("simulate", "-r", "simple-router", "--keys-file", str(bad)).code == 2  # simulate refuses it
