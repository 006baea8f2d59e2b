"""``arouter diff --keys`` on Spark: the same transfer matrix as the engine key by key."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from artemis_routing_cli.config import LoadOptions, load_text
from artemis_routing_cli.routing.keys import connection_from_record
from artemis_routing_cli.routing.router import Router
from artemis_routing_cli.routing.targets import TargetState
from artemis_routing_cli.routing.transfer import NOT_DEPLOYED

from ..diff.edits import STICKY_MEMBERS, edit, sample_text

STATE = TargetState(node_ids={"broker1": "7f3e-1", "broker2": "0a9c-2", "broker3": "c001-3", "local": "5d1f-0"})
ROUTERS = ("sticky-router", "simple-router", "local-partition")


def _configs():
    new = edit(sample_text(), STICKY_MEMBERS, STICKY_MEMBERS.replace(
        "                  <connector-ref>broker3</connector-ref>\n", ""))
    new = edit(new, '<policy name="FIRST_ELEMENT"/>', '<policy name="CONSISTENT_HASH"/>')
    new = edit(new, "<local-target-filter>^FOO.*</local-target-filter>",
               "<local-target-filter>^(FOO|cli).*</local-target-filter>")
    opts = LoadOptions(environ={})
    return load_text(sample_text(), opts), load_text(new, opts)


def _router(cfg, name: str) -> Router:
    r = Router.from_config(cfg, cfg.router(name), STATE, seed=0)
    r.tracing = False
    return r


def _label(res) -> str:  # noqa: ANN001
    return res.target_label if res.status == "OK" else res.status


@pytest.mark.spark
@pytest.mark.parametrize("engine", ["pandas", "auto"])
def test_spark_transfer_equals_the_engine_key_by_key(spark, tmp_path: Path, engine: str) -> None:
    from artemis_routing_cli.pipeline.diffchurn import spark_transfers

    rows = [(f"client-{i}" if i % 9 else f"FOO{i}", f"u{i % 13}", f"10.0.{i % 250}.{i % 7}:{2000 + i}")
            for i in range(400)]
    keys = tmp_path / "keys.csv"
    keys.write_text("client_id,user_name,source_ip\n" + "".join(f"{a},{b},{c}\n" for a, b, c in rows))
    old, new = _configs()
    pairs = [(name, _router(old, name), _router(new, name)) for name in ROUTERS]
    pairs.append(("shard-router", _router(old, "shard-router"), NOT_DEPLOYED))
    got, totals = spark_transfers(spark, str(keys), pairs, engine=engine)
    moved_rows: set[int] = set()
    for name in ROUTERS + ("shard-router",):
        a = _router(old, name)
        b = _router(new, name) if name != "shard-router" else None
        expected: Counter[tuple[str, str]] = Counter()
        for row, (cid, user, sip) in enumerate(rows):
            conn = connection_from_record(a.key_type, {"client_id": cid, "user_name": user, "source_ip": sip})
            after = _label(b.route(conn)) if b is not None else "NOT_DEPLOYED"
            expected[(_label(a.route(conn)), after)] += 1
            if _label(a.route(conn)) != after:
                moved_rows.add(row)
        t = got[name]
        assert dict(t.matrix) == dict(expected), name
        assert t.keys == len(rows) and t.moved == sum(c for (x, y), c in expected.items() if x != y), name
    assert got["sticky-router"].moved > 0 and got["local-partition"].became_local > 0
    # keys, not answers: a key that moves on two routers is one key that moves
    assert (totals.keys, totals.moved) == (len(rows), len(moved_rows))
    assert totals.moved < sum(t.moved for t in got.values())


@pytest.mark.spark
def test_cli_keys_on_spark_equals_simulate_keys_file(tmp_path: Path) -> None:
    """``arouter diff --keys`` (Spark) against two ``arouter simulate --keys-file`` runs, key by key."""
    pytest.importorskip("pyspark")
    from artemis_routing_cli.pipeline.session import java_available

    if not java_available():
        pytest.skip("Java is not installed")
    from ..cli.helpers import arouter
    from ..diff.test_diff_cli import NODE_IDS, _keys, _simulated
    from ..diff.test_diff_cli import _label as record_label

    old_cfg = tmp_path / "old.xml"
    new_cfg = tmp_path / "new.xml"
    old_cfg.write_text(sample_text(), encoding="utf-8")
    new_cfg.write_text(edit(sample_text(), STICKY_MEMBERS, STICKY_MEMBERS.replace(
        "                  <connector-ref>broker3</connector-ref>\n", "")), encoding="utf-8")
    keys = _keys(tmp_path / "ids.csv", 300)
    run = arouter("diff", str(old_cfg), str(new_cfg), "--keys", str(keys), "-r", "sticky-router", "-f", "json",
                  *NODE_IDS)
    assert run.code == 0, run.err
    (r,) = json.loads(run.out)["routers"]
    before, after = _simulated(old_cfg, keys)["sticky-router"], _simulated(new_cfg, keys)["sticky-router"]
    pairs = Counter((record_label(a), record_label(b)) for a, b in zip(before, after, strict=True))
    assert {(m["from"], m["to"]): m["count"] for m in r["matrix"]} == dict(pairs)
    assert r["moved"] == sum(c for (x, y), c in pairs.items() if x != y) > 0
