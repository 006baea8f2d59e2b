"""``arouter replay``'s work: load the config(s), stream the logs through replay/, write the output."""

from __future__ import annotations

import json

from ..errors import UsageError
from .common import load_routable, note

FORMATS = ("table", "json", "markdown", "html")


def run_replay(logs: list[str], *, config: str | None, routers: list[str], layout: str, pattern: str | None,
               against: str | None, node_id: list[str], down: list[str], connections: list[str],
               targets: str | None, define: list[str], ignore_invalid: bool, properties: list[str],
               cr: str | None, ordinal: int | None, show_values: bool, fmt: str, output: str | None) -> int:
    from ..replay.classify import Replayer
    from ..replay.layout import LAYOUTS, compile_pattern
    from ..replay.run import replay
    from ..routing.selection import check_target_names, select_named
    from ..routing.targets import state_from_options
    from .replay_sources import read_all

    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: choose {', '.join(FORMATS)}")
    if layout not in LAYOUTS:
        raise UsageError(f"--layout {layout!r}: choose {', '.join(LAYOUTS)}")
    if logs.count("-") > 1:
        raise UsageError("'-' (stdin) can be given once")
    compiled = compile_pattern(pattern) if pattern is not None else None
    cfg = load_routable(config, define, ignore_invalid, "replay", properties, cr, ordinal, show_values=show_values)
    state = state_from_options(node_id, down, connections, targets)
    check_target_names(select_named(cfg, state, routers, None), state)
    replayer = Replayer(cfg, state, routers or None)
    new = None
    if against is not None:
        new_cfg = load_routable(against, define, ignore_invalid, "replay --against", properties, cr, ordinal,
                                show_values=show_values)
        new = Replayer(new_cfg, state, [r for r in routers if new_cfg.router(r) is not None] or None)
    summary = replay(read_all(logs), replayer, layout=layout, pattern=compiled, against=new)
    doc = summary.to_json()
    text = render(doc, fmt)
    from ..outfile import write_out

    write_out(output, text)
    if summary.unkeyed_types and fmt != "table":
        note(f"arouter: replay: the logs cannot key {', '.join(sorted(summary.unkeyed_types))} (INFO only): "
             "see log4j2_lines")
    return 1 if summary.drift else 0


def render(doc: dict[str, object], fmt: str) -> str:
    from ..report import replay_render

    if fmt == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if fmt == "markdown":
        return replay_render.markdown_report(doc)
    if fmt == "html":
        return replay_render.html_report(doc)
    return replay_render.text_report(doc)
