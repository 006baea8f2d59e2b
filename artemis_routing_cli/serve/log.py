"""The serving log: one line per event on stderr, as text or JSON (``--log-format``).

Routed connections are logged like the broker's ``AMQ221085: Route ... to ...`` and
``AMQ221086: Cannot route ...`` lines, with the protocol, router, key and target added.
Passwords never reach this module: callers pass names and decisions only.

``arouter serve`` writes through a :class:`BackgroundWriter`: the event loop only queues a
line, and a thread writes what is queued every 50 ms in one call (waking more often cost a busy
listener thread switches and GIL hand-overs: ~0.2 futex calls per redirect at 5 ms). A slow reader of
stderr (a terminal, a log shipper's pipe) then never stalls the listener; if it falls more than
``max_pending`` lines behind, lines are dropped and the next write says how many. Everything
queued is written when the writer is closed (Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from itertools import islice
from typing import TextIO

FORMATS = ("text", "json")


class BackgroundWriter:
    """Lines queued by the event loop, written to ``stream`` by a thread in batches."""

    def __init__(self, stream: TextIO, *, interval: float = 0.05, max_pending: int = 100_000) -> None:
        self.stream = stream
        self.interval = interval
        self.max_pending = max_pending
        self.dropped = 0
        self.pending: deque[str] = deque()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arouter-log-writer", daemon=True)
        self._thread.start()

    def write(self, line: str) -> None:
        """Queue one line (with its newline); never blocks."""
        if len(self.pending) >= self.max_pending:
            self.dropped += 1
            return
        self.pending.append(line)

    def _run(self) -> None:
        while not self._closed.wait(self.interval):
            self._drain()
        self._drain()

    def _drain(self) -> None:
        pending = self.pending
        if not pending:
            return
        # the lines queued so far, taken off in one C loop (popleft until len(pending) are taken): the event
        # loop's thread may append meanwhile, and what it appends stays for the next write
        text = "".join(islice(iter(pending.popleft, None), len(pending)))
        dropped, self.dropped = self.dropped, 0
        if dropped:
            text += f"arouter: {dropped} log line(s) dropped: stderr was not read fast enough\n"
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass  # a closed stderr must not take the listener down

    def close(self) -> None:
        """Write everything queued, then stop the thread."""
        self._closed.set()
        self._thread.join()


_LEVELS = {"info": "INFO ", "warn": "WARN ", "error": "ERROR"}  # level.upper() padded to 5, as lines show it


class ServeLog:
    def __init__(self, fmt: str = "text", stream: TextIO | None = None,
                 sink: Callable[[dict[str, object]], None] | None = None,
                 writer: BackgroundWriter | None = None) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown log format {fmt!r}")
        self.fmt = fmt
        self.stream = stream
        self.sink = sink  # tests and embedders get every record as a dict
        self.writer = writer  # set: lines go through it instead of straight to the stream
        #: records carry their fields (JSON lines or a sink): callers on a hot path build the
        #: fields only then
        self.structured = sink is not None or fmt == "json"
        # text lines through the background writer: what `arouter serve` does by default, and
        # the one path every routed connection takes
        self._queue = writer.write if writer is not None and not self.structured else None
        #: ... and the writer's queue itself, for a hot path (info_line, route_line, the fast path's route
        #: line) to add a whole line to while it holds fewer than ``bound`` (else :meth:`queue` counts it
        #: dropped); None when lines do not go that way
        self.pending = writer.pending if self._queue is not None and writer is not None else None
        self.bound = writer.max_pending if writer is not None else 0
        #: the stamp of lines logged at ``stamp_from <= time.time() < stamp_until`` (:meth:`stamp`)
        self.stamp_from = self.stamp_until = 0.0
        self.stamp_text = ""

    def log(self, level: str, event: str, message: str, **fields: object) -> None:
        now = time.time()
        if self._queue is not None:
            self._queue(f"{self.stamp(now)} {_LEVELS.get(level) or f'{level.upper():5}'} {message}\n")
            return
        if self.structured:
            record: dict[str, object] = {"ts": round(now, 3), "level": level, "event": event,
                                         "message": message, **fields}
            if self.sink is not None:
                self.sink(record)
        if self.fmt == "json":
            line = json.dumps(record, ensure_ascii=False, default=str)
        else:
            line = f"{self.stamp(now)} {level.upper():5} {message}"
        if self.writer is not None:
            self.writer.write(line + "\n")
            return
        stream = self.stream if self.stream is not None else sys.stderr
        try:
            stream.write(line + "\n")
            if not getattr(stream, "line_buffering", False):
                stream.flush()  # stderr is line-buffered already (Python 3.9+): no second syscall
        except (OSError, ValueError):
            pass  # a closed stderr must not take the listener down

    def close(self) -> None:
        """Write out whatever the background writer still holds."""
        if self.writer is not None:
            self.writer.close()

    def stamp(self, now: float) -> str:
        """Local time to the second, formatted once per second (a busy listener logs many lines; a hot
        path reads ``stamp_text`` itself while ``now`` is within ``stamp_from`` and ``stamp_until``)."""
        if not self.stamp_from <= now < self.stamp_until:
            second = int(now)
            self.stamp_from, self.stamp_until = float(second), float(second + 1)
            self.stamp_text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(second))
        return self.stamp_text

    def queue(self, line: str) -> None:
        """A whole text line onto the background writer's queue (counted dropped when it is full); only
        when :attr:`pending` is set."""
        self._queue(line)  # type: ignore[misc]  # set with pending

    def info(self, event: str, message: str, **fields: object) -> None:
        if self._queue is not None:  # the hot path, without a second call
            now = time.time()
            stamp = self.stamp_text if self.stamp_from <= now < self.stamp_until else self.stamp(now)
            self._queue(f"{stamp} INFO  {message}\n")
            return
        self.log("info", event, message, **fields)

    def info_line(self, event: str, message: str) -> None:
        """:meth:`info` of a record without fields, for the hot path: a text line through the background
        writer goes straight onto its queue while that is below its bound (else the writer counts it
        dropped, as ``write`` does)."""
        pending = self.pending
        if pending is None:
            self.log("info", event, message)
            return
        now = time.time()
        stamp = self.stamp_text if self.stamp_from <= now < self.stamp_until else self.stamp(now)
        line = f"{stamp} INFO  {message}\n"
        if len(pending) < self.bound:
            pending.append(line)
        else:
            self._queue(line)  # type: ignore[misc]  # set with pending

    def route_line(self, pre: str, address: str, mid: str, key: str, post: str) -> None:
        """``info_line("route", f"{pre}{address}{mid}{key!r}{post}")``, the text line built in one step."""
        pending = self.pending
        if pending is None:
            self.log("info", "route", f"{pre}{address}{mid}{key!r}{post}")
            return
        now = time.time()
        stamp = self.stamp_text if self.stamp_from <= now < self.stamp_until else self.stamp(now)
        line = f"{stamp} INFO  {pre}{address}{mid}{key!r}{post}\n"
        if len(pending) < self.bound:
            pending.append(line)
        else:
            self._queue(line)  # type: ignore[misc]  # set with pending

    def warning(self, event: str, message: str, **fields: object) -> None:
        self.log("warn", event, message, **fields)

    def error(self, event: str, message: str, **fields: object) -> None:
        self.log("error", event, message, **fields)
