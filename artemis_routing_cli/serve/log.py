"""The serving log: one line per event on stderr, as text or JSON (``--log-format``).

Routed connections are logged like the broker's ``AMQ221085: Route ... to ...`` and
``AMQ221086: Cannot route ...`` lines, with the protocol, router, key and target added.
Passwords never reach this module: callers pass names and decisions only.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import TextIO

FORMATS = ("text", "json")


class ServeLog:
    def __init__(self, fmt: str = "text", stream: TextIO | None = None,
                 sink: Callable[[dict[str, object]], None] | None = None) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown log format {fmt!r}")
        self.fmt = fmt
        self.stream = stream
        self.sink = sink  # tests and embedders get every record as a dict
        self._stamp_second = -1
        self._stamp_text = ""

    @property
    def structured(self) -> bool:
        """Records carry their fields (JSON lines or a sink): callers on a hot path build the
        fields only then."""
        return self.sink is not None or self.fmt == "json"

    def log(self, level: str, event: str, message: str, **fields: object) -> None:
        now = time.time()
        if self.sink is not None or self.fmt == "json":
            record: dict[str, object] = {"ts": round(now, 3), "level": level, "event": event,
                                         "message": message, **fields}
            if self.sink is not None:
                self.sink(record)
        stream = self.stream if self.stream is not None else sys.stderr
        if self.fmt == "json":
            line = json.dumps(record, ensure_ascii=False, default=str)
        else:
            line = f"{self._stamp(now)} {level.upper():5} {message}"
        try:
            stream.write(line + "\n")
            if not getattr(stream, "line_buffering", False):
                stream.flush()  # stderr is line-buffered already (Python 3.9+): no second syscall
        except (OSError, ValueError):
            pass  # a closed stderr must not take the listener down

    def _stamp(self, now: float) -> str:
        """Local time to the second, formatted once per second (a busy listener logs many lines)."""
        second = int(now)
        if second != self._stamp_second:
            self._stamp_second = second
            self._stamp_text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(second))
        return self._stamp_text

    def info(self, event: str, message: str, **fields: object) -> None:
        self.log("info", event, message, **fields)

    def warning(self, event: str, message: str, **fields: object) -> None:
        self.log("warn", event, message, **fields)

    def error(self, event: str, message: str, **fields: object) -> None:
        self.log("error", event, message, **fields)
