"""``arouter replay``'s outputs from its JSON document (replay.summary.Summary.to_json): a text table,
Markdown and a self-contained HTML page (no script, no network; the drift timeline as inline SVG)."""

from __future__ import annotations

from html import escape
from typing import Any

VERDICT_ORDER = ("agrees", "explained", "drift", "unkeyed")
# C0 and C1 controls but the report's own line ends (a log is untrusted text: no terminal escape
# reaches the reader's screen; a log line holds no line end)
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0)) if c != 0x0A}


def safe(text: str) -> str:
    """``text`` with control characters written as ``\\xNN``."""
    return text.translate(_CONTROLS)


def _headline(doc: dict[str, Any]) -> str:
    c = doc["counts"]
    text = (f"{doc['decisions']:,} routed connection(s) in {doc['lines']:,} line(s): {c['agrees']:,} agree, "
            f"{c['explained']:,} explained, {c['drift']:,} drift, {c['unkeyed']:,} the logs cannot key")
    if doc["bad_lines"]["count"]:
        text += f"; {doc['bad_lines']['count']:,} bad line(s)"
    return text


def _rows(doc: dict[str, Any]) -> list[list[str]]:
    rows = []
    for name, r in doc["routers"].items():
        for t in r["targets"]:
            rows.append([name, t["actual"], t["expected"], f"{t['count']:,}"])
    return rows


def _sample_lines(doc: dict[str, Any]) -> list[str]:
    out = []
    for bucket, items in sorted(doc["samples"].items()):
        if bucket.startswith("agrees"):
            continue
        for s in items:
            key = "" if s["key"] is None else f" key {s['key']!r}"
            out.append(f"{s['file']}:{s['line']} {bucket} [{s['router']}]{key}: broker {s['actual']}, "
                       f"config {s['expected'] or '?'}" + (f" ({s['detail']})" if s["detail"] else ""))
    return out


def _against_lines(doc: dict[str, Any]) -> list[str]:
    a = doc.get("against")
    if a is None:
        return []
    out = [f"against the new config: {a['moved']:,} of {a['connections']:,} keyed connection(s) would go elsewhere"]
    out += [f"  {f['from']} -> {f['to']}: {f['count']:,}" for f in a["flows"]]
    out += [f"  e.g. {s['file']}:{s['line']} [{s['router']}] key {s['key']!r}: {s['actual']} -> {s['after']}"
            for s in a["samples"][:5]]
    return out


def text_report(doc: dict[str, Any]) -> str:
    return safe(_text_report(doc))


def _text_report(doc: dict[str, Any]) -> str:
    out = [_headline(doc), ""]
    head = ["router", "broker sent to", "config says", "connections"]
    rows = _rows(doc)
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=True)] if rows else [len(h) for h in head]
    for row in (head, *rows):
        out.append("  ".join(x.ljust(w) for x, w in zip(row, widths, strict=True)).rstrip())
    out.append("")
    for name, r in doc["routers"].items():
        parts = ", ".join(f"{x['count']:,} {x['verdict']}" + (f" ({x['reason']})" if x["reason"] else "")
                          for x in r["reasons"])
        out.append(f"{name}: {parts}")
    samples = _sample_lines(doc)
    if samples:
        out += ["", "samples:"] + [f"  {s}" for s in samples]
    if doc["drift_timeline"]:
        out += ["", "drift by minute:"] + [f"  {t['minute']}  {t['drift']:,}" for t in doc["drift_timeline"]]
    for c in doc["cannot_say"]:
        out.append(f"\n{c['router']}: the logs do not give its {c['key_type']} keys (INFO only)")
    if doc["log4j2_lines"]:
        out += ["", f"add to {doc['logging_file']} for a complete replay:"] + [f"  {x}" for x in doc["log4j2_lines"]]
    for b in doc["bad_lines"]["samples"]:
        out.append(f"bad line {b['file']}:{b['line']}: {b['why']}")
    against = _against_lines(doc)
    if against:
        out += ["", *against]
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_report(doc: dict[str, Any]) -> str:
    return safe(_markdown_report(doc))


def _markdown_report(doc: dict[str, Any]) -> str:
    out = ["## arouter replay", "", _headline(doc) + ".", "",
           "| router | broker sent to | config says | connections |", "|---|---|---|---:|"]
    out += ["| " + " | ".join(_md(x) for x in row) + " |" for row in _rows(doc)]
    out += ["", "| router | verdict | reason | connections |", "|---|---|---|---:|"]
    for name, r in doc["routers"].items():
        out += [f"| {_md(name)} | {x['verdict']} | {_md(x['reason'])} | {x['count']:,} |" for x in r["reasons"]]
    samples = _sample_lines(doc)
    if samples:
        out += ["", "### Samples", ""] + [f"- `{_md(s)}`" for s in samples]
    if doc["drift_timeline"]:
        out += ["", "### Drift by minute", "", "| minute | drift |", "|---|---:|"]
        out += [f"| {t['minute']} | {t['drift']:,} |" for t in doc["drift_timeline"]]
    if doc["log4j2_lines"]:
        out += ["", "### The logs cannot say", ""]
        out += [f"- {_md(c['router'])}: its {c['key_type']} keys are not in an INFO-only log"
                for c in doc["cannot_say"]]
        out += ["", f"Add to `{doc['logging_file']}`:", "", "```properties", *doc["log4j2_lines"], "```"]
    against = _against_lines(doc)
    if against:
        out += ["", "### Against the new config", "", "```", *against, "```"]
    return "\n".join(out) + "\n"


_STYLE = ("body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}"
          "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}td.n{text-align:right}"
          ".drift{color:#b00020}.explained{color:#8a6d00}.agrees{color:#1b7f3b}pre{background:#f4f4f4;padding:1em}"
          "rect.bar{fill:#b00020}")


def timeline_svg(timeline: list[dict[str, Any]]) -> str:
    if not timeline:
        return ""
    width, height = 600, 120
    top = max(t["drift"] for t in timeline) or 1
    bar = max(width / len(timeline), 1.0)
    bars = "".join(
        f'<rect class="bar" x="{i * bar:.1f}" y="{height - t["drift"] / top * height:.1f}" '
        f'width="{max(bar - 1, 1):.1f}" '
        f'height="{t["drift"] / top * height:.1f}"><title>{escape(t["minute"])}: {t["drift"]}</title></rect>'
        for i, t in enumerate(timeline))
    return (f'<svg id="drift-timeline" width="{width}" height="{height}" role="img" '
            f'aria-label="drift by minute">{bars}</svg>')


def html_report(doc: dict[str, Any]) -> str:
    return safe(_html_report(doc))


def _html_report(doc: dict[str, Any]) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', "<title>arouter replay</title>",
           f"<style>{_STYLE}</style></head><body>", "<h1>arouter replay</h1>",
           f'<p id="headline">{escape(_headline(doc))}.</p>']
    out.append('<table id="targets"><tr><th>router</th><th>broker sent to</th><th>config says</th>'
               "<th>connections</th></tr>")
    out += [f"<tr><td>{escape(a)}</td><td>{escape(b)}</td><td>{escape(c)}</td><td class=\"n\">{n}</td></tr>"
            for a, b, c, n in _rows(doc)]
    out.append("</table>")
    out.append('<table id="verdicts"><tr><th>router</th><th>verdict</th><th>reason</th><th>connections</th></tr>')
    for name, r in doc["routers"].items():
        out += [f'<tr class="{x["verdict"]}"><td>{escape(name)}</td><td>{x["verdict"]}</td>'
                f'<td>{escape(x["reason"])}</td><td class="n">{x["count"]:,}</td></tr>' for x in r["reasons"]]
    out.append("</table>")
    samples = _sample_lines(doc)
    if samples:
        out.append('<h2>Samples</h2><ul id="samples">' + "".join(f"<li>{escape(s)}</li>" for s in samples) + "</ul>")
    if doc["drift_timeline"]:
        out.append("<h2>Drift by minute</h2>" + timeline_svg(doc["drift_timeline"]))
    if doc["log4j2_lines"]:
        out.append(f"<h2>The logs cannot say</h2><p>Add to {escape(doc['logging_file'])}:</p>"
                   f'<pre id="log4j2">{escape(chr(10).join(doc["log4j2_lines"]))}</pre>')
    against = _against_lines(doc)
    if against:
        out.append(f'<h2>Against the new config</h2><pre id="against">{escape(chr(10).join(against))}</pre>')
    out.append("</body></html>")
    return "\n".join(out) + "\n"
