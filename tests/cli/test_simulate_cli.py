"""``arouter simulate``: one connection, every router, batches, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

from artemis_routing_cli.routing.fnv import fnv1a32
from tests.cli.helpers import arouter
from tests.conftest import SAMPLE, broker_xml

SHARD = """
<connectors><connector name="b1">tcp://h1:61616</connector><connector name="b2">tcp://h2:61616</connector></connectors>
<connection-routers>
  <connection-router name="hash">
    <key-type>CLIENT_ID</key-type>
    <policy name="CONSISTENT_HASH"/>
    <pool><static-connectors><connector-ref>b1</connector-ref><connector-ref>b2</connector-ref></static-connectors></pool>
  </connection-router>
  <connection-router name="shard">
    <key-type>CLIENT_ID</key-type>
    <local-target-filter>^0$</local-target-filter>
    <policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="2"/></policy>
  </connection-router>
</connection-routers>"""


def test_every_router_in_one_table_on_the_sample() -> None:
    run = arouter("simulate", "--config", str(SAMPLE), "--key", "CLIENT_ID=FOO1")
    assert run.code == 0, run.err
    for name in ("local-partition", "simple-router", "consistent-hash-router", "evenly-balance", "shard-router"):
        assert name in run.out
    assert "OK" in run.out and "REFUSED_USE_ANOTHER" in run.out


def test_json_result_and_explain_trace() -> None:
    run = arouter("simulate", "-c", str(SAMPLE), "-r", "local-partition", "-k", "CLIENT_ID=FOO1", "-f", "json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    (res,) = data["results"]
    assert (res["status"], res["local"], res["key"], res["target"]) == ("OK", True, "FOO", "local")
    assert [s["step"] for s in res["trace"]] == ["key", "local-target-filter"]
    text = arouter("simulate", "-c", str(SAMPLE), "-r", "local-partition", "-k", "CLIENT_ID=BAR", "--explain")
    assert "does not match" in text.out and "REFUSED_USE_ANOTHER" in text.out


def test_node_ids_drive_consistent_hash(tmp_path: Path) -> None:
    cfg = tmp_path / "broker.xml"
    cfg.write_text(broker_xml(SHARD), encoding="utf-8")
    ids = {"b1": "aaaa-1", "b2": "bbbb-2"}
    ring = sorted((fnv1a32(v), k) for k, v in ids.items())
    h = fnv1a32("FOO1")
    below = [n for hv, n in ring if hv <= h]
    expected = below[-1] if below else ring[0][1]
    run = arouter("simulate", "-c", str(cfg), "-r", "hash", "-k", "CLIENT_ID=FOO1", "--node-id", "b1=aaaa-1",
                  "--node-id", "b2=bbbb-2", "-f", "json")
    assert run.code == 0, run.err
    res = json.loads(run.out)["results"][0]
    assert res["target"] == expected and res["node_id"] == ids[expected] and res["node_id_known"]
    loud = arouter("simulate", "-c", str(cfg), "-r", "hash", "-k", "CLIENT_ID=FOO1")
    assert "placeholder" in loud.err


def test_batch_jsonl_keeps_order_and_empty_lines(tmp_path: Path) -> None:
    cfg = tmp_path / "broker.xml"
    cfg.write_text(broker_xml(SHARD), encoding="utf-8")
    keys = tmp_path / "keys.txt"
    values = ["FOO1", "", "h\u00e9llo", "\U0001F600x", "NULL", " spaced "]
    keys.write_text("\n".join(values) + "\n", encoding="utf-8")
    run = arouter("simulate", "-c", str(cfg), "-r", "shard", "--keys-file", str(keys), "-f", "jsonl")
    assert run.code == 0, run.err
    recs = [json.loads(line) for line in run.out.splitlines()]
    assert [r["key"] for r in recs] == values
    for v, r in zip(values, recs, strict=True):
        # A key that *is* the text NULL is never transformed (the broker compares with "NULL").
        expected = "NULL" if v == "NULL" else str((fnv1a32(v) & 0x7FFFFFFF) % 2)
        assert r["key_value"] == expected
        assert r["status"] == ("OK" if expected == "0" else "REFUSED_USE_ANOTHER")
        assert r["local"] == (expected == "0") and r["target"] == ("local" if expected == "0" else None)


def test_batch_csv_columns_and_output_file(tmp_path: Path) -> None:
    cfg = tmp_path / "broker.xml"
    cfg.write_text(broker_xml(SHARD), encoding="utf-8")
    keys = tmp_path / "keys.csv"
    keys.write_text("client_id,user_name\nFOO1,bob\nBAR2,alice\n", encoding="utf-8")
    out = tmp_path / "out.csv"
    run = arouter("simulate", "-c", str(cfg), "-r", "hash", "--keys-file", str(keys), "-f", "csv", "-o", str(out))
    assert run.code == 0, run.err
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "key,key_value,status,target,node_id,local"
    assert [line.split(",")[0] for line in lines[1:]] == ["FOO1", "BAR2"]
    assert not (tmp_path / "out.csv.tmp").exists()


def test_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    cases = [
        (("simulate", "-c", str(SAMPLE), "-r", "nope", "-k", "CLIENT_ID=x"), "no connection router named 'nope'"),
        (("simulate", "-c", str(SAMPLE), "-k", "CLIENTID=x"), "unknown key type"),
        (("simulate", "-c", str(SAMPLE), "-k", "CLIENT_ID"), "expected TYPE=VALUE"),
        (("simulate", "-c", str(SAMPLE), "-k", "SOURCE_IP=not-an-ip"), "expected an IP address"),
        (("simulate", "-c", str(SAMPLE), "-r", "shard-router", "--keys-file", str(tmp_path / "missing.txt")),
         "keys file not found"),
        (("simulate", "-c", str(tmp_path / "missing.xml"), "-k", "CLIENT_ID=x"), "file not found"),
        (("simulate", "-c", str(SAMPLE), "-k", "CLIENT_ID=x", "--connections", "broker1=many"), "whole number"),
    ]
    for args, needle in cases:
        run = arouter(*args)
        assert run.code == 2, (args, run.out, run.err)
        assert needle in run.err, (args, run.err)
        assert "Traceback" not in run.err and len(run.err.strip().splitlines()) == 1, run.err


def test_bundled_sample_when_no_config_is_found(tmp_path: Path) -> None:
    run = arouter("simulate", "-k", "CLIENT_ID=FOO1", "-r", "local-partition", cwd=tmp_path)
    assert run.code == 0, run.err
    assert "bundled sample" in run.err


def test_management_mode_uses_the_key_as_given() -> None:
    run = arouter("simulate", "-c", str(SAMPLE), "-r", "local-partition", "--management", "-k", "CLIENT_ID=XFOO",
                  "-f", "json")
    res = json.loads(run.out)["results"][0]
    assert (res["key"], res["status"]) == ("XFOO", "REFUSED_USE_ANOTHER")


UNDEFINED = """
<!-- ${ACCEPTOR_UNSET_33} -->
<acceptors><acceptor name="a">tcp://0.0.0.0:61616?router=shard</acceptor></acceptors>
<connection-routers>
  <connection-router name="shard">
    <key-type>CLIENT_ID</key-type>
    <local-target-filter>${STATEFUL_SET_ORDINAL}</local-target-filter>
    <policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="3"/></policy>
  </connection-router>
</connection-routers>"""


def test_an_undefined_token_in_a_router_is_said_where_the_answer_depends_on_it(tmp_path: Path) -> None:
    cfg = tmp_path / "broker.xml"
    cfg.write_text(broker_xml(UNDEFINED), encoding="utf-8")
    line = next(i for i, t in enumerate(cfg.read_text(encoding="utf-8").splitlines(), 1) if "STATEFUL_SET" in t)
    one = arouter("simulate", "-c", str(cfg), "-k", "CLIENT_ID=FOO1")
    assert one.code == 0, one.err
    assert f"${{STATEFUL_SET_ORDINAL}} ({cfg}:{line}) is not defined" in one.err
    assert "-D STATEFUL_SET_ORDINAL=VALUE" in one.err
    assert "ACCEPTOR_UNSET_33" not in one.err  # outside the router: not what the answer depends on
    as_json = json.loads(arouter("simulate", "-c", str(cfg), "-k", "CLIENT_ID=FOO1", "-f", "json").out)
    assert any("${STATEFUL_SET_ORDINAL}" in w for w in as_json["warnings"])
    keys = tmp_path / "keys.txt"
    keys.write_text("FOO1\nBAR\n", encoding="utf-8")
    batch = arouter("simulate", "-c", str(cfg), "--keys-file", str(keys))
    assert batch.code == 0 and "${STATEFUL_SET_ORDINAL}" in batch.err, batch.err
    given = arouter("simulate", "-c", str(cfg), "-k", "CLIENT_ID=FOO1", "-D", "STATEFUL_SET_ORDINAL=2")
    assert given.code == 0 and "STATEFUL_SET_ORDINAL" not in given.err, given.err
    diff = arouter("diff", str(cfg), str(cfg))
    assert "${STATEFUL_SET_ORDINAL}" in diff.out + diff.err
