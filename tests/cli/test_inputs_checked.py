"""Every command checks what it is given before any work: target names, repeated keys, keys a router
does not read, typed property literals, the targets file's own flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from artemis_routing_cli.config import load
from artemis_routing_cli.errors import UsageError
from artemis_routing_cli.routing.selection import select_routers
from artemis_routing_cli.routing.targets import TargetState, state_from_options
from tests.cli.helpers import arouter
from tests.conftest import SAMPLE


@pytest.mark.parametrize("flag", [["--down", "broker9"], ["--node-id", "broker9=abc"],
                                  ["--connections", "broker9=4"]])
def test_simulate_refuses_an_unknown_target_name_and_lists_the_known_ones(flag: list[str]) -> None:
    run = arouter("simulate", "-c", str(SAMPLE), "-r", "sticky-router", "-k", "CLIENT_ID=x", *flag)
    assert run.code == 2, run.out
    assert run.out == ""
    [line] = run.err.strip().splitlines()
    assert line == (f"arouter: {flag[0]} 'broker9': no such target in the pool of router sticky-router "
                    "(targets: local, broker1, broker2, broker3)")


def test_a_name_of_another_routers_pool_is_refused_for_the_chosen_router() -> None:
    """consistent-hash-router's pool is a discovery group: broker1 is no target of it (README's old example)."""
    run = arouter("simulate", "-c", str(SAMPLE), "-r", "consistent-hash-router", "-k", "USER_NAME=bob",
                  "--node-id", "local=5d1f", "--node-id", "broker1=8a3c")
    assert run.code == 2
    assert "--node-id 'broker1': no such target in the pool of router consistent-hash-router (targets: local)" \
        in run.err


def test_known_names_local_and_targets_file_members_are_accepted(tmp_path: Path) -> None:
    targets = tmp_path / "t.json"
    targets.write_text(json.dumps({"format": "arouter-targets/1", "targets": [
        {"name": "n-a", "source": "discovery:dg2", "host": "10.0.0.7", "port": 61616, "node_id": "n-a",
         "node_id_known": True},
        {"name": "n-b", "source": "discovery:dg2", "host": "10.0.0.8", "port": 61616, "node_id": "n-b",
         "node_id_known": True}]}))
    run = arouter("simulate", "-c", str(SAMPLE), "-r", "evenly-balance", "-k", "CLIENT_ID=abc", "-f", "json",
                  "--targets", str(targets), "--connections", "n-a=40", "--connections", "n-b=12",
                  "--node-id", "local=L1")
    assert run.code == 0, run.err
    [res] = json.loads(run.out)["results"]
    assert res["target"] == "n-b"  # LEAST_CONNECTIONS: the counts were read


def test_every_unknown_name_is_counted_in_the_one_line() -> None:
    cfg = load(str(SAMPLE))
    state = state_from_options(["nope=1"], ["gone"], ["x=1"])
    with pytest.raises(UsageError) as err:
        select_routers(cfg, state, None, None)
    assert str(err.value).startswith("--node-id 'nope': no such target in the pool of any of the 6 routers")
    assert str(err.value).endswith("and 2 more unknown target name(s)")


def test_the_same_key_type_twice_is_refused() -> None:
    run = arouter("simulate", "-c", str(SAMPLE), "-k", "CLIENT_ID=a", "-k", "client_id=b")
    assert (run.code, run.out) == (2, ""), run.err  # stderr says which error, should it ever differ
    assert run.err.strip() == ("arouter: --key CLIENT_ID given twice ('a' and 'b'): a connection has one "
                               "CLIENT_ID; give it once")


def test_a_key_the_router_does_not_read_is_said() -> None:
    run = arouter("simulate", "-c", str(SAMPLE), "-r", "local-partition", "-k", "USER_NAME=bob", "-f", "json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert data["warnings"] == [
        "--key USER_NAME: router local-partition does not read it (it reads CLIENT_ID)",
        "local-partition reads CLIENT_ID, which the connection does not have: its key is NULL",
    ]
    assert data["results"][0]["key"] == "NULL"
    text = arouter("simulate", "-c", str(SAMPLE), "-r", "local-partition", "-k", "USER_NAME=bob")
    assert "warning: --key USER_NAME: router local-partition does not read it (it reads CLIENT_ID)" in text.err


def test_a_key_every_router_reads_brings_no_note() -> None:
    run = arouter("simulate", "-c", str(SAMPLE), "-r", "local-partition", "-k", "CLIENT_ID=FOO1", "-f", "json")
    assert json.loads(run.out)["warnings"] == []


def test_an_untyped_property_literal_is_refused() -> None:
    run = arouter("simulate", "-c", str(SAMPLE), "--address", "orders", "-p", "priority=abc")
    assert (run.code, run.out) == (2, "")
    [line] = run.err.strip().splitlines()
    assert line.startswith("arouter: --message-property value 'abc' is not a typed literal: "
                           "write text in quotes ('abc')")
    quoted = arouter("simulate", "-c", str(SAMPLE), "--address", "orders", "-p", "priority='abc'")
    assert quoted.code == 0, quoted.err


def test_targets_file_placeholders_stay_placeholders(tmp_path: Path) -> None:
    targets = tmp_path / "t.json"
    targets.write_text(json.dumps({"format": "arouter-targets/1", "targets": [
        {"name": name, "source": "static", "node_id": name, "node_id_known": False} for name in
        ("broker1", "broker2", "broker3")]}))
    run = arouter("simulate", "-c", str(SAMPLE), "-r", "sticky-router", "-k", "CLIENT_ID=app-7",
                  "--targets", str(targets), "--node-id", "local=zz")
    assert run.code == 0, run.err
    assert "* placeholder node id" in run.out
    assert "node ids unknown for broker1, broker2, broker3" in run.err
    as_json = arouter("simulate", "-c", str(SAMPLE), "-r", "sticky-router", "-k", "CLIENT_ID=app-7",
                      "--targets", str(targets), "--node-id", "local=zz", "-f", "json")
    [res] = json.loads(as_json.out)["results"]
    assert res["target"] != "local" and res["node_id_known"] is False


def test_targets_file_flag_of_the_wrong_type_is_refused(tmp_path: Path) -> None:
    targets = tmp_path / "t.json"
    targets.write_text(json.dumps({"targets": [{"name": "broker1", "node_id": "x", "node_id_known": "no"}]}))
    run = arouter("simulate", "-c", str(SAMPLE), "-k", "CLIENT_ID=x", "--targets", str(targets))
    assert run.code == 2
    assert run.err.strip().endswith(f'{targets}: targets[0] "node_id_known" must be true or false')


def test_serve_names_an_unknown_router_before_anything_else() -> None:
    run = arouter("serve", "-c", str(SAMPLE), "-r", "nosuch")
    assert (run.code, run.out) == (2, "")
    assert run.err.strip() == (f"arouter: no connection router named 'nosuch' in {SAMPLE} (routers: local-partition, "
                               "simple-router, consistent-hash-router, evenly-balance, shard-router, sticky-router)")


def test_serve_refuses_an_unknown_target_of_a_static_pool() -> None:
    run = arouter("serve", "-c", str(SAMPLE), "-r", "sticky-router", "--no-monitor", "--down", "broker9")
    assert (run.code, run.out) == (2, "")
    assert "--down 'broker9': no such target in the pool of router sticky-router" in run.err


def test_the_empty_state_names_nothing() -> None:
    assert select_routers(load(str(SAMPLE)), TargetState(), "sticky-router", None)[0].name == "sticky-router"


def test_validate_says_an_unreadable_file_once(tmp_path: Path) -> None:
    missing = tmp_path / "nosuch.xml"
    run = arouter("validate", str(missing), str(SAMPLE))
    assert run.code == 2
    assert (run.out + run.err).count("file not found") == 1
    assert run.err.strip() == f"arouter: {missing}: file not found"
    assert "1 file checked: no problems" in run.out  # the readable one is still reported


@pytest.mark.parametrize(("args", "message"), [
    (["validate", "-f", "json", "--format", "text", str(SAMPLE)], "--format given twice"),
    (["validate", "-o", "a.sarif", "--output=b.sarif", str(SAMPLE)], "--output given twice"),
    (["simulate", "-r", "sticky-router", "-r", "simple-router", "-k", "CLIENT_ID=x"],
     "--router given twice (-r and -r): it takes one value; give it once"),
    (["simulate", "--config", str(SAMPLE), "-c", str(SAMPLE), "-k", "CLIENT_ID=x"], "--config given twice"),
    (["serve", "-c", str(SAMPLE), "--log-format", "json", "--log-format=text"], "--log-format given twice"),
])
def test_a_single_valued_option_given_twice_is_refused(args: list[str], message: str, tmp_path: Path) -> None:
    """The last value would silently win."""
    run = arouter(*args, cwd=tmp_path)
    assert (run.code, run.out) == (2, "")
    [line] = run.err.strip().splitlines()
    assert line.startswith(f"arouter: {message}")


def test_repeatable_options_and_values_that_look_alike_stay_accepted() -> None:
    from artemis_routing_cli.cli.checks import repeated_option

    single = {"-f": "--format", "--format": "--format"}
    assert repeated_option(["-k", "A=1", "-k", "B=2", "-f", "json"], single) is None
    assert repeated_option(["-f", "-f"], single) is None  # the value of -f is '-f'
    assert repeated_option(["-fjson", "--", "-f"], single) is None
    assert repeated_option(["-fjson", "--format=text"], single) == \
        "--format given twice (-f and --format): it takes one value; give it once"
