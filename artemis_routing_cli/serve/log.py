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

    def log(self, level: str, event: str, message: str, **fields: object) -> None:
        record: dict[str, object] = {"ts": round(time.time(), 3), "level": level, "event": event,
                                     "message": message, **fields}
        if self.sink is not None:
            self.sink(record)
        stream = self.stream if self.stream is not None else sys.stderr
        if self.fmt == "json":
            line = json.dumps(record, ensure_ascii=False, default=str)
        else:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(record["ts"])))  # type: ignore[arg-type]
            line = f"{stamp} {level.upper():5} {message}"
        try:
            stream.write(line + "\n")
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed stderr must not take the listener down

    def info(self, event: str, message: str, **fields: object) -> None:
        self.log("info", event, message, **fields)

    def warning(self, event: str, message: str, **fields: object) -> None:
        self.log("warn", event, message, **fields)

    def error(self, event: str, message: str, **fields: object) -> None:
        self.log("error", event, message, **fields)
