"""The probe's text report shows router names as they are written in broker.xml."""

from __future__ import annotations

import io

from rich.console import Console

from artemis_routing_cli.probe.model import PoolResult, ProbeReport
from artemis_routing_cli.probe.render import render_text


def test_router_names_with_brackets_are_not_markup() -> None:
    out = io.StringIO()
    report = ProbeReport((PoolResult("r[/x][bold]:smile:", "static", 1, 5000, ()),))
    render_text(report, Console(file=out, width=200, emoji=False, no_color=True))
    assert "router r[/x][bold]:smile: (static pool): INACTIVE" in out.getvalue()
