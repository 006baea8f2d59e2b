"""A ``sni_host`` column (real local Spark): under the Java encoding a host name ``new SNIHostName``
refuses makes the record one ``simulate --keys-file`` refuses, for a router of any key type; both
analyze engines count it as a bad row for every router (the JVM path by the JDK's own SNIHostName in
a Java UDF) and route every other record as ``simulate`` does. A raw-encoded router takes any name."""

from __future__ import annotations

import csv
import json
from copy import deepcopy
from pathlib import Path

import pytest

from tests.pipeline.test_source_ip_jvm import _engine_answer, _named

pytestmark = pytest.mark.spark

GOOD_HOSTS = ["a.example", "B.Example", "caf\u00e9.example", "", "stra\u00dfe.de", "xn--caf-dma.example"]
BAD_HOSTS = ["a_b.example", "host.", "x..y", "\U0001F600.example", "-a.example", "a b"]


def _routers() -> list:
    sni_raw = deepcopy(_named("sticky-router"))
    sni_raw.name, sni_raw.key_type, sni_raw.sni_encoding = "sni-raw", "SNI_HOST", "raw"
    cid_raw = deepcopy(_named("sticky-router"))
    cid_raw.name, cid_raw.sni_encoding = "cid-raw", "raw"
    return [_named("sticky-router"), _named("shard-router"), _named("consistent-hash-router"), sni_raw, cid_raw]


def _write(path: Path, hosts: list[str]) -> list[dict[str, str]]:
    records = [{"client_id": f"app-{i}", "user_name": f"u{i % 3}", "sni_host": h} for i, h in enumerate(hosts)]
    with path.open("w", encoding="utf-8", newline="") as out:
        w = csv.DictWriter(out, ["client_id", "user_name", "sni_host"])
        w.writeheader()
        w.writerows(records)
    return records


def test_bad_sni_host_is_a_bad_row_for_every_router_on_both_engines_as_simulate(spark, tmp_path: Path) -> None:
    from artemis_routing_cli.cli.simulate_batch import run_batch
    from artemis_routing_cli.config import load_text
    from artemis_routing_cli.pipeline.assign import assign, count_answers, plan
    from artemis_routing_cli.pipeline.inputs import read_keys
    from artemis_routing_cli.pipeline.run import analyze, build_jobs
    from artemis_routing_cli.pipeline.summary import collect_counted, summarise
    from artemis_routing_cli.routing.targets import TargetState

    hosts = GOOD_HOSTS + BAD_HOSTS
    path = tmp_path / "conns.csv"
    records = _write(path, hosts)
    routers = _routers()
    jobs = build_jobs(routers, [])
    keys = read_keys(spark, str(path))
    assert plan(jobs, keys.columns, True) == ["jvm"] * len(routers)  # no router goes to Python for it
    bad_counts = {}
    answers = {}
    for engine in ("jvm", "pandas"):
        rows = answers[engine] = {r["client_id"]: r for r in assign(keys, jobs, engine=engine).collect()}
        for rec in records:
            for n, r in enumerate(routers):
                want = _engine_answer(deepcopy(r), rec)
                got = (rows[rec["client_id"]][f"r{n}_status"], rows[rec["client_id"]][f"r{n}_target"],
                       rows[rec["client_id"]][f"r{n}_key_value"])
                assert got == want, (engine, r.name, rec["sni_host"])
        if engine == "jvm":  # the whole run: counts (compact JVM slots) and the bad rows' samples
            summary = analyze(spark, _routers(), str(path), engine=engine)
            samples = summary["bad_row_samples"]
            assert samples and {s["record"] for s in samples} <= set(range(len(GOOD_HOSTS) + 1, len(hosts) + 1))
            assert all("SNIHostName" in s["error"] and s["router"] not in ("sni-raw", "cid-raw") for s in samples)
        else:  # the counting stage alone
            summary = summarise(jobs, collect_counted(count_answers(keys, jobs, engine=engine), jobs))
        bad_counts[engine] = summary["bad_rows"]
        per_router = {r["router"]: r["bad"] for r in summary["routers"]}
        assert per_router == {"sticky-router": len(BAD_HOSTS), "shard-router": len(BAD_HOSTS),
                              "consistent-hash-router": len(BAD_HOSTS), "sni-raw": 0, "cid-raw": 0}
    assert bad_counts == {"jvm": len(BAD_HOSTS), "pandas": len(BAD_HOSTS)}

    # a text file of host names for an SNI_HOST router (Java-encoded: routed in pandas): the same rule
    text = tmp_path / "hosts.txt"
    text.write_text("".join(h + "\n" for h in hosts), encoding="utf-8")
    sni = deepcopy(_named("sticky-router"))
    sni.name, sni.key_type = "sni-java", "SNI_HOST"
    got = sorted(((r["_row"], r["key"]), (r["r0_status"], r["r0_target"], r["r0_key_value"]))
                 for r in assign(read_keys(spark, str(text)), build_jobs([sni], [])).collect())
    assert [answer for _, answer in got] == [_engine_answer(deepcopy(sni), {"key": h}) for h in hosts]

    # simulate --keys-file: every bad host is a bad row at its line for a CLIENT_ID router (Java encoding),
    # left out (exit 1), as here; the good records' answers are the ones above
    cfg = load_text((Path(__file__).resolve().parents[2] / "samples" / "broker.xml").read_text(encoding="utf-8"))
    for i, host in enumerate(BAD_HOSTS):
        one = tmp_path / f"bad{i}.csv"
        _write(one, ["a.example", host])
        written = tmp_path / "o.jsonl"
        assert run_batch(cfg, TargetState(), "sticky-router", str(one), str(written), "jsonl", 1, False) == 1
        assert [json.loads(x)["key"] for x in written.read_text(encoding="utf-8").splitlines()] == ["app-0"]
    good = tmp_path / "good.csv"
    _write(good, GOOD_HOSTS)
    out = tmp_path / "sim.jsonl"
    run_batch(cfg, TargetState(), "sticky-router", str(good), str(out), "jsonl", 1, False)
    sim = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    rows = answers["jvm"]
    assert [(s["status"], s["target"], s["key_value"]) for s in sim] == [
        (rows[f"app-{i}"]["r0_status"], rows[f"app-{i}"]["r0_target"], rows[f"app-{i}"]["r0_key_value"])
        for i in range(len(GOOD_HOSTS))]
