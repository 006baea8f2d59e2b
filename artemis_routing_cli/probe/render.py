"""Show a probe report: a rich table per pool, or JSON for machines."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .model import PoolResult, ProbeReport, TargetResult


def to_json(report: ProbeReport, *, indent: int | None = 2) -> str:
    return json.dumps(report.to_json(), indent=indent)


def _yes_no(value: bool | None) -> str:
    if value is None:
        return "-"
    return "[green]yes[/]" if value else "[red]no[/]"


def _address(t: TargetResult) -> str:
    e = t.endpoint
    if not e.host:
        return "(this broker)"
    text = f"{e.host}:{e.port}"
    if e.tls:
        text += " tls"
    return text


def _handshake(t: TargetResult) -> str:
    c = t.check
    if c is None or c.handshake is None:
        return "-" if c is None or not c.tls else f"{c.tls}"
    h = c.handshake
    mark = "[green]ok[/]" if h.ok else "[red]failed[/]"
    return f"{h.protocol} {mark}"


def _ms(value: float | None) -> str:
    """The ``ms`` column: time to the verdict (connect and handshake; JSON has each apart)."""
    return "-" if value is None else f"{value:.1f}"


def _pool_table(pool: PoolResult) -> Table:
    state = "[green]ACTIVE[/]" if pool.active else "[red]INACTIVE[/]"
    title = (f"router {escape(pool.router)} ({escape(pool.source)} pool): {state} — "
             f"{pool.ready_count} ready, quorum-size {pool.quorum_size}")
    table = Table(title=title, title_justify="left", show_lines=False)
    for col in ("target", "address", "connect", "handshake", "ready", "node id", "conns", "ms"):
        table.add_column(col, overflow="fold")
    for t in pool.targets:
        c = t.check
        table.add_row(
            Text(t.endpoint.name), Text(_address(t)), _yes_no(c.reachable if c else None), _handshake(t),
            _yes_no(t.ready), Text(t.node_id or "-"),
            "-" if t.connection_count is None else str(t.connection_count),
            "-" if c is None else _ms(c.verdict_ms if c.verdict_ms is not None else c.latency_ms),
        )
    return table


def render_text(report: ProbeReport, console: Console) -> None:
    for pool in report.pools:
        console.print(_pool_table(pool))
        for t in pool.targets:
            console.print(f"  {t.endpoint.name}: {t.error or t.readiness}", markup=False)
        for note in pool.notes:
            console.print(f"  note: {note}", markup=False)
    for note in report.notes:
        console.print(f"note: {note}", markup=False)
    active = sum(1 for p in report.pools if p.active)
    console.print(f"{active} of {len(report.pools)} pool(s) reach their quorum", markup=False)
