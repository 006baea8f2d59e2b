"""The summary table of ``arouter analyze`` as CSV (for spreadsheets) and Markdown (for a PR comment).

One row per router and answer: each target with its keys and share, then each refusal status
with a count above zero. The same rows as the text table and the HTML report.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from typing import Any

COLUMNS = ("router", "key_type", "policy", "answer", "keys", "share")


def summary_rows(summary: Mapping[str, Any]) -> Iterator[tuple[str, str, str, str, int, float]]:
    for r in summary["routers"]:
        policy = str(r["policy"] or "none")
        for t in r["targets"]:
            yield r["router"], r["key_type"], policy, t["target"], t["count"], t["share"]
        for status, n in r["refused"].items():
            if n:
                yield r["router"], r["key_type"], policy, status, n, round(n / r["total"], 6) if r["total"] else 0.0


def to_csv(summary: Mapping[str, Any]) -> str:
    buf = io.StringIO(newline="")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    w.writerows(summary_rows(summary))
    return buf.getvalue()


def _md(text: object) -> str:
    """A table cell: pipes and line breaks cannot end the cell or the row."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def to_markdown(summary: Mapping[str, Any]) -> str:
    lines = []
    if summary.get("stopped_early"):
        lines += [f"**Stopped early**: more than {summary['max_errors']:,} bad row(s) (--max-errors); the figures "
                  f"cover the {summary['rows_read']:,} row(s) read up to there.", ""]
    for r in summary["routers"]:
        lines.append(f"### {_md(r['router'])}")
        lines.append("")
        lines.append(f"key type {_md(r['key_type'])}, policy {_md(r['policy'] or 'none')}, {r['total']:,} keys; "
                     f"local {r['local']:,}; NULL keys {r['null_keys']:,}")
        lines.append("")
        lines.append("| answer | keys | share |")
        lines.append("|---|---:|---:|")
        for row in summary_rows({"routers": [r]}):
            lines.append(f"| {_md(row[3])} | {row[4]:,} | {row[5]:.2%} |")
        if r.get("bad"):
            lines.append("")
            lines.append(f"Bad rows (not routed): {r['bad']:,}")
        for w in r["what_if"]:
            lines.append("")
            lines.append(f"What if {_md(w['scenario'])}: {w['moved']:,} keys move ({w['moved_share']:.2%})")
        lines.append("")
    return "\n".join(lines)
