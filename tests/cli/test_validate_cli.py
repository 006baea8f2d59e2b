"""``arouter validate``: the CI contract (formats, exit codes, suppressions, settings)."""

from __future__ import annotations

import json
from pathlib import Path

from lxml import etree

from tests.cli.helpers import arouter
from tests.conftest import SAMPLE, broker_xml

BAD_KEY_TYPE = """
<connection-routers>
  <connection-router name="r">
    <key-type>CLIENTID</key-type>
  </connection-router>
</connection-routers>"""


def _write(tmp_path: Path, core: str, name: str = "broker.xml") -> Path:
    p = tmp_path / name
    p.write_text(broker_xml(core), encoding="utf-8")
    return p


def test_sample_is_clean_exit_0() -> None:
    run = arouter("validate", str(SAMPLE))
    assert run.code == 0, run.out + run.err
    assert "no problems" in run.out or "0 error" in run.out


def test_schema_error_exit_1_with_line_and_column(tmp_path: Path) -> None:
    p = _write(tmp_path, BAD_KEY_TYPE)
    run = arouter("validate", str(p))
    assert run.code == 1
    assert f"{p}:7:5: error AR103" in run.out and "CLIENTID" in run.out


def test_json_shape(tmp_path: Path) -> None:
    good = SAMPLE
    bad = _write(tmp_path, BAD_KEY_TYPE)
    run = arouter("validate", "-f", "json", str(good), str(bad))
    assert run.code == 1
    data = json.loads(run.out)
    assert [f["path"] for f in data["files"]] == [str(good), str(bad)]
    d = next(x for x in data["files"][1]["diagnostics"] if x["rule"] == "AR103")
    assert set(d) >= {"rule", "severity", "category", "message", "line", "column", "section"}
    assert (d["rule"], d["severity"], d["category"], d["line"]) == ("AR103", "error", "schema", 7)
    assert data["files"][1]["errors"] == 1 and data["summary"]["errors"] >= 1


def test_sarif_has_rule_metadata_and_help_uri(tmp_path: Path) -> None:
    bad = _write(tmp_path, BAD_KEY_TYPE)
    run = arouter("validate", "-f", "sarif", str(bad))
    doc = json.loads(run.out)
    assert doc["version"] == "2.1.0"
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert any(r["id"] == "AR103" and r["helpUri"].endswith("#ar103") for r in rules)
    res = next(r for r in doc["runs"][0]["results"] if r["ruleId"] == "AR103")
    assert res["level"] == "error"
    assert res["locations"][0]["physicalLocation"]["region"] == {"startLine": 7, "startColumn": 5}


def test_junit_and_github_formats(tmp_path: Path) -> None:
    bad = _write(tmp_path, BAD_KEY_TYPE)
    junit = arouter("validate", "-f", "junit", str(bad), str(SAMPLE))
    root = etree.fromstring(junit.out.encode())
    assert root.tag == "testsuites" and root.get("failures") == "1"
    gh = arouter("validate", "-f", "github", str(bad))
    assert any(line.startswith(f"::error file={bad},line=7,col=5,title=AR103::") for line in gh.out.splitlines())


def test_malformed_input_exit_2_one_line(tmp_path: Path) -> None:
    p = tmp_path / "broken.xml"
    p.write_text("<configuration>\n  <core>\n</configuration>\n", encoding="utf-8")
    run = arouter("validate", str(p))
    assert run.code == 2
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"arouter: {p}:3:") and "Traceback" not in run.err


def test_stdin() -> None:
    run = arouter("validate", "-f", "json", "-", stdin=SAMPLE.read_text(encoding="utf-8"))
    assert run.code == 0, run.err
    assert json.loads(run.out)["files"][0]["path"] == "<stdin>"


def test_inline_suppression_with_reason_and_unused_report(tmp_path: Path) -> None:
    core = BAD_KEY_TYPE.replace('  <connection-router name="r">',
                                '  <!-- arouter: disable=AR103 migrating key types -->\n  <connection-router name="r">')
    p = _write(tmp_path, core + "\n<!-- arouter: disable=AR101 nothing here -->\n<name>x</name>")
    run = arouter("validate", "-f", "json", str(p))
    rules = [d["rule"] for d in json.loads(run.out)["files"][0]["diagnostics"]]
    assert "AR103" not in rules and "AR002" in rules
    assert run.code == 0  # AR002 is a warning


def test_suppression_without_reason_warns(tmp_path: Path) -> None:
    core = BAD_KEY_TYPE.replace('  <connection-router name="r">',
                                '  <!-- arouter: disable=invalid-value -->\n  <connection-router name="r">')
    run = arouter("validate", "-f", "json", str(_write(tmp_path, core)))
    rules = [d["rule"] for d in json.loads(run.out)["files"][0]["diagnostics"]]
    assert "AR003" in rules and "AR103" not in rules


def test_strict_and_fail_on(tmp_path: Path) -> None:
    core = BAD_KEY_TYPE.replace('  <connection-router name="r">',
                                '  <!-- arouter: disable=AR103 ok -->\n  <!-- arouter: disable=AR101 unused -->\n'
                                '  <connection-router name="r">')
    p = _write(tmp_path, core)
    assert arouter("validate", str(p)).code == 0
    assert arouter("validate", "--strict", str(p)).code == 1
    assert arouter("validate", "--fail-on", "warning", str(p)).code == 1
    assert arouter("validate", "--fail-on", "loud", str(p)).code == 2


def test_project_settings_disable_and_severity(tmp_path: Path) -> None:
    p = _write(tmp_path, BAD_KEY_TYPE)
    (tmp_path / ".arouter.toml").write_text('disable = ["invalid-value"]\n', encoding="utf-8")
    assert arouter("validate", str(p), cwd=tmp_path).code == 0
    (tmp_path / ".arouter.toml").write_text('[severity]\nAR103 = "warning"\n', encoding="utf-8")
    run = arouter("validate", "-f", "json", str(p), cwd=tmp_path)
    diags = json.loads(run.out)["files"][0]["diagnostics"]
    assert run.code == 0 and next(d for d in diags if d["rule"] == "AR103")["severity"] == "warning"
    assert arouter("validate", "--no-settings", str(p), cwd=tmp_path).code == 1
    (tmp_path / ".arouter.toml").write_text('disable = ["no-such-rule"]\n', encoding="utf-8")
    bad = arouter("validate", str(p), cwd=tmp_path)
    assert bad.code == 2 and "unknown rule" in bad.err


def test_property_definitions_reach_the_document(tmp_path: Path) -> None:
    core = BAD_KEY_TYPE.replace("CLIENTID", "${kt:CLIENTID}")
    p = _write(tmp_path, core)
    assert arouter("validate", str(p)).code == 1
    assert arouter("validate", "-D", "kt=CLIENT_ID", str(p)).code == 0


def test_output_file_is_written_whole(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    run = arouter("validate", "-f", "json", "-o", str(out), str(SAMPLE))
    assert run.code == 0 and run.out == ""
    assert json.loads(out.read_text(encoding="utf-8"))["summary"]["files"] == 1
