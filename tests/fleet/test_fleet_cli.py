"""``arouter fleet`` as users run it: exit codes, outputs, bad input, and each pod's answer held equal to
``simulate --cr CR --ordinal N --keys-file`` on the same keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from artemis_routing_cli.cli.fleet_keys import key_homes
from artemis_routing_cli.cli.fleet_options import FleetOptions
from artemis_routing_cli.cli.fleet_pods import cr_specs, known_ids
from artemis_routing_cli.cli.keys_file import load_keys
from artemis_routing_cli.fleet.count import pods_of
from artemis_routing_cli.fleet.pods import load_pods
from tests.cli.helpers import arouter

DATA = Path(__file__).parent / "data"
KEYS = DATA / "keys.txt"


def cr(name: str) -> str:
    return str(DATA / name)


def test_the_shards_pass_and_the_json_has_its_documented_shape() -> None:
    run = arouter("fleet", "--cr", cr("shard-cr.yaml"), "--keys", str(KEYS), "-f", "json")
    assert run.code == 0, run.err
    doc = json.loads(run.out)
    assert doc["schema"] == "arouter-fleet/1" and doc["ok"] is True and doc["failed"] == [] and doc["unknown"] == []
    assert [p["name"] for p in doc["pods"]] == ["shard-ss-0", "shard-ss-1", "shard-ss-2"]
    (router,) = doc["routers"]
    assert set(router) == {"name", "proofs", "keys", "change"}
    (proof,) = router["proofs"]
    assert set(proof) == {"replicas", "proven", "why", "values", "homeless", "several", "homes", "idle", "shares",
                          "ok"}
    assert [round(v, 6) for v in proof["shares"].values()] == [round(1 / 3, 6)] * 3
    keys = router["keys"]
    assert set(keys) == {"source", "count", "one_home", "no_home", "several_homes", "null_several", "hopped",
                         "load", "skew", "samples"}
    assert keys["one_home"] == sum(keys["load"].values()) and keys["no_home"] == 0
    # the client id "NULL" is a NULL key: every pod takes it (shown, not failed)
    assert keys["several_homes"] == 0 and keys["null_several"] == 1 and keys["one_home"] == keys["count"] == 2003


@pytest.mark.parametrize(("args", "expected"), [
    (["--cr", "same-filter-cr.yaml"], "have several homes"),
    (["--cr", "typo-cr.yaml"], "have no home"),
    (["--cr", "shard-cr.yaml", "--replicas", "2"], "value(s) have no home (proven): 2"),
    (["--cr", "shard-cr.yaml", "--broker-version", "2.22"], "no home (proven): -1, -2"),
    (["--cr", "pool-cr.yaml", "--keys", "keys.txt"], "key(s) have no home"),
])
def test_each_failure_mode_exits_1(args: list[str], expected: str) -> None:
    args = [str(DATA / a) if a.endswith((".yaml", ".txt")) else a for a in args]
    run = arouter("fleet", *args)
    assert run.code == 1 and expected in run.err, (run.out, run.err)


def test_allow_options_relax_the_exit_code() -> None:
    assert arouter("fleet", "--cr", cr("same-filter-cr.yaml"), "--allow-multiple").code == 1  # 2 is homeless
    assert arouter("fleet", "--cr", cr("same-filter-cr.yaml"), "--allow-multiple", "--allow-homeless").code == 0
    assert arouter("fleet", "--cr", cr("typo-cr.yaml"), "--allow-homeless").code == 0


def test_a_range_of_pod_counts_and_a_plain_broker_xml() -> None:
    run = arouter("fleet", "-c", str(DATA / "shard-broker.xml"), "--replicas", "1..4", "-f", "json")
    doc = json.loads(run.out)
    proofs = doc["routers"][0]["proofs"]
    assert [p["replicas"] for p in proofs] == [1, 2, 3, 4] and [p["ok"] for p in proofs] == [False, False, True, True]
    assert proofs[3]["idle"] == ["pod-3"] and run.code == 1


def test_scale_and_upgrade_as_matrices() -> None:
    run = arouter("fleet", "--cr", cr("shard-cr.yaml"), "--new-cr", cr("shard4-cr.yaml"), "-f", "json")
    change = json.loads(run.out)["routers"][0]["change"]
    assert run.code == 0 and change["unit"] == "hash classes (of 24)" and change["after"]["ok"]
    assert sum(m["count"] for m in change["matrix"]) == 24 and change["moved"] > 12
    run = arouter("fleet", "--cr", cr("shard-cr.yaml"), "--broker-version", "2.22", "--to-broker-version", "2.41",
                  "--keys", str(KEYS), "-f", "json")
    change = json.loads(run.out)["routers"][0]["change"]
    assert change["unit"] == "keys" and change["gained_home"] > 0 and change["lost_home"] == 0
    assert run.code == 1  # before the upgrade, negative residues had no home


def test_pools_followed_one_hop() -> None:
    run = arouter("fleet", "--cr", cr("pool-local-cr.yaml"), "--keys", str(KEYS), "-f", "json")
    keys = json.loads(run.out)["routers"][0]["keys"]
    assert run.code == 0 and keys["no_home"] == 0 and keys["several_homes"] == 0
    assert keys["hopped"] == keys["count"]  # two pods of three redirect each key; the third takes it


@pytest.mark.parametrize("fmt", ["text", "markdown", "sarif", "github"])
def test_every_format(fmt: str) -> None:
    run = arouter("fleet", "--cr", cr("same-filter-cr.yaml"), "-f", fmt)
    assert run.code == 1
    if fmt == "sarif":
        results = json.loads(run.out)["runs"][0]["results"]
        assert {r["ruleId"] for r in results} == {"fleet-homes"} and len(results) == 2
    elif fmt == "github":
        assert run.out.count("::error title=arouter fleet::") == 2
    else:
        assert "several" in run.out


@pytest.mark.parametrize(("args", "message"), [
    ([], "no fleet"),
    (["--cr", "shard-cr.yaml", "--replicas", "0"], "--replicas '0'"),
    (["--cr", "shard-cr.yaml", "--replicas", "3..1"], "--replicas '3..1'"),
    (["--cr", "shard-cr.yaml", "--replicas", "x"], "--replicas 'x'"),
    (["--cr", "shard-cr.yaml", "-r", "nope"], "no connection router named 'nope'"),
    (["--cr", "shard-cr.yaml", "-f", "yaml"], "--format 'yaml'"),
    (["--cr", "shard-cr.yaml", "-D", "STATEFUL_SET_ORDINAL=1"], "-D STATEFUL_SET_ORDINAL"),
    (["--cr", "shard-cr.yaml", "--replicas", "3", "--replicas", "4"], "given twice"),
    (["--pod", "justaname"], "--pod 'justaname'"),
    (["--new-cr", "shard-cr.yaml", "--replicas", "2"], "--new-cr needs --cr"),
    (["--cr", "shard-cr.yaml", "--to-replicas", "4", "--to-broker-version", "2.22"], "one change at a time"),
    (["--cr", "shard-cr.yaml", "--replicas", "1..3", "--keys", "keys.txt"], "a range"),
    (["--cr", "shard-cr.yaml", "--to-broker-version", "1.0"], "--broker-version '1.0'"),
    (["--cr", "missing.yaml"], "cannot read the CR"),
    (["--cr", "shard-cr.yaml", "--keys", "missing.txt"], "missing.txt"),
    (["--cr", "shard-cr.yaml", "--report", "r.txt"], "name it FILE.html"),
    (["--cr", "shard-cr.yaml", "--master", "local[1]"], "only with --spark"),
    (["--cr", "shard-cr.yaml", "--spark"], "--spark counts --keys"),
    (["--cr", "shard-cr.yaml", "--keys", "bad-utf8.txt"], "not valid UTF-8"),
    (["--cr", "shard-cr.yaml", "--keys", "bad-column.csv"], "no key column (columns: colour)"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    (tmp_path / "bad-utf8.txt").write_bytes(b"ok\n\xff\xfe\n")
    (tmp_path / "bad-column.csv").write_text("colour\nred\n", encoding="utf-8")  # extra columns are fine, none is not
    args = [str(tmp_path / a) if a.startswith("bad-") else str(DATA / a) if a.endswith((".yaml", ".txt"))
            and a != "r.txt" else a for a in args]
    run = arouter("fleet", *args)
    assert run.code == 2 and message in run.err, run.err
    assert len(run.err.strip().splitlines()) == 1 and "Traceback" not in run.err


@pytest.mark.parametrize(("name", "ids"), [("shard-cr.yaml", False), ("pool-local-cr.yaml", True)])
def test_each_pod_answers_as_simulate_cr_ordinal(name: str, ids: bool) -> None:
    """Per pod, fleet's answer for each key is simulate --cr --ordinal N --keys-file's on the same keys."""
    path = cr(name)
    opts = FleetOptions(cr=path, keys=str(KEYS))
    pods = known_ids(load_pods(cr_specs(opts, path, 3), (2, 41)), {}, (2, 41), [])
    router = next(iter(pods[0].routers))
    homes = [int(m) for _, chunk, _, _ in key_homes(router, pods, load_keys(str(KEYS)), opts, {}, []) for m in chunk]
    names = [p.name for p in pods]
    keys = KEYS.read_text().splitlines()
    assert len(homes) == len(keys)
    for n, pod in enumerate(pods):
        node_ids = [f"--node-id=local={pod.name}", *(f"--node-id=ring{i}=ring-ss-{i}" for i in range(3) if i != n)] \
            if ids else []
        run = arouter("simulate", "--cr", path, "--ordinal", str(n), "--keys-file", str(KEYS), *node_ids)
        assert run.code == 0, run.err
        records = [json.loads(line) for line in run.out.splitlines()]
        for key, rec, mask in zip(keys, records, homes, strict=True):
            if key.startswith("$.artemis.internal.router.client."):
                continue
            took = rec["status"] == "OK" and rec["local"]
            assert took == (pod.name in pods_of(mask, names)) or not took and rec["status"] == "OK", key
            if rec["status"] == "OK" and not rec["local"]:  # a redirect: the key's home is where it was sent
                assert pods_of(mask, names) == [f"ring-ss-{rec['target'][-1]}"], key
            elif not took:
                assert pod.name not in pods_of(mask, names), key


def test_html_report_in_chromium(tmp_path: Path) -> None:
    from tests.browser import dom

    page = tmp_path / "fleet.html"
    run = arouter("fleet", "--cr", cr("shard-cr.yaml"), "--new-cr", cr("shard4-cr.yaml"), "--report", str(page))
    assert run.code == 0, run.err
    built = dom(page)
    assert 'id="verdict"' in built and "every key has exactly one home" in built
    assert 'class="transfer-chart"' in built and "connection-router partition" in built


def test_a_pod_the_broker_would_not_start_takes_nobody(tmp_path: Path) -> None:
    broken = tmp_path / "broken.xml"
    # MODULO missing: the broker fails to deploy the router and does not start
    broken.write_text((DATA / "shard-broker.xml").read_text().replace('<property key="MODULO" value="3"/>', ""),
                      encoding="utf-8")
    good = str(DATA / "shard-broker.xml")
    run = arouter("fleet", "--pod", f"a-0={good}", "--pod", f"b-1={broken}", "--pod", f"c-2={good}", "-f", "json")
    doc = json.loads(run.out)
    assert run.code == 1 and "b-1: the broker would not start" in run.err
    assert [p["runs"] for p in doc["pods"]] == [True, False, True]
    assert doc["routers"][0]["proofs"][0]["homeless"] == ["1"]


def test_a_router_neither_proven_nor_counted_is_not_called_ok() -> None:
    run = arouter("fleet", "--cr", cr("pool-local-cr.yaml"))
    assert run.code == 0 and "not known for spread" in run.out and "every key has exactly one home" not in run.out
