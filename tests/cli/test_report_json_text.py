"""The JSON and SARIF reports, written from templates, are the text ``json.dumps(..., indent=2,
ensure_ascii=False)`` makes of the whole report object, whatever the findings hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from artemis_routing_cli import __version__
from artemis_routing_cli.diagnostics import DEPLOYS, REFUSES, SKIPS, Diagnostic, Severity
from artemis_routing_cli.linting import FileReport, lint_path
from artemis_routing_cli.report import jsonfmt, jsontext, sarif
from artemis_routing_cli.rules import all_rules
from tests.conftest import SAMPLE

# text a finding may quote: quotes, backslashes, control characters, non-ASCII, lone surrogates
_TEXT = st.text(st.characters(blacklist_categories=()), max_size=20) | st.sampled_from(
    ['"', "\\", "\x00\x1f\x7f", "é→😀", "\ud800", "\u2028", "</x>", '"results": []', '"diagnostics": []'])
_RULES = sorted(all_rules())


@st.composite
def _diagnostics(draw: Any) -> Diagnostic:
    return Diagnostic(draw(st.sampled_from(_RULES + ["AR999"])), draw(st.sampled_from(list(Severity))),
                      draw(_TEXT), draw(_TEXT), draw(_TEXT | st.sampled_from(["/abs/b.xml", "rel/é b.xml"])),
                      draw(st.integers(-5, 10**12)), draw(st.integers(0, 10**6)), draw(st.none() | _TEXT),
                      draw(st.none() | _TEXT), draw(st.sampled_from([REFUSES, SKIPS, DEPLOYS])))


_REPORTS = st.lists(st.builds(lambda path, ds, raw: FileReport(path, ds, raw=ds + raw),
                              _TEXT | st.just("/abs/a.xml"), st.lists(_diagnostics(), max_size=6),
                              st.lists(_diagnostics(), max_size=2)), max_size=3)


def _json_whole(reports: list[FileReport], code: int) -> str:
    """The JSON report as one json.dumps (how it was written before the templates)."""
    files = [{"path": r.path, "errors": r.errors, "warnings": r.warnings, "infos": r.infos,
              "broker": REFUSES if any(d.broker == REFUSES for d in r.raw) else DEPLOYS,
              "diagnostics": [jsonfmt.diagnostic_json(d) for d in r.diagnostics]} for r in reports]
    summary = {"files": len(reports), "errors": sum(r.errors for r in reports),
               "warnings": sum(r.warnings for r in reports), "infos": sum(r.infos for r in reports),
               "unreadable": sum(1 for r in reports if r.fatal is not None), "exit_code": code}
    return json.dumps({"files": files, "summary": summary}, indent=2, ensure_ascii=False)


def _sarif_whole(reports: list[FileReport], docs_url: str) -> str:
    """The SARIF report as one json.dumps of the whole object (how it was written before the templates)."""
    metas = all_rules()
    used = sorted({d.rule for r in reports for d in r.diagnostics})
    rule_ids = list(metas) if not used else used
    index = {rid: i for i, rid in enumerate(rule_ids)}
    rules: list[dict[str, Any]] = []
    for rid in rule_ids:
        meta = metas.get(rid)
        rules.append({"id": rid} if meta is None else {
            "id": meta.id, "name": meta.name, "shortDescription": {"text": meta.summary},
            "fullDescription": {"text": meta.doc or meta.summary}, "helpUri": f"{docs_url}#{meta.id.lower()}",
            "help": {"text": meta.doc or meta.summary},
            "defaultConfiguration": {"level": sarif._LEVEL[meta.severity]},
            "properties": {"category": meta.category, "broker": meta.broker}})
    results = [{"ruleId": d.rule, "ruleIndex": index[d.rule], "level": sarif._LEVEL[d.severity],
                "message": {"text": d.message},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": sarif._uri(d.file)},
                                                    "region": {"startLine": d.line, "startColumn": d.column}}}],
                "properties": {"broker": d.broker}} for r in reports for d in r.diagnostics]
    doc = {"$schema": sarif.SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "arouter", "version": __version__, "informationUri": docs_url, "rules": rules}},
        "artifacts": [{"location": {"uri": sarif._uri(r.path)}} for r in reports], "results": results}]}
    return json.dumps(doc, indent=2, ensure_ascii=False)


@settings(max_examples=100, deadline=None)
@given(_REPORTS, st.integers(0, 2))
def test_json_report_is_json_dumps_of_the_whole(reports: list[FileReport], code: int) -> None:
    assert jsonfmt.render(reports, code) == _json_whole(reports, code)


@settings(max_examples=100, deadline=None)
@given(_REPORTS, _TEXT)
def test_sarif_report_is_json_dumps_of_the_whole(reports: list[FileReport], docs_url: str) -> None:
    text = sarif.render(reports, docs_url=docs_url)
    assert text == _sarif_whole(reports, docs_url)
    assert len(json.loads(text)["runs"][0]["results"]) == sum(len(r.diagnostics) for r in reports)


def test_reports_of_real_files_are_json_dumps_of_the_whole(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from validate_gen import generate

    path = tmp_path / "broker.xml"
    path.write_text(generate(12, 30, 4), encoding="utf-8")
    reports = [lint_path(str(SAMPLE)), lint_path(str(path))]
    assert sum(len(r.diagnostics) for r in reports) > 10
    assert jsonfmt.render(reports, 1) == _json_whole(reports, 1)
    assert sarif.render(reports) == _sarif_whole(reports, sarif.DOCS)


def test_values_the_templates_do_not_write_go_through_json_dumps() -> None:
    """A bool or a float where a number goes, or a str subclass, is written as json.dumps writes it."""

    class Name(str):
        pass

    odd = [Diagnostic("AR101", Severity.ERROR, "schema", Name("m"), "f.xml", True, 2.5),  # type: ignore[arg-type]
           Diagnostic("AR101", Severity.ERROR, "schema", "m", "f.xml", 1, 2, hint=Name("h"))]
    reports = [FileReport("f.xml", odd, raw=odd)]
    assert not jsontext.plain((True,)) and not jsontext.plain((2.5,)) and not jsontext.plain((Name("x"),))
    assert jsonfmt.render(reports, 1) == _json_whole(reports, 1)
    assert '"line": true' in jsonfmt.render(reports, 1)
    assert sarif.render(reports) == _sarif_whole(reports, sarif.DOCS)


def test_splice_wants_the_last_key() -> None:
    text = jsontext.dumps({"a": [], "b": 1})
    with pytest.raises(ValueError):
        jsontext.splice(text, "a", ["    1"], 2)
    assert jsontext.splice(jsontext.dumps({"b": 1, "a": []}), "a", ["    1", "    2"], 2) == json.dumps(
        {"b": 1, "a": [1, 2]}, indent=2)
