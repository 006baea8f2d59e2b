"""``arouter simulate --address``: message flow from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import arouter
from tests.conftest import SAMPLE


def flow(*args: str) -> dict:
    run = arouter("simulate", "-c", str(SAMPLE), "-f", "json", *args)
    assert run.code == 0, run.err
    return json.loads(run.out)


def test_exclusive_divert_takes_the_message_when_its_filter_matches() -> None:
    hit = flow("--address", "orders", "--message-property", "priority=9")
    assert hit["original_delivered"] is False
    assert [(d["address"], d["routing_type"], d["via"]) for d in hit["deliveries"]] == [
        ("spyTopic", "MULTICAST", ["order-divert"])]
    miss = flow("--address", "orders", "--message-property", "priority=3")
    assert miss["original_delivered"] is True
    assert [d["address"] for d in miss["deliveries"]] == ["orders"]
    assert miss["decisions"][0]["verdict"] == "false"


def test_unknown_property_is_unknown_and_does_not_match() -> None:
    out = flow("--address", "orders")
    assert out["decisions"][0]["verdict"] == "unknown" and out["original_delivered"] is True


def test_composite_divert_fans_out() -> None:
    out = flow("--address", "payments")
    assert sorted(d["address"] for d in out["deliveries"]) == ["archive", "audit.eu", "audit.us", "payments"]


def test_message_file_with_forced_types(tmp_path: Path) -> None:
    msg = tmp_path / "m.json"
    msg.write_text(json.dumps({"properties": {"office": "New York"}, "headers": {"AMQPriority": 7}}), encoding="utf-8")
    out = flow("--address", "priceUpdates", "--message", str(msg))
    assert sorted(d["address"] for d in out["deliveries"]) == ["priceForwarding", "priceUpdates"]


def test_flow_bad_input_exit_2(tmp_path: Path) -> None:
    bad = arouter("simulate", "-c", str(SAMPLE), "--address", "x", "--message-property", "novalue")
    assert bad.code == 2 and "expected NAME=VALUE" in bad.err
    missing = arouter("simulate", "-c", str(SAMPLE), "--address", "x", "--message", str(tmp_path / "nope.json"))
    assert missing.code == 2 and "not found" in missing.err
    stray = arouter("simulate", "-c", str(SAMPLE), "-k", "CLIENT_ID=x", "--message-property", "a=1")
    assert stray.code == 2 and "need --address" in stray.err


def test_one_meaning_per_spelling_and_the_old_one_still_works_with_a_note(tmp_path: Path) -> None:
    """-D/--define is a ${NAME} value everywhere; -p/--message-property a message property; --property,
    which meant one in validate and the other in simulate and diff, keeps working with a note."""
    base = ("simulate", "-c", str(SAMPLE), "-f", "json", "--address", "orders")
    new = arouter(*base, "--message-property", "priority=9")
    old = arouter(*base, "--property", "priority=9")
    assert old.code == new.code == 0 and json.loads(old.out) == json.loads(new.out)
    assert "--property is now -p/--message-property" in old.err and "--property" not in new.err
    cfg = tmp_path / "broker.xml"
    cfg.write_text(SAMPLE.read_text(encoding="utf-8").replace("<key-filter>^.{3}</key-filter>",
                                                               "<key-filter>${KF}</key-filter>"), encoding="utf-8")
    for spelling in ("--define", "-D", "--property"):
        run = arouter("validate", "--no-settings", spelling, "KF=^.{3}", str(cfg), "-f", "json")
        assert "AR701" not in run.out, (spelling, run.out)
        assert ("--property is now -D/--define" in run.err) == (spelling == "--property"), run.err
    helped = arouter("simulate", "--help", env={"COLUMNS": "120"}).out
    assert "--message-property" in helped and "--property " not in helped
