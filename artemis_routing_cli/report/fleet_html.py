"""``arouter fleet --report FILE.html``: a self-contained page (no script, no network) in the style of
diff's report: the pods, each router's proofs, its keys per pod, and a change's transfer matrix."""

from __future__ import annotations

from html import escape
from typing import Any

from .diff_html import _STYLE, matrix_svg
from .fleet_render import verdict_line


def _proofs(r: dict[str, Any]) -> str:
    rows = ["<tr><th>pods</th><th>proven</th><th>values</th><th>no home</th><th>several homes</th></tr>"]
    for p in r["proofs"]:
        several = "; ".join(f"{s['value']}: {'+'.join(s['pods'])}" for s in p["several"])
        cls = "" if p["ok"] else ' class="refused"'
        rows.append(f"<tr{cls}><td>{p['replicas']}</td><td>{'yes' if p['proven'] else escape('no: ' + p['why'])}</td>"
                    f"<td>{p['values']}</td><td>{escape(', '.join(p['homeless']))}</td><td>{escape(several)}</td></tr>")
    return '<table class="proofs">' + "".join(rows) + "</table>"


def _keys(k: dict[str, Any]) -> str:
    rows = "".join(f"<tr><td>{escape(pod)}</td><td>{n:,}</td></tr>" for pod, n in k["load"].items())
    return (f"<p>Keys {escape(k['source'])}: {k['one_home']:,} with one home, {k['no_home']:,} with none, "
            f"{k['several_homes']:,} with several.</p>"
            f'<table class="load"><tr><th>pod</th><th>keys</th></tr>{rows}</table>')


def html_report(doc: dict[str, Any], *, generated_at: str) -> str:
    pods = ", ".join(p["name"] + ("" if p["runs"] else " (does not start)") for p in doc["pods"])
    rows = [("pods", pods), ("Artemis", doc["broker_version"]), ("produced by", f"arouter {doc['version']}"),
            ("date", generated_at)] + [("assumed", a) for a in doc["assumed"]]
    verdict = verdict_line(doc)
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>arouter fleet: {escape(verdict)}</title>", f"<style>{_STYLE}</style></head><body>",
           "<h1>arouter fleet</h1>",
           '<table class="meta">' + "".join(f"<tr><td>{escape(k)}</td><td>{escape(v)}</td></tr>" for k, v in rows)
           + "</table>",
           f'<p class="{"" if doc["ok"] else "refused"}" id="verdict">{escape(verdict)}</p>']
    out += [f'<p class="refused">{escape(f)}</p>' for f in doc["failed"]]
    for r in doc["routers"]:
        out.append(f'<h2 id="router-{escape(r["name"])}">connection-router {escape(r["name"])}</h2>')
        out.append(_proofs(r))
        if r["keys"] is not None:
            out.append(_keys(r["keys"]))
        c = r["change"]
        if c is not None and c.get("unit") is not None:
            out.append(f"<p>{escape(c['what'])}, {escape(c['unit'])}: {c['moved']:,} of {c['total']:,} move, "
                       f"{c['lost_home']:,} lose their home.</p>")
            out.append(matrix_svg({"name": r["name"], "matrix": c["matrix"]}))
    out.append("</body></html>")
    return "\n".join(out) + "\n"
