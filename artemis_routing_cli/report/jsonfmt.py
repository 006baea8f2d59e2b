"""``--format json``: one object, one entry per input file."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..diagnostics import DEPLOYS, REFUSES, Diagnostic
from ..linting import FileReport


def diagnostic_json(d: Diagnostic) -> dict[str, object]:
    return {
        "rule": d.rule,
        "severity": d.severity.value,
        "category": d.category,
        "message": d.message,
        "line": d.line,
        "column": d.column,
        "file": d.file,
        "section": d.section,
        "hint": d.hint,
        "broker": d.broker,
    }


def render(reports: Sequence[FileReport], exit_code: int) -> str:
    files = [
        {
            "path": r.path,
            "errors": r.errors,
            "warnings": r.warnings,
            "infos": r.infos,
            # the broker's verdict on the file, from every finding (suppressed and disabled ones too)
            "broker": REFUSES if any(d.broker == REFUSES for d in r.raw) else DEPLOYS,
            "diagnostics": [diagnostic_json(d) for d in r.diagnostics],
        }
        for r in reports
    ]
    summary = {
        "files": len(reports),
        "errors": sum(r.errors for r in reports),
        "warnings": sum(r.warnings for r in reports),
        "infos": sum(r.infos for r in reports),
        "unreadable": sum(1 for r in reports if r.fatal is not None),
        "exit_code": exit_code,
    }
    return json.dumps({"files": files, "summary": summary}, indent=2, ensure_ascii=False)
