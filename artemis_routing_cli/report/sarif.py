"""``--format sarif``: SARIF 2.1.0 with rule metadata and help links into docs/rules.md."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..diagnostics import Severity
from ..linting import FileReport
from ..rules import all_rules

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
DOCS = "docs/rules.md"  # relative to the repository; override with --docs-url
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _uri(path: str) -> str:
    p = Path(path)
    return p.as_posix() if not p.is_absolute() else p.as_uri()


def render(reports: Sequence[FileReport], *, docs_url: str = DOCS) -> str:
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
    results = []
    for r in reports:
        for d in r.diagnostics:
            results.append({
                "ruleId": d.rule,
                "ruleIndex": index[d.rule],
                "level": _LEVEL[d.severity],
                "message": {"text": d.message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(d.file)},
                        "region": {"startLine": d.line, "startColumn": d.column},
                    }
                }],
                "properties": {"broker": d.broker},
            })
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
            "results": results,
        }],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)
