"""analyze's HTML report in a real browser (headless Chromium): it renders, the chart is painted,
and it says what produced it (config, arouter version, node ids, date)."""

from __future__ import annotations

from pathlib import Path

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
