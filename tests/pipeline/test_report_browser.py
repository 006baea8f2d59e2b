"""analyze's HTML report in a real browser (headless Chromium): it renders, the chart is painted,
and it says what produced it (config, arouter version, node ids, date)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from artemis_routing_cli import __version__
from artemis_routing_cli.pipeline.render import html_report
from tests.browser import count_colour, dom, screenshot

SUMMARY = {"routers": [{
    "router": "sticky-router", "key_type": "CLIENT_ID", "policy": "CONSISTENT_HASH", "total": 1000,
    "targets": [{"target": "broker1", "count": 600, "share": 0.6}, {"target": "broker2", "count": 400, "share": 0.4}],
    "local": 0, "null_keys": 0, "bad": 0, "refused": {"REFUSED_UNAVAILABLE": 0, "REFUSED_USE_ANOTHER": 0},
    "imbalance": {"targets": 2, "max_over_mean": 1.2, "coefficient_of_variation": 0.2},
    "what_if": [], "warnings": []}], "bad_rows": 0, "bad_row_samples": []}
PROVENANCE = {"config": "etc/broker.xml", "keys": "ids.txt", "arouter": __version__,
              "node ids": "broker1=8a3c, broker2=b71e", "date": "2026-11-24 18:00:00 UTC"}
BAR = (0x2E, 0x86, 0xC1)  # the target bars' colour


def test_the_report_renders_with_its_chart_and_provenance(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(html_report(SUMMARY, source="ids.txt", provenance=PROVENANCE), encoding="utf-8")
    built = dom(page)
    assert built.count("<rect") == 2 and "broker1" in built
    for value in PROVENANCE.values():
        assert value in built
    pixels = screenshot(page, tmp_path / "report.png")
    painted = count_colour(pixels, BAR)
    assert painted > 2000  # two bars of 420 px and 280 px by 16 px: the chart is on screen


# Measures what the browser laid out: every chart label inside its chart, every chart inside the window.
_MEASURE = """<script>
const cut = [];
let right = 0;
for (const svg of document.querySelectorAll('svg')) {
  const box = svg.viewBox.baseVal;
  const width = box && box.width ? box.width : svg.width.baseVal.value;
  for (const t of svg.querySelectorAll('text')) {
    const b = t.getBBox();
    if (b.x < 0 || b.x + b.width > width) cut.push(t.textContent);
  }
  right = Math.max(right, svg.getBoundingClientRect().right);
}
document.body.setAttribute('data-cut', JSON.stringify(cut));
document.body.setAttribute('data-fits', String(right <= document.documentElement.clientWidth));
</script>"""
REFUSING = {"routers": [{
    "router": "local-partition", "key_type": "CLIENT_ID", "policy": None, "total": 1000,
    "targets": [{"target": "local", "count": 250, "share": 0.25}],
    "local": 250, "null_keys": 0, "bad": 0, "refused": {"REFUSED_UNAVAILABLE": 0, "REFUSED_USE_ANOTHER": 750},
    "imbalance": {"targets": 1, "max_over_mean": None}, "what_if": [], "warnings": []}],
    "bad_rows": 0, "bad_row_samples": [],
    "left_out": [{"router": "simple-router", "reason": "it cannot take these keys: it reads SOURCE_IP"}]}


@pytest.mark.parametrize("size", ["1200,900", "420,900"])
def test_labels_whole_shares_filled_and_left_out_routers_named_at_two_widths(tmp_path: Path, size: str) -> None:
    import json
    import re

    page = tmp_path / "report.html"
    page.write_text(html_report(REFUSING, source="ids.txt").replace("</body>", _MEASURE + "</body>"),
                    encoding="utf-8")
    built = dom(page, size)
    cut = json.loads(html.unescape(re.search(r'data-cut="([^"]*)"', built).group(1)))
    assert cut == [], f"labels cut at {size}: {cut}"
    assert 'data-fits="true"' in built, f"the chart is wider than the window at {size}"
    assert "<td>REFUSED_USE_ANOTHER</td><td>750</td><td>75.00%</td>" in built
    assert "simple-router" in built and "left out" in built
