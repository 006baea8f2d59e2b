"""The broker's verdict (arouter.verdict): simulate, serve and analyze refuse exactly the configs
the broker would not start with, with validate's own finding; validate says the verdict of each finding.

Most checks run simulate in-process (typer's runner: the command raises the error the console
script prints); a handful run the real CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from artemis_routing_cli.cli.app import app
from artemis_routing_cli.diagnostics import DEPLOYS, REFUSES, SKIPS
from artemis_routing_cli.errors import BrokerRefusesError
from artemis_routing_cli.linting import lint_path
from artemis_routing_cli.rules import families
from artemis_routing_cli.verdict import finding_text

from ..rules.helpers import is_whole_file, wrap
from .helpers import REPO, arouter

CONNECTORS = ('<connectors><connector name="b1">tcp://b1:61616</connector>'
              '<connector name="b2">tcp://b2:61616</connector></connectors>\n')
STATIC = "<static-connectors><connector-ref>b1</connector-ref></static-connectors>"


def router(inner: str = "", *, name: str | None = "r1", policy: str = '<policy name="FIRST_ELEMENT"/>',
           pool: str = f"<pool>{STATIC}</pool>") -> str:
    attr = f' name="{name}"' if name is not None else ""
    return (CONNECTORS + f"<connection-routers><connection-router{attr}>{inner}{policy}{pool}"
            "</connection-router></connection-routers>")


def pool(body: str) -> str:
    return router(pool=f"<pool>{body}</pool>")


def modulo(props: str) -> str:
    return router("<local-target-filter>^0$</local-target-filter>",
                  policy=f'<policy name="CONSISTENT_HASH_MODULO">{props}</policy>', pool="")


# The configs of issue 14 the broker refuses to start with, and the rule validate reports.
REFUSED = {
    "pool-only-local-target": (pool("<local-target-enabled>true</local-target-enabled>"), "AR102"),
    "quorum-size-0": (pool(f"<quorum-size>0</quorum-size>{STATIC}"), "AR311"),
    "quorum-size-minus-1": (pool(f"<quorum-size>-1</quorum-size>{STATIC}"), "AR311"),
    "check-period-0": (pool(f"<check-period>0</check-period>{STATIC}"), "AR311"),
    "quorum-timeout-minus-1": (pool(f"<quorum-timeout>-1</quorum-timeout>{STATIC}"), "AR311"),
    "cache-timeout-minus-1": (router("<cache><persisted>false</persisted><timeout>-1</timeout></cache>"), "AR311"),
    "local-target-enabled-yes": (pool(f"<local-target-enabled>yes</local-target-enabled>{STATIC}"), "AR103"),
    "local-target-enabled-TRUE": (pool(f"<local-target-enabled>TRUE</local-target-enabled>{STATIC}"), "AR103"),
    "policy-RANDOM": (router(policy='<policy name="RANDOM"/>'), "AR301"),
    "policy-consistent_hash": (router(policy='<policy name="consistent_hash"/>'), "AR301"),
    "policy-spaced-CONSISTENT_HASH": (router(policy='<policy name=" CONSISTENT_HASH "/>'), "AR301"),
    "modulo-missing": (modulo(""), "AR302"),
    "modulo-lower-case": (modulo('<property key="modulo" value="3"/>'), "AR303"),
    "modulo-spaced-3": (modulo('<property key="MODULO" value=" 3"/>'), "AR302"),
    "threshold-many": (router(policy='<policy name="LEAST_CONNECTIONS"><property key="CONNECTION_COUNT_THRESHOLD" '
                                     'value="many"/></policy>'), "AR314"),
    "unknown-cluster-connection": (pool("<cluster-connection>nosuch</cluster-connection>"), "AR203"),
    "unknown-discovery-group": (pool('<discovery-group-ref discovery-group-name="nosuch"/>'), "AR106"),
    "key-type-spaced-CLIENT_ID": (router("<key-type> CLIENT_ID </key-type>"), "AR103"),
    "router-without-name": (router(name=None), "AR104"),
    "password-not-decodable": (pool(f"<password>ENC(s3cret)</password>{STATIC}"), "AR404"),
    "password-cut-short": (pool(f"<password>ENC(3bdfd94fe8cdf710e7fefa72f809ea)</password>{STATIC}"), "AR404"),
    "mask-password-true-decodes-ENC-as-written": (
        "<mask-password>true</mask-password>\n"
        + pool(f"<password>ENC(3bdfd94fe8cdf710e7fefa72f809ea90)</password>{STATIC}"), "AR404"),
    "password-of-a-replaced-pool": (router(pool=f"<pool><password>ENC(zz)</password>{STATIC}</pool>"
                                              f"<pool>{STATIC}</pool>"), "AR404"),
    "cluster-password-not-decodable": ("<cluster-password>ENC(0123)</cluster-password>\n" + router(), "AR404"),
    "acceptor-without-port": ('<acceptors><acceptor name="a">tcp://0.0.0.0?router=r1</acceptor></acceptors>\n'
                              + router(), "AR703"),
    "acceptor-host-java-refuses": ('<acceptors><acceptor name="a">tcp://my_host:61616?router=r1</acceptor>'
                                   "</acceptors>\n" + router(), "AR702"),
    "empty-property-name": ("<name>${}</name>\n" + router(), "AR705"),
    "key-filter-typo": (router("<key-fliter>^.{3}</key-fliter>"), "AR101"),
}

runner = CliRunner()


def write(tmp_path: Path, fragment: str, name: str = "broker.xml") -> Path:
    path = tmp_path / name
    if is_whole_file(fragment):
        path.write_text(fragment, encoding="utf-8")
    else:
        path.write_text(wrap(fragment), encoding="utf-8")
    return path


def simulate(path: Path, *args: str):
    result = runner.invoke(app, ["simulate", "-c", str(path), *args], catch_exceptions=True)
    return result


def refusals(path: Path) -> list:
    return [d for d in lint_path(str(path)).raw if d.broker == REFUSES]


@pytest.mark.parametrize("case", list(REFUSED), ids=list(REFUSED))
def test_simulate_refuses_what_the_broker_refuses(tmp_path: Path, case: str) -> None:
    fragment, rule = REFUSED[case]
    path = write(tmp_path, fragment)
    found = refusals(path)
    assert rule in {d.rule for d in found}
    keys = tmp_path / "keys.txt"
    keys.write_text("FOO1\nBAR2\n", encoding="utf-8")
    for args in (["-k", "CLIENT_ID=FOO1"], ["--management", "-k", "FOO1"], ["--keys-file", str(keys)]):
        result = simulate(path, *args)
        assert isinstance(result.exception, BrokerRefusesError), (case, result.output)
        err = result.exception
        assert err.exit_code == 1
        first = found[0]
        assert str(err).startswith(finding_text(first))  # validate's own line: file:line:col, rule, message
        assert "refuses to start" in str(err)


def test_a_connector_that_cannot_connect_deploys(tmp_path: Path) -> None:
    fragment = router().replace("tcp://b1:61616", "tcp://my_host:61616")
    path = write(tmp_path, fragment)
    assert [d.broker for d in lint_path(str(path)).raw if d.rule == "AR702"] == [DEPLOYS]
    assert simulate(path, "-k", "CLIENT_ID=FOO1").exception is None


def test_masked_passwords_that_decode_deploy_and_none_is_shown(tmp_path: Path) -> None:
    good = write(tmp_path, "<mask-password>true</mask-password>\n"
                 + pool(f"<password>3bdfd94fe8cdf710e7fefa72f809ea90</password>{STATIC}"), "good.xml")
    assert refusals(good) == []
    bad = write(tmp_path, pool(f"<password>ENC(Zq7secretZq7)</password>{STATIC}"), "bad.xml")
    run = arouter("simulate", "-c", str(bad), "-k", "CLIENT_ID=FOO1")
    assert run.code == 1 and "AR404" in run.err
    assert "Zq7secretZq7" not in run.err + run.out


def test_a_broken_router_stops_the_broker_whichever_router_is_simulated(tmp_path: Path) -> None:
    fragment = (CONNECTORS + "<connection-routers>"
                '<connection-router name="good"><policy name="FIRST_ELEMENT"/><pool>' + STATIC + "</pool>"
                "</connection-router>"
                '<connection-router name="bad"><policy name="RANDOM"/></connection-router>'
                "</connection-routers>")
    path = write(tmp_path, fragment)
    result = simulate(path, "-r", "good", "-k", "CLIENT_ID=FOO1")
    assert isinstance(result.exception, BrokerRefusesError)
    assert "AR301" in str(result.exception)


def test_a_router_written_twice_is_deployed_once_as_last_written(tmp_path: Path) -> None:
    fragment = (CONNECTORS + "<connection-routers>"
                '<connection-router name="r1"><policy name="FIRST_ELEMENT"/><pool>' + STATIC + "</pool>"
                "</connection-router>"
                '<connection-router name="r1"><local-target-filter>.*</local-target-filter></connection-router>'
                "</connection-routers>")
    path = write(tmp_path, fragment)
    assert [d.broker for d in lint_path(str(path)).raw if d.rule == "AR208"] == [DEPLOYS]
    payload = json.loads(simulate(path, "-k", "CLIENT_ID=FOO1", "-f", "json").stdout)
    assert [(r["router"], r["target"], r["broker"]) for r in payload["results"]] == [("r1", "local", DEPLOYS)]


def test_a_suppressed_refusal_still_refuses(tmp_path: Path) -> None:
    fragment = router(policy='<!-- arouter: disable=AR301 trying it out -->\n<policy name="RANDOM"/>')
    path = write(tmp_path, fragment)
    doc = json.loads(arouter("validate", "-f", "json", str(path)).out)
    assert [d["rule"] for d in doc["files"][0]["diagnostics"]] == ["AR205"]
    assert doc["files"][0]["broker"] == REFUSES
    assert isinstance(simulate(path, "-k", "CLIENT_ID=FOO1").exception, BrokerRefusesError)


def test_message_flow_is_refused_too(tmp_path: Path) -> None:
    fragment = REFUSED["key-filter-typo"][0] + '<diverts><divert name="d"><address>a</address>' \
        "<forwarding-address>b</forwarding-address></divert></diverts>"
    path = write(tmp_path, fragment)
    result = simulate(path, "--address", "a")
    assert isinstance(result.exception, BrokerRefusesError) and "AR101" in str(result.exception)


def test_ignore_invalid_warns_and_goes_on(tmp_path: Path) -> None:
    path = write(tmp_path, REFUSED["key-filter-typo"][0])
    run = arouter("simulate", "-c", str(path), "-k", "CLIENT_ID=FOO1", "--ignore-invalid", "-e")
    assert run.code == 0, run.err
    assert "AR101" in run.err and "--ignore-invalid" in run.err
    assert "the broker would not start" in run.out  # the deploy step of --explain
    payload = json.loads(arouter("simulate", "-c", str(path), "-k", "CLIENT_ID=FOO1", "--ignore-invalid",
                                 "-f", "json").out)
    assert payload["results"][0]["broker"] == REFUSES


def test_the_cli_prints_validates_finding_and_exits_1(tmp_path: Path) -> None:
    path = write(tmp_path, REFUSED["policy-RANDOM"][0])
    sim = arouter("simulate", "-c", str(path), "-k", "CLIENT_ID=FOO1")
    val = arouter("validate", str(path))
    assert (sim.code, val.code) == (1, 1)
    line = next(x for x in val.out.splitlines() if " AR301 " in x)
    assert sim.err.startswith(f"arouter: {line}")
    assert sim.out == ""


def test_simulate_names_the_error_the_broker_fails_on_first_and_validate_lists_both(tmp_path: Path) -> None:
    # issue 36: the broker builds the policy before it compiles the key-filter (the real broker's
    # start-up on this case: tests/config/test_failure_order_broker.py)
    path = write(tmp_path, "")
    props = tmp_path / "broker.properties"
    props.write_text("connectionRouters.r.keyType=CLIENT_ID\nconnectionRouters.r.keyFilter=(\n"
                     "connectionRouters.r.policyConfiguration=CONSISTENT_HASH_MODULO\n"
                     "connectionRouters.r.policyConfiguration.properties.MODULO=abc\n", encoding="utf-8")
    sim = arouter("simulate", "-c", str(path), "--properties", str(props), "-k", "CLIENT_ID=FOO1")
    val = arouter("validate", str(path), "--properties", str(props))
    assert (sim.code, val.code) == (1, 1)
    assert " AR309 " in val.out and " AR302 " in val.out
    line = next(x for x in val.out.splitlines() if " AR302 " in x)
    assert sim.err.startswith(f"arouter: {line} (and 1 more finding(s) that stop the broker)")


def test_serve_refuses_to_start(tmp_path: Path) -> None:
    path = write(tmp_path, REFUSED["quorum-size-0"][0])
    run = arouter("serve", "-c", str(path), "--listen", "127.0.0.1:0", "-r", "r1")
    assert run.code == 1
    assert "AR311" in run.err and "refuses to start" in run.err


def test_analyze_fails_before_spark_starts(tmp_path: Path) -> None:
    path = write(tmp_path, REFUSED["threshold-many"][0])
    keys = tmp_path / "keys.txt"
    keys.write_text("FOO1\n", encoding="utf-8")
    run = arouter("analyze", "-c", str(path), "--keys", str(keys))
    assert run.code == 1
    assert "AR314" in run.err and "spark" not in run.err.lower()


def test_missing_connector_and_unreachable_quorum_start(tmp_path: Path) -> None:
    fragment = pool("<quorum-size>3</quorum-size><static-connectors><connector-ref>b1</connector-ref>"
                    "<connector-ref>nosuch</connector-ref></static-connectors>")
    path = write(tmp_path, fragment)
    diags = {d.rule: d for d in lint_path(str(path)).raw}
    assert diags["AR201"].broker == SKIPS
    assert diags["AR312"].broker == DEPLOYS
    result = simulate(path, "-k", "CLIENT_ID=FOO1", "-e")
    assert result.exception is None, result.output
    assert "logs and skips" in result.output and "AR201" in result.output  # in --explain
    payload = json.loads(simulate(path, "-k", "CLIENT_ID=FOO1", "-f", "json").stdout)
    steps = payload["results"][0]["trace"]
    assert steps[0]["step"] == "deploy" and "AR201" in steps[0]["detail"]
    assert payload["results"][0]["broker"] == SKIPS
    assert "AR201" in payload["results"][0]["broker_notes"][0]


def test_every_finding_says_the_verdict_in_text_json_and_sarif(tmp_path: Path) -> None:
    path = write(tmp_path, REFUSED["policy-RANDOM"][0])
    text = arouter("validate", str(path)).out
    assert "(policy-unknown) [broker: refuses to start]" in text
    assert "(router-unused) [broker: deploys]" in text
    doc = json.loads(arouter("validate", "-f", "json", str(path)).out)
    assert doc["files"][0]["broker"] == REFUSES
    verdicts = {d["rule"]: d["broker"] for d in doc["files"][0]["diagnostics"]}
    assert verdicts == {"AR301": REFUSES, "AR205": DEPLOYS}
    github = arouter("validate", "-f", "github", str(path)).out
    assert "refuses to start (No PolicyFactory found) [broker: refuses to start]" in github
    junit = arouter("validate", "-f", "junit", str(path)).out
    assert "[broker: refuses to start]" in junit
    sarif = json.loads(arouter("validate", "-f", "sarif", str(path)).out)
    results = {r["ruleId"]: r["properties"]["broker"] for r in sarif["runs"][0]["results"]}
    assert results == verdicts


# -- validate and simulate agree on deployability: every rule example and the real corpus ------

EXAMPLES = [(m.id, kind, fragment) for mod in families() for m in mod.RULES
            for kind, fragment in (("fail", m.fail), ("ok", m.ok))]


def _agree(path: Path) -> bool:
    refused = bool(refusals(path))
    result = simulate(path, "-k", "CLIENT_ID=FOO1")
    return refused == isinstance(result.exception, BrokerRefusesError)


@pytest.mark.parametrize("rule,kind,fragment", EXAMPLES, ids=[f"{r}-{k}" for r, k, _ in EXAMPLES])
def test_validate_and_simulate_agree_on_the_rule_examples(tmp_path: Path, rule: str, kind: str,
                                                          fragment: str) -> None:
    path = write(tmp_path, fragment)
    assert _agree(path)


def _corpus() -> list[Path]:
    for root in (REPO.parent / "shared" / "corpus", REPO.parent.parent / "shared" / "corpus"):
        if root.is_dir():
            return sorted(root.rglob("*.xml"))
    return []


CORPUS = _corpus()


@pytest.mark.skipif(not CORPUS, reason="../shared/corpus is absent")
def test_validate_and_simulate_agree_on_the_corpus() -> None:
    disagree = [str(p) for p in CORPUS if not _agree(p)]
    assert disagree == []
    assert len(CORPUS) == 179
