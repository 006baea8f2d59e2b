"""``--broker-home`` on the command line: the installation's version, its whole-file schema, its loader, and
every bad input as one plain line with exit 2. Uses the real Artemis 2.40.0 distribution (tests/artemis_dist.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.artemis_dist import artemis_home
from tests.cli.helpers import arouter
from tests.real_clients import need

TYPO = """<configuration xmlns="urn:activemq">
  <core xmlns="urn:activemq:core">
    <jornal-type>NIO</jornal-type>
    <address-settings>
      <address-setting match="#"><max-siz-bytes>1</max-siz-bytes></address-setting>
    </address-settings>
  </core>
</configuration>
"""
CLEAN = TYPO.replace("jornal-type", "journal-type").replace("max-siz-bytes", "max-size-bytes")


@pytest.fixture(scope="module")
def home() -> Path:
    return artemis_home("2.40.0")


@pytest.fixture(scope="module")
def jdk() -> None:
    need(shutil.which("javac") is not None, "a JDK (javac) for the broker's loader")


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "broker.xml"
    path.write_text(text, encoding="utf-8")
    return path


def test_without_a_broker_home_a_typo_outside_the_routing_sections_deploys_and_the_report_says_why(
        tmp_path: Path) -> None:
    path = _file(tmp_path, TYPO)
    run = arouter("validate", "--no-broker-home", str(path))
    assert run.code == 0
    assert "not checked: elements outside the routing sections" in run.out and "--broker-home" in run.out
    doc = json.loads(arouter("validate", "--no-broker-home", "-f", "json", str(path)).out)
    assert doc["files"][0]["broker"] == "deploys"
    assert doc["coverage"]["checked"] == "routing-sections" and "--broker-home" in doc["coverage"]["hint"]
    sarif = json.loads(arouter("validate", "--no-broker-home", "-f", "sarif", str(path)).out)
    run0 = sarif["runs"][0]
    assert run0["properties"]["coverage"]["checked"] == "routing-sections"
    assert "--broker-home" in run0["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]


def test_the_whole_file_schema_and_the_loader_refuse_a_typo_anywhere(tmp_path: Path, home: Path, jdk: None) -> None:
    path = _file(tmp_path, TYPO)
    doc = json.loads(arouter("validate", "--broker-home", str(home), "-f", "json", str(path)).out)
    found = {(d["rule"], d["line"], d["column"]) for d in doc["files"][0]["diagnostics"]}
    assert ("AR107", 3, 5) in found and ("AR107", 5, 34) in found  # both typos, each at its element
    assert ("AR004", 3, 5) in found  # the broker's own loader refuses at the first
    assert "AR005" not in {r for r, _, _ in found}  # arouter and the broker agree
    assert doc["files"][0]["broker"] == "refuses-to-start" and doc["summary"]["exit_code"] == 1
    assert doc["coverage"] == {"checked": "whole-file", "broker_home": f"Artemis 2.40.0 at {home.resolve()}",
                               "broker_loader": True}
    text = arouter("validate", "--broker-home", str(home), str(path)).out
    assert "did you mean <journal-type>?" in text and "did you mean <max-size-bytes>?" in text


def test_a_clean_file_deploys_on_both_judges(tmp_path: Path, home: Path, jdk: None) -> None:
    run = arouter("validate", "--broker-home", str(home), str(_file(tmp_path, CLEAN)))
    assert run.code == 0, run.out + run.err
    assert "checked: the whole file against Artemis 2.40.0" in run.out and "its own loader" in run.out


def test_artemis_home_is_used_and_said_and_no_broker_home_ignores_it(tmp_path: Path, home: Path, jdk: None) -> None:
    path = _file(tmp_path, TYPO)
    run = arouter("validate", str(path), env={"ARTEMIS_HOME": str(home)})
    assert run.code == 1 and "AR107" in run.out
    assert "Artemis 2.40.0" in run.err and "$ARTEMIS_HOME" in run.err
    run = arouter("validate", "--no-broker-home", str(path), env={"ARTEMIS_HOME": str(home)})
    assert run.code == 0 and run.err == ""


def test_an_artemis_home_without_a_broker_is_not_used(tmp_path: Path) -> None:
    run = arouter("validate", str(_file(tmp_path, TYPO)), env={"ARTEMIS_HOME": str(tmp_path)})
    assert run.code == 0 and run.err == ""


def _one_line(run) -> str:
    assert run.code == 2 and run.out == ""
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.err
    return lines[0]


def test_bad_broker_homes_are_one_line_and_exit_2(tmp_path: Path, home: Path) -> None:
    path = str(_file(tmp_path, CLEAN))
    assert "no Artemis installation there" in _one_line(arouter("validate", "--broker-home", str(tmp_path), path))
    assert "no such directory" in _one_line(arouter("validate", "--broker-home", str(tmp_path / "nope"), path))
    instance = tmp_path / "inst"
    (instance / "etc").mkdir(parents=True)
    (instance / "etc" / "artemis.profile").write_text(f"ARTEMIS_HOME='{home}'\n", encoding="utf-8")
    line = _one_line(arouter("validate", "--broker-home", str(instance), path))
    assert "is a broker instance" in line and str(home) in line
    assert "contradict" in _one_line(arouter("validate", "--broker-home", str(home), "--no-broker-home", path))
    broken = tmp_path / "broken"
    (broken / "lib").mkdir(parents=True)
    (broken / "lib" / "artemis-server-2.40.0.jar").write_bytes(b"not a zip")
    assert "cannot read" in _one_line(arouter("validate", "--broker-home", str(broken), path))


def test_the_installations_version_is_the_broker_version(tmp_path: Path, home: Path) -> None:
    path = str(_file(tmp_path, CLEAN))
    line = _one_line(arouter("simulate", "-c", path, "--broker-home", str(home), "--broker-version", "2.35",
                             "-k", "CLIENT_ID=a"))
    assert "disagrees with --broker-home" in line and "2.40.0" in line
    run = arouter("simulate", "-c", "samples/broker.xml", "--broker-home", str(home), "--broker-version", "2.40",
                  "-k", "SOURCE_IP=10.0.0.1:5000", "-f", "json")
    assert run.code in (0, 1), run.err
    run = arouter("simulate", "-c", "samples/broker.xml", "--broker-home", str(home), "-k", "SOURCE_IP=10.0.0.1:5000",
                  "-f", "json")
    assert json.loads(run.out)["assumed"]["broker_version"] == "2.40"


def test_no_java_is_one_line_and_exit_2(tmp_path: Path, home: Path) -> None:
    path = str(_file(tmp_path, CLEAN))
    run = arouter("validate", "--broker-home", str(home), path, env={"PATH": str(tmp_path), "JAVA_HOME": ""})
    assert "not found on PATH" in _one_line(run)


ROLE_NAME = """<configuration xmlns="urn:activemq">
  <core xmlns="urn:activemq:core">
    <connection-routers>
      <connection-router name="r"><key-type>ROLE_NAME</key-type></connection-router>
    </connection-routers>
  </core>
</configuration>
"""


def test_role_name_in_broker_xml_is_refused_by_2_40_and_arouter_says_so_with_its_schema(
        tmp_path: Path, home: Path, jdk: None) -> None:
    # ARTEMIS-5439: broker.xml's key-type takes ROLE_NAME from 2.41.0; 2.40.0's schema refuses it.
    # arouter's own XSD follows 2.41, so the finding comes from the installation's schema (AR107).
    doc = json.loads(arouter("validate", "--broker-home", str(home), "-f", "json",
                             str(_file(tmp_path, ROLE_NAME))).out)
    rules = {(d["rule"], d["line"]) for d in doc["files"][0]["diagnostics"]}
    assert ("AR107", 4) in rules and ("AR004", 4) not in rules
    assert "AR005" not in {r for r, _ in rules}
    assert doc["files"][0]["broker"] == "refuses-to-start"


def test_simulate_engine_broker_shows_both_answers_and_they_agree(home: Path, jdk: None) -> None:
    run = arouter("simulate", "-c", "samples/broker.xml", "--engine", "broker", "--broker-home", str(home),
                  "-k", "CLIENT_ID=FOO1", "-k", "USER_NAME=alice", "-k", "SOURCE_IP=10.0.0.7:5000", "-f", "json",
                  "--node-id", "broker1=11111111-1111-1111-1111-111111111111",
                  "--node-id", "broker2=22222222-2222-2222-2222-222222222222")
    assert run.code == 0, run.err
    results = json.loads(run.out)["results"]
    assert len(results) > 3
    for r in results:
        assert r["agree"] in (True, None) and r["broker_engine"]["status"] in (
            "OK", "REFUSED_USE_ANOTHER", "REFUSED_UNAVAILABLE")
    assert any(r["agree"] is True and r["broker_engine"]["status"] == "OK" for r in results)
    text = arouter("simulate", "-c", "samples/broker.xml", "--engine", "broker", "--broker-home", str(home),
                   "-k", "CLIENT_ID=FOO1")
    assert "the broker's own router: OK" in text.out and "DISAGREES" not in text.out


def test_simulate_engine_broker_needs_a_broker_home(tmp_path: Path) -> None:
    line = _one_line(arouter("simulate", "-c", "samples/broker.xml", "--engine", "broker", "-k", "CLIENT_ID=a",
                             env={"ARTEMIS_HOME": ""}))
    assert "--broker-home" in line


def test_diff_and_analyze_take_the_broker_home(tmp_path: Path, home: Path) -> None:
    run = arouter("diff", "samples/broker.xml", "samples/broker.xml", "--broker-home", str(home))
    assert run.code == 0, run.err
    line = _one_line(arouter("diff", "samples/broker.xml", "samples/broker.xml", "--broker-home", str(tmp_path)))
    assert "no Artemis installation there" in line
    line = _one_line(arouter("analyze", "--keys", "nope.txt", "--broker-home", str(home), "--broker-version", "2.30"))
    assert "disagrees with --broker-home" in line


def test_a_jvm_that_times_out_or_a_driver_that_does_not_compile_is_one_line(tmp_path: Path, home: Path) -> None:
    path = str(_file(tmp_path, CLEAN))
    line = _one_line(arouter("validate", "--broker-home", str(home), path, env={"AROUTER_JUDGE_TIMEOUT": "0.01"}))
    assert "did not finish within" in line
    fake = tmp_path / "jdk" / "bin"
    fake.mkdir(parents=True)
    for tool in ("java", "javac"):
        (fake / tool).write_text("#!/bin/sh\necho 'Broken.java:1: error: this JDK is broken' >&2\nexit 1\n")
        (fake / tool).chmod(0o755)
    line = _one_line(arouter("validate", "--broker-home", str(home), path,
                             env={"JAVA_HOME": str(fake.parent), "XDG_CACHE_HOME": str(tmp_path / "cache")}))
    assert "does not compile" in line and "this JDK is broken" in line
    assert not any((tmp_path / "cache" / "arouter").glob("judge-*"))  # nothing half written in the cache


def test_broker_properties_beside_broker_xml_reach_the_brokers_loader(tmp_path: Path, home: Path, jdk: None) -> None:
    xml = _file(tmp_path, CLEAN.replace("</core>", '<connection-routers><connection-router name="r">'
                                                   '<policy name="FIRST_ELEMENT"/></connection-router>'
                                                   "</connection-routers></core>"))
    props = tmp_path / "broker.properties"
    props.write_text("connectionRouters.r.policyConfiguration=RANDOM\n", encoding="utf-8")
    doc = json.loads(arouter("validate", "--broker-home", str(home), "-f", "json", str(xml)).out)
    rules = {d["rule"] for d in doc["files"][0]["diagnostics"]}
    assert "AR004" in rules and "AR005" not in rules  # both refuse: no PolicyFactory for RANDOM
    props.write_text("connectionRouters.r.policyConfiguration=CONSISTENT_HASH\n", encoding="utf-8")
    doc = json.loads(arouter("validate", "--broker-home", str(home), "-f", "json", str(xml)).out)
    rules = {d["rule"] for d in doc["files"][0]["diagnostics"]}
    assert "AR004" not in rules and "AR005" not in rules


def test_simulate_with_a_broker_home_refuses_what_that_broker_refuses_anywhere_in_the_file(
        tmp_path: Path, home: Path) -> None:
    xml = _file(tmp_path, TYPO.replace("</core>", '<connection-routers><connection-router name="r">'
                                                  "<key-type>CLIENT_ID</key-type></connection-router>"
                                                  "</connection-routers></core>"))
    assert arouter("simulate", "-c", str(xml), "--no-broker-home", "-k", "CLIENT_ID=a").code == 0
    run = arouter("simulate", "-c", str(xml), "--broker-home", str(home), "-k", "CLIENT_ID=a")
    assert run.code == 1 and "AR107" in run.err and "jornal-type" in run.err


def test_the_brokers_message_never_shows_a_value_validate_hides(tmp_path: Path, home: Path, jdk: None) -> None:
    xml = _file(tmp_path, '<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">\n'
                          '<connection-routers><connection-router name="r1"><key-filter>${secret}</key-filter>'
                          "</connection-router></connection-routers>\n</core></configuration>\n")
    run = arouter("validate", "--broker-home", str(home), "-D", "secret=TOP[SECRET", str(xml))
    assert run.code == 1 and "AR004" in run.out and "PatternSyntaxException" in run.out
    assert "TOP[SECRET" not in run.out + run.err


def test_simulate_engine_broker_with_a_keys_file_answers_every_key_twice(tmp_path: Path, home: Path, jdk: None) -> None:
    keys = tmp_path / "keys.txt"
    keys.write_text("FOO1\nBAR2\napp-7\n\n0\nalice\n", encoding="utf-8")
    out = tmp_path / "both.jsonl"
    run = arouter("simulate", "-c", "samples/broker.xml", "--engine", "broker", "--broker-home", str(home),
                  "--keys-file", str(keys), "-r", "sticky-router", "-r", "local-partition", "-o", str(out))
    if run.code == 2 and "given twice" in run.err:  # -r takes one router: one at a time
        run = arouter("simulate", "-c", "samples/broker.xml", "--engine", "broker", "--broker-home", str(home),
                      "--keys-file", str(keys), "-r", "sticky-router", "-o", str(out))
    assert run.code == 0, run.err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 6 and all(r["agree"] for r in rows)
    assert {r["broker"]["status"] for r in rows} == {"OK"} and {r["key"] for r in rows} >= {"FOO1", "alice"}
