"""``arouter diff --report FILE.html``: a self-contained page (no script, no network) with a chart of
each router's transfer matrix (old target → new target) and what produced it."""

from __future__ import annotations

from html import escape
from typing import Any

from .diff_render import _pct, _summary, change_sentence, where

CELL = 64  # px per matrix cell
LABEL = 170  # px for the row/column labels


def _labels(matrix: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for m in matrix:
        seen.setdefault(m["from"], None)
        seen.setdefault(m["to"], None)
    return sorted(seen, key=lambda x: (x.startswith(("REFUSED", "NOT_DEPLOYED", "NO_ROUTER")), x))


def matrix_svg(r: dict[str, Any]) -> str:
    """A heat map: one row per old answer, one column per new answer, a cell's shade its share of keys."""
    labels = _labels(r["matrix"])
    index = {label: i for i, label in enumerate(labels)}
    n = len(labels)
    width, height = 2 * LABEL + n * CELL, LABEL + n * CELL + 10  # room for the slanted column labels
    top = max((m["count"] for m in r["matrix"]), default=1) or 1
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="transfer-chart" data-router="{escape(r["name"])}" '
             f'width="{width}" height="{height}" role="img" aria-label="transfer matrix of {escape(r["name"])}">',
             '<text x="4" y="14" font-size="11">old ↓ / new →</text>']
    for label, i in index.items():
        x = LABEL + i * CELL + CELL / 2
        parts.append(f'<text x="{x}" y="{LABEL - 6}" font-size="11" transform="rotate(-45 {x} {LABEL - 6})">'
                     f'{escape(label)}</text>')
        parts.append(f'<text x="{LABEL - 6}" y="{LABEL + i * CELL + CELL / 2 + 4}" font-size="11" '
                     f'text-anchor="end">{escape(label)}</text>')
    for m in r["matrix"]:
        row, col = index[m["from"]], index[m["to"]]
        moved = m["from"] != m["to"]
        alpha = 0.15 + 0.85 * m["count"] / top
        colour = f"rgba(200,60,40,{alpha:.3f})" if moved else f"rgba(40,110,200,{alpha:.3f})"
        x, y = LABEL + col * CELL, LABEL + row * CELL
        parts.append(f'<rect class="cell{" moved" if moved else ""}" x="{x}" y="{y}" width="{CELL - 2}" '
                     f'height="{CELL - 2}" fill="{colour}"><title>{escape(m["from"])} → {escape(m["to"])}: '
                     f'{m["count"]:,} keys ({_pct(m["share"])})</title></rect>')
        parts.append(f'<text x="{x + CELL / 2}" y="{y + CELL / 2 + 4}" font-size="11" text-anchor="middle">'
                     f'{m["count"]:,}</text>')
    parts.append("</svg>")
    return "".join(parts)


_STYLE = """body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:70em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}
.refused{color:#b00;font-weight:bold}.ignored{color:#777}code{background:#f4f4f4;padding:0 .2em}
.meta td:first-child{font-weight:bold}"""


def html_report(doc: dict[str, Any], *, generated_at: str, node_ids: dict[str, str]) -> str:
    rows = [("old config", f'{doc["old"]["display"]} ({doc["old"]["read"]})'),
            ("new config", f'{doc["new"]["display"]} ({doc["new"]["read"]})'),
            ("keys", doc["keys"]["source"] if doc["keys"] else "none (settings only)"),
            ("node ids", ", ".join(f"{k}={v}" for k, v in sorted(node_ids.items())) or
             "none given: connector names stand in"),
            ("produced by", doc["generated_by"]), ("date", generated_at)]
    rows += [("assumed", a) for a in doc["assumed"]]
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>arouter diff: {escape(doc['old']['display'])} → {escape(doc['new']['display'])}</title>",
           f"<style>{_STYLE}</style></head><body>",
           "<h1>arouter diff</h1>",
           '<table class="meta">' + "".join(f"<tr><td>{escape(k)}</td><td>{escape(v)}</td></tr>" for k, v in rows)
           + "</table>",
           f"<p>{escape(_summary(doc))}.</p>"]
    for r in doc["routers"]:
        out.append(f'<h2 id="router-{escape(r["name"])}">connection-router {escape(r["name"])}: {r["status"]}</h2>')
        d = r["deploy"]
        if d["changed"]:
            out.append(f'<p class="{"refused" if d["new"] == "refused" else ""}">deploy: {d["old"]} → {d["new"]}'
                       + "".join(f"<br>{escape(x)}" for x in d["reasons"]) + "</p>")
        if r["changes"]:
            out.append("<ul>" + "".join(f'<li class="{"ignored" if c.get("ignored") else ""}">'
                                        f'{escape(change_sentence(c))} ({where(c)})</li>'
                                        for c in r["changes"]) + "</ul>")
        if r["keys"]:
            out.append(f"<p>{r['moved']:,} of {r['keys']:,} keys move ({_pct(r['churn'])}).</p>")
            out.append(matrix_svg(r))
    out.append("</body></html>")
    return "\n".join(out) + "\n"
