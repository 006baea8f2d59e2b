"""``--format json``: one object, one entry per input file."""

from __future__ import annotations

from collections.abc import Sequence
from json.encoder import encode_basestring

from ..diagnostics import DEPLOYS, REFUSES, Diagnostic
from ..linting import FileReport
from . import jsontext
from .coverage import Coverage


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


def render(reports: Sequence[FileReport], exit_code: int, coverage: Coverage | None = None) -> str:
    summary = {
        "files": len(reports),
        "errors": sum(r.errors for r in reports),
        "warnings": sum(r.warnings for r in reports),
        "infos": sum(r.infos for r in reports),
        "unreadable": sum(1 for r in reports if r.fatal is not None),
        "exit_code": exit_code,
    }
    tail = "" if coverage is None else ',\n  "coverage": ' + jsontext.dumps(coverage.as_json(), 1)
    if not reports:
        whole: dict[str, object] = {"files": [], "summary": summary}
        if coverage is not None:
            whole["coverage"] = coverage.as_json()
        return jsontext.dumps(whole)
    files = []
    for r in reports:
        head = {
            "path": r.path,
            "errors": r.errors,
            "warnings": r.warnings,
            "infos": r.infos,
            # the broker's verdict on the file, from every finding (suppressed and disabled ones too)
            "broker": REFUSES if any(d.broker == REFUSES for d in r.raw) else DEPLOYS,
            "diagnostics": [],
        }
        files.append(_INDENT_FILE + jsontext.splice(jsontext.dumps(head, 2), "diagnostics",
                                                     [_diagnostic_text(d) for d in r.diagnostics], 4))
    return ('{\n  "files": [\n' + ",\n".join(files) + '\n  ],\n  "summary": ' + jsontext.dumps(summary, 1)
            + tail + "\n}")


_INDENT_FILE = jsontext.INDENT * 2
_INDENT_DIAGNOSTIC = jsontext.INDENT * 4


def _diagnostic_text(d: Diagnostic) -> str:
    """``diagnostic_json(d)`` as json.dumps writes it inside a file's list (four levels deep)."""
    severity = d.severity._value_  # what .value reads, without the enum's property call per finding
    section, hint = d.section, d.hint
    # jsontext.plain over the ten values, written out: a finding's values are nearly always exactly str and int
    if not (type(d.rule) is str and type(severity) is str and type(d.category) is str and type(d.message) is str
            and type(d.line) is int and type(d.column) is int and type(d.file) is str
            and (section is None or type(section) is str) and (hint is None or type(hint) is str)
            and type(d.broker) is str):
        return _INDENT_DIAGNOSTIC + jsontext.dumps(diagnostic_json(d), 4)
    s, maybe = encode_basestring, jsontext.string
    return (f'        {{\n          "rule": {s(d.rule)},\n          "severity": {s(severity)},\n'
            f'          "category": {s(d.category)},\n          "message": {s(d.message)},\n'
            f'          "line": {d.line},\n          "column": {d.column},\n          "file": {s(d.file)},\n'
            f'          "section": {maybe(section)},\n          "hint": {maybe(hint)},\n'
            f'          "broker": {s(d.broker)}\n        }}')
