"""``--format sarif``: SARIF 2.1.0 with rule metadata and help links into docs/rules.md."""

from __future__ import annotations

from collections.abc import Sequence
from json.encoder import encode_basestring
from pathlib import Path

from .. import __version__
from ..diagnostics import Diagnostic, Severity
from ..linting import FileReport
from ..rules import all_rules
from . import jsontext
from .coverage import Coverage

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
DOCS = "docs/rules.md"  # relative to the repository; override with --docs-url
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _uri(path: str) -> str:
    p = Path(path)
    return p.as_posix() if not p.is_absolute() else p.as_uri()


def render(reports: Sequence[FileReport], *, docs_url: str = DOCS, coverage: Coverage | None = None) -> str:
    metas = all_rules()
    used = sorted({d.rule for r in reports for d in r.diagnostics})
    rule_ids = list(metas) if not used else used
    index = {rid: i for i, rid in enumerate(rule_ids)}
    rules = []
    for rid in rule_ids:
        meta = metas.get(rid)
        if meta is None:
            rules.append({"id": rid})
            continue
        rules.append({
            "id": meta.id,
            "name": meta.name,
            "shortDescription": {"text": meta.summary},
            "fullDescription": {"text": meta.doc or meta.summary},
            "helpUri": f"{docs_url}#{meta.id.lower()}",
            "help": {"text": meta.doc or meta.summary},
            "defaultConfiguration": {"level": _LEVEL[meta.severity]},
            "properties": {"category": meta.category, "broker": meta.broker},
        })
    uris: dict[str, str] = {}  # by file: one per file the report names
    results = []
    for r in reports:
        for d in r.diagnostics:
            uri = uris.get(d.file)
            if uri is None:
                uri = uris[d.file] = _uri(d.file)
            results.append(_result_text(d, index[d.rule], uri))
    doc = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "arouter",
                "version": __version__,
                "informationUri": docs_url,
                "rules": rules,
            }},
            "artifacts": [{"location": {"uri": _uri(r.path)}} for r in reports],
            "results": [],
        }],
    }
    if coverage is not None:  # what the run judged, as a property bag and a notification a viewer shows
        run = doc["runs"][0]  # type: ignore[index]
        empty = run.pop("results")
        run["invocations"] = [{"executionSuccessful": True, "toolExecutionNotifications": [
            {"level": "note", "message": {"text": coverage.text()}}]}]
        run["properties"] = {"coverage": coverage.as_json()}
        run["results"] = empty  # last: the findings are spliced in there
    # everything but the results through json.dumps; the results (one per finding) put in as written
    return jsontext.splice(jsontext.dumps(doc), "results", results, 4)


def _result(d: Diagnostic, index: int, uri: str) -> dict[str, object]:
    """One finding as a SARIF result."""
    return {
        "ruleId": d.rule,
        "ruleIndex": index,
        "level": _LEVEL[d.severity],
        "message": {"text": d.message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": uri},
                "region": {"startLine": d.line, "startColumn": d.column},
            }
        }],
        "properties": {"broker": d.broker},
    }


_INDENT_RESULT = jsontext.INDENT * 4


def _result_text(d: Diagnostic, index: int, uri: str) -> str:
    """``_result(d, index, uri)`` as json.dumps writes it in the run's results (four levels deep)."""
    if not jsontext.plain((d.rule, index, d.message, uri, d.line, d.column, d.broker)):
        return _INDENT_RESULT + jsontext.dumps(_result(d, index, uri), 4)
    s = encode_basestring
    return (f'        {{\n          "ruleId": {s(d.rule)},\n          "ruleIndex": {index},\n'
            f'          "level": {s(_LEVEL[d.severity])},\n          "message": {{\n'
            f'            "text": {s(d.message)}\n          }},\n          "locations": [\n            {{\n'
            f'              "physicalLocation": {{\n                "artifactLocation": {{\n'
            f'                  "uri": {s(uri)}\n                }},\n                "region": {{\n'
            f'                  "startLine": {d.line},\n                  "startColumn": {d.column}\n'
            f'                }}\n              }}\n            }}\n          ],\n          "properties": {{\n'
            f'            "broker": {s(d.broker)}\n          }}\n        }}')
