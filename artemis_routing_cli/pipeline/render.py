"""Show an analysis: rich tables on a console, or a self-contained HTML report with inline SVG bars."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

BAR_WIDTH = 420  # px of the longest bar in the HTML report
BAR_HEIGHT = 22


def print_text(summary: Mapping[str, Any], console: Console) -> None:
    said = stopped_early(summary)
    if said is not None:
        console.print(said, highlight=False, markup=False)
    for r in summary["routers"]:
        console.print(f"\n[bold]{escape(r['router'])}[/bold]  key {r['key_type']}, policy {r['policy'] or 'none'}, "
                      f"{r['total']:,} keys", highlight=False)
        table = Table("target", "keys", "share", box=None, pad_edge=False)
        for t in r["targets"]:
            table.add_row(Text(t["target"]), f"{t['count']:,}", f"{t['share']:.2%}")
        for status, n in r["refused"].items():
            if n:
                table.add_row(f"[red]{status}[/red]", f"{n:,}", f"{n / r['total']:.2%}" if r["total"] else "-")
        console.print(table)
        imb = r["imbalance"]
        line = f"local {r['local']:,} · NULL keys {r['null_keys']:,}"
        if imb.get("max_over_mean") is not None:
            line += (f" · imbalance max/mean {imb['max_over_mean']:.3f}, "
                     f"CV {imb['coefficient_of_variation']:.3f} over {imb['targets']} targets")
        console.print(line, highlight=False)
        if r.get("bad"):
            console.print(f"bad rows (not routed): {r['bad']:,}", highlight=False, markup=False)
        for w in r["what_if"]:
            console.print(f"what-if {w['scenario']}: {w['moved']:,} keys move ({w['moved_share']:.2%})",
                          highlight=False, markup=False)
            for f in w["flows"]:
                console.print(f"   {f['from']} → {f['to']}: {f['count']:,}", highlight=False, markup=False)


def print_bad_rows(summary: Mapping[str, Any], console: Console) -> None:
    """The bad-row count and samples (file:line: router: why), when there are any."""
    n = summary.get("bad_rows") or 0
    if not n:
        return
    console.print(f"\n{n:,} bad row(s) were not routed; the first:", highlight=False, markup=False)
    for s in summary.get("bad_row_samples", []):
        who = f"{s['router']}: " if s.get("router") else ""
        if "row" in s:  # --id-column
            place = f"row {s['row']}"
        else:
            unit = "line" if "line" in s else "record"
            place = f"{s['file']}:{unit} {s.get(unit)}"
        console.print(f"  {place}: {who}{s['error']}", highlight=False, markup=False)


def stopped_early(summary: Mapping[str, Any]) -> str | None:
    """The sentence saying that --max-errors stopped the run, or None."""
    if not summary.get("stopped_early"):
        return None
    return (f"stopped early: more than {summary['max_errors']:,} bad row(s) (--max-errors); the figures cover the "
            f"{summary['rows_read']:,} row(s) read up to there")


# Width of a label character at the chart's 13 px sans-serif, rounded up from the widest capitals
# (labels are often REFUSED_USE_ANOTHER): a label column sized with less clips the label's start.
_LABEL_CHAR_PX = 10


def _svg_bars(rows: list[tuple[str, int, bool]]) -> str:
    """A horizontal bar chart: (label, count, refused?) per bar. It scales down to a narrow page
    (viewBox) instead of overflowing it; labels start at the left edge, so none is cut."""
    if not rows:
        return "<p>No keys.</p>"
    top = max(c for _, c, _ in rows) or 1
    label_w = 18 + _LABEL_CHAR_PX * max(len(lab) for lab, _, _ in rows)
    width = label_w + BAR_WIDTH + 110
    height = BAR_HEIGHT * len(rows) + 8
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
             f'style="width:100%;max-width:{width}px;height:auto" role="img" font-family="sans-serif" '
             'font-size="13">']
    for n, (label, count, refused) in enumerate(rows):
        y = 4 + n * BAR_HEIGHT
        w = max(1, round(BAR_WIDTH * count / top)) if count else 0
        colour = "#c0392b" if refused else "#2e86c1"
        parts.append(f'<text x="6" y="{y + 15}">{html.escape(label)}</text>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{w}" height="{BAR_HEIGHT - 6}" fill="{colour}">'
                     f"<title>{html.escape(label)}: {count}</title></rect>")
        parts.append(f'<text x="{label_w + w + 6}" y="{y + 15}">{count:,}</text>')
    parts.append("</svg>")
    return "".join(parts)


def html_report(summary: Mapping[str, Any], *, title: str = "arouter analyze", source: str = "",
                png: Mapping[str, str] | None = None, provenance: Mapping[str, str] | None = None) -> str:
    """The whole report as one HTML document (no external files); ``png``: router -> data URI.

    ``provenance``: what produced it (config, arouter version, node ids, date, ...), shown first.
    """
    esc = html.escape
    body = [f"<h1>{esc(title)}</h1>"]
    if source:
        body.append(f"<p>Keys: <code>{esc(source)}</code></p>")
    if provenance:
        body.append("<dl class=provenance>")
        body.extend(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in provenance.items())
        body.append("</dl>")
    left_out = summary.get("left_out") or []
    if left_out:
        body.append("<section class=left-out><h2>Routers left out of this run</h2><ul>")
        body.extend(f"<li><b>{esc(o['router'])}</b>: {esc(o['reason'])}</li>" for o in left_out)
        body.append("</ul></section>")
    for r in summary["routers"]:
        body.append(f"<section><h2>{esc(r['router'])}</h2>")
        body.append(f"<p>key type {esc(r['key_type'])}, policy {esc(str(r['policy'] or 'none'))}, "
                    f"{r['total']:,} keys; local {r['local']:,}; NULL keys {r['null_keys']:,}</p>")
        bars = [(t["target"], t["count"], False) for t in r["targets"]]
        bars += [(s, n, True) for s, n in r["refused"].items() if n]
        body.append(_svg_bars(bars))
        if png and r["router"] in png:
            body.append(f'<p><img alt="{esc(r["router"])}" src="{png[r["router"]]}"></p>')
        body.append("<table><tr><th>target</th><th>keys</th><th>share</th></tr>")
        for t in r["targets"]:
            body.append(f"<tr><td>{esc(t['target'])}</td><td>{t['count']:,}</td><td>{t['share']:.2%}</td></tr>")
        total = r["total"] or 0
        for s, n in r["refused"].items():
            share = f"{n / total:.2%}" if total else "0.00%"
            body.append(f"<tr class=refused><td>{esc(s)}</td><td>{n:,}</td><td>{share}</td></tr>")
        body.append("</table>")
        imb = r["imbalance"]
        if imb.get("max_over_mean") is not None:
            body.append(f"<p>Imbalance over {imb['targets']} targets: max/mean {imb['max_over_mean']:.3f}, "
                        f"coefficient of variation {imb['coefficient_of_variation']:.3f}</p>")
        for w in r["what_if"]:
            body.append(f"<h3>What if {esc(w['scenario'])}</h3><p>{w['moved']:,} keys move "
                        f"({w['moved_share']:.2%})</p><ul>")
            body.extend(f"<li>{esc(f['from'])} → {esc(f['to'])}: {f['count']:,}</li>" for f in w["flows"])
            body.append("</ul>")
        for warning in r.get("warnings", []):
            body.append(f"<p class=warn>warning: {esc(warning)}</p>")
        body.append("</section>")
    style = ("body{font-family:sans-serif;margin:2em;max-width:60em}table{border-collapse:collapse}"
             "td,th{padding:2px 10px;text-align:left}tr.refused td{color:#c0392b}.warn{color:#b9770e}"
             "dl.provenance{display:grid;grid-template-columns:max-content auto;gap:2px 12px;color:#555}"
             "dl.provenance dd{margin:0}")
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            f"<title>{esc(title)}</title><style>{style}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def png_charts(summary: Mapping[str, Any]) -> dict[str, str]:
    """Bar charts as PNG data URIs when matplotlib is installed (else empty)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return {}
    import base64
    import io

    out: dict[str, str] = {}
    for r in summary["routers"]:
        labels = [t["target"] for t in r["targets"]] + [s for s, n in r["refused"].items() if n]
        counts = [t["count"] for t in r["targets"]] + [n for n in r["refused"].values() if n]
        fig, ax = plt.subplots(figsize=(6, 0.4 * len(labels) + 1))
        ax.barh(labels, counts)
        ax.invert_yaxis()
        ax.set_title(r["router"])
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight")
        plt.close(fig)
        out[r["router"]] = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    return out
