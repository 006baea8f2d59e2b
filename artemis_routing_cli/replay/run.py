"""A replay from lines to a :class:`~.summary.Summary`: layout, events, joining, the engine's verdicts."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..routing.router import OK, RouteResult
from ..routing.transfer import NO_ROUTER, Answer
from .classify import UNKEYED, Replayer
from .events import parse_event
from .join import Joiner, Where
from .layout import BadLine, Line, read_line
from .summary import Summary


def replay(lines: Iterable[Line], replayer: Replayer, *, layout: str = "auto",
           pattern: re.Pattern[str] | None = None, against: Replayer | None = None) -> Summary:
    summary = Summary()
    joiner = Joiner()
    for line in lines:
        summary.lines += 1
        if line.error is not None:
            summary.bad_line(line.source, line.number, line.error, line.text)
            continue
        if line.too_long:
            summary.bad_line(line.source, line.number, "longer than the line bound", line.text)
            continue
        text = line.text
        if (pattern is None and text[:1] != "{" and "AMQ22108" not in text and "routing" not in text
                and "AMQ601715" not in text and "AMQ221001" not in text):
            continue  # the known text layouts name the logger: no routing event here (a cheap look first)
        try:
            rec = read_line(text, layout, pattern)
        except BadLine as exc:
            summary.bad_line(line.source, line.number, str(exc), line.text)
            continue
        if rec is None:
            continue
        summary.records += 1
        try:
            event = parse_event(rec.message, rec.logger)
        except ValueError as exc:
            summary.bad_line(line.source, line.number, str(exc), line.text)
            continue
        if event is None:
            continue
        decision = joiner.feed(event, rec.thread, Where(line.source, line.number, rec.time))
        if decision is None:
            continue
        if joiner.learned:
            joiner.learned = False
            replayer.learn(joiner.node_ids)
            if against is not None:
                against.learn(joiner.node_ids)
        verdict = replayer.classify(decision)
        if verdict is None:
            continue
        summary.add(decision, verdict)
        if against is not None and verdict.kind != UNKEYED and verdict.router is not None:
            summary.add_against(decision, verdict, _after(against, decision, verdict.router))
    summary.node_ids = {k: v for k, v in joiner.node_ids.items() if k in replayer.target_names}
    summary.broker_version = joiner.broker_version
    return summary


def _after(against: Replayer, decision: object, name: str) -> Answer:
    """The new config's answer for a decision's connection, with the targets the logs say were down
    then down too (the same readiness the broker had)."""
    router = against.routers.get(name)
    if router is None:
        return NO_ROUTER
    down = against.down_at(router, decision)  # type: ignore[arg-type]
    keyed = against.route(against.variant(name, down) if down else router, decision)  # type: ignore[arg-type]
    if isinstance(keyed, str):
        return NO_ROUTER
    return answer(keyed[0])


def answer(res: RouteResult) -> Answer:
    t = res.target
    if res.status != OK or t is None:
        return Answer(res.status, null=res.key == "NULL")
    return Answer(OK, res.target_label, t.node_id, res.local, res.key == "NULL")
