"""Progress of a long Spark run from Spark's own status tracker: stages and tasks, elapsed, ETA.

On a terminal a bar is redrawn in place; otherwise (CI logs, files) one line every
:data:`LINE_EVERY` seconds. Spark counts tasks, not rows: the ETA assumes the remaining tasks of
the running stages take as long as the finished ones did.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

LINE_EVERY = 15.0  # seconds between progress lines when stderr is not a terminal
BAR_EVERY = 0.5  # seconds between redraws of the bar on a terminal


@dataclass(frozen=True)
class Stage:
    stage_id: int
    name: str
    tasks: int
    done: int
    running: int


def snapshot(tracker: Any) -> list[Stage]:  # noqa: ANN401 (pyspark StatusTracker)
    """The running stages as the status tracker reports them."""
    out = []
    for sid in sorted(tracker.getActiveStageIds()):
        info = tracker.getStageInfo(sid)
        if info is not None:
            out.append(Stage(sid, str(info.name), int(info.numTasks), int(info.numCompletedTasks),
                             int(info.numActiveTasks)))
    return out


def describe(stages: Sequence[Stage], elapsed: float) -> str | None:
    """One line: tasks done of the running stages, elapsed time and an estimate of what is left."""
    if not stages:
        return None
    tasks = sum(s.tasks for s in stages)
    done = sum(s.done for s in stages)
    text = (f"stage{'s' if len(stages) > 1 else ''} {', '.join(str(s.stage_id) for s in stages)}: "
            f"{done}/{tasks} tasks done, {sum(s.running for s in stages)} running, {_clock(elapsed)} elapsed")
    if 0 < done < tasks:
        text += f", about {_clock(elapsed / done * (tasks - done))} left"
    return text


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Reporter:
    """Polls the tracker in a daemon thread while the run lasts (``with Reporter(...)``)."""

    def __init__(self, tracker: Any, say: Callable[[str], None], *, tty: bool,  # noqa: ANN401
                 every: float | None = None) -> None:
        self.tracker = tracker
        self.say = say
        self.tty = tty
        self.every = every if every is not None else (BAR_EVERY if tty else LINE_EVERY)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arouter-progress", daemon=True)
        self._start = time.monotonic()

    def __enter__(self) -> Reporter:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        if self.tty:
            self.say("\r\x1b[K")

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                line = describe(snapshot(self.tracker), time.monotonic() - self._start)
            except Exception:  # the context is stopping: nothing to report
                return
            if line is not None:
                self.say(f"\r\x1b[Karouter: {line}" if self.tty else f"arouter: {line}\n")
