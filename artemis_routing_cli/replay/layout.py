"""One log line as its log4j2 layout wrote it: time, level, logger, thread and message.

Known layouts, tried in this order when none is given:

- ``broker``: the broker's ``etc/log4j2.properties`` pattern ``%d %-5level [%logger] %msg%n``;
- ``audit``: the audit appender's ``%d [AUDIT](%t) %msg%n``;
- ``serve``: ``arouter serve``'s text lines (``2026-01-02 03:04:05 INFO  message``);
- ``json``: one JSON object a line (log4j2's ``JsonLayout`` with ``compact=true, eventEol=true``,
  ``JsonTemplateLayout``'s ECS and Logstash templates, ``arouter serve --log-format json``).

``--pattern`` takes a log4j2 ``PatternLayout`` pattern instead (:func:`compile_pattern`). A line that
no layout reads is a continuation of the record before it (a stack trace, a message with line ends),
as log4j2 writes them: not an error.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..errors import UsageError

#: The longest line read whole (characters). log4j2 sets no limit; the longest routing line is the
#: policy's DEBUG line naming every ready target (~250 characters a target): 256 Ki is ~1,000 targets.
MAX_LINE = 256 * 1024

LAYOUTS = ("auto", "broker", "audit", "serve", "json")

_TIME = r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d{1,9})?"
_LEVEL = r"TRACE|DEBUG|INFO|WARN|ERROR|FATAL"
_BROKER = re.compile(rf"({_TIME}) +({_LEVEL}) +\[([^\]]*)\] ?(.*)", re.S)
_AUDIT = re.compile(rf"({_TIME}) +\[AUDIT\]\((.*?)\) (AMQ\d{{6}}:.*)", re.S)
_SERVE = re.compile(rf"({_TIME}) +({_LEVEL}) +(.*)", re.S)


@dataclass(frozen=True, slots=True)
class Line:
    """One line of an input, as the shell read it (``too_long``: cut at :data:`MAX_LINE`)."""

    source: str
    number: int
    text: str
    too_long: bool = False
    error: str | None = None  # the input could not be read on from here (a truncated gzip): its last line


@dataclass(frozen=True, slots=True)
class Record:
    """One log record: ``time`` as the line wrote it (sortable text for the known layouts)."""

    time: str
    level: str
    logger: str
    thread: str
    message: str
    fields: dict[str, object] | None = None  # a JSON line's other fields (serve's router, key, ...)


class BadLine(ValueError):
    """A line that is a record of its layout but cannot be read (a JSON line that is not JSON)."""


def read_line(line: str, layout: str = "auto", pattern: re.Pattern[str] | None = None) -> Record | None:
    """The record ``line`` starts, or None for a continuation line. Raises :class:`BadLine`."""
    if pattern is not None:
        m = pattern.fullmatch(line)
        if m is None:
            return None
        g = m.groupdict()
        return Record(g.get("time") or "", (g.get("level") or "").upper(), g.get("logger") or "",
                      g.get("thread") or "", g.get("message") or "")
    if layout in ("auto", "json") and line[:1] == "{":
        return _json(line)
    if layout in ("auto", "broker"):
        m = _BROKER.fullmatch(line)
        if m is not None:
            return Record(m[1], m[2], m[3], "", m[4])
    if layout in ("auto", "audit"):
        m = _AUDIT.fullmatch(line)
        if m is not None:
            return Record(m[1], "INFO", "org.apache.activemq.audit", m[2], m[3])
    if layout in ("auto", "serve"):
        m = _SERVE.fullmatch(line)
        if m is not None:
            return Record(m[1], m[2], "arouter.serve", "", m[3])
    return None


_MESSAGE_KEYS = ("message", "msg")
_LEVEL_KEYS = ("level", "log.level", "severity")
_LOGGER_KEYS = ("loggerName", "logger_name", "log.logger", "logger")
_THREAD_KEYS = ("thread", "thread_name", "process.thread.name")
_TIME_KEYS = ("@timestamp", "timestamp", "time")


def _json(line: str) -> Record:
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise BadLine(f"not JSON: {exc.args[0] if exc.args else exc}") from None
    if not isinstance(data, dict):
        raise BadLine("a JSON line that is not an object")
    message = _first(data, _MESSAGE_KEYS)
    if isinstance(message, dict):  # JsonTemplateLayout's message as an object (a MapMessage)
        message = json.dumps(message)
    if not isinstance(message, str):
        raise BadLine("a JSON line without a message")
    return Record(_json_time(data), str(_first(data, _LEVEL_KEYS) or "").upper(),
                  str(_first(data, _LOGGER_KEYS) or ""), str(_first(data, _THREAD_KEYS) or ""), message, data)


def _first(data: dict[str, object], keys: tuple[str, ...]) -> object:
    for k in keys:
        if k in data:
            return data[k]
        head, _, tail = k.partition(".")
        inner = data.get(head)
        if tail and isinstance(inner, dict) and tail in inner:
            return inner[tail]
    return None


def _json_time(data: dict[str, object]) -> str:
    """The record's time as sortable text: JsonLayout's ``instant`` / ``timeMillis``, serve's ``ts``
    (seconds) as UTC ISO text; an ECS ``@timestamp`` as written."""
    import datetime as dt

    instant = data.get("instant")
    seconds: float | None = None
    if isinstance(instant, dict) and isinstance(instant.get("epochSecond"), int):
        nanos = instant.get("nanoOfSecond")
        seconds = instant["epochSecond"] + (nanos / 1e9 if isinstance(nanos, int) else 0.0)
    elif isinstance(data.get("timeMillis"), (int, float)) and not isinstance(data.get("timeMillis"), bool):
        seconds = float(data["timeMillis"]) / 1000.0  # type: ignore[arg-type]
    elif isinstance(data.get("ts"), (int, float)) and not isinstance(data.get("ts"), bool):
        seconds = float(data["ts"])  # type: ignore[arg-type]
    if seconds is not None:
        try:
            return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
        except (OverflowError, OSError, ValueError):
            return ""
    text = _first(data, _TIME_KEYS)
    return text if isinstance(text, str) else ""


# -- --pattern: a log4j2 PatternLayout pattern as a regular expression ------------------------------
_CONVERSION = re.compile(r"%(-?\d+(?:\.\d+)?|\.\d+)?([a-zA-Z]+)(\{[^}]*\})*")
_GROUPS = {
    "d": "time", "date": "time",
    "p": "level", "le": "level", "level": "level",
    "c": "logger", "lo": "logger", "logger": "logger",
    "t": "thread", "tn": "thread", "thread": "thread", "threadName": "thread",
    "m": "message", "msg": "message", "message": "message",
}
_NEWLINE = ("n",)


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """A regular expression reading the lines ``pattern`` writes: ``%d`` (any ``{format}``) as the
    time, ``%p``/``%level``, ``%c``/``%logger``, ``%t``/``%thread`` and ``%m``/``%msg`` as named groups,
    ``%n`` as the line end, any other conversion as some text; the rest as written. It needs ``%m``."""
    out: list[str] = []
    seen: set[str] = set()
    pos = 0
    for m in _CONVERSION.finditer(pattern):
        out.append(re.escape(pattern[pos:m.start()]).replace(r"\ ", " +"))
        pos = m.end()
        name = m[2]
        if name in _NEWLINE:
            continue
        group = _GROUPS.get(name)
        if group is None or group in seen:
            out.append(r".*?")
            continue
        seen.add(group)
        body = r"[\s\S]*" if group == "message" else (r"\S+" if group == "level" else r".*?")
        if group == "time":
            body = r"\S+(?: \S+)?" if m[3] is None or " " in (m[3] or "") else r"\S+"
        out.append(f"(?P<{group}>{body})")
    out.append(re.escape(pattern[pos:]).replace(r"\ ", " +"))
    if "message" not in seen:
        raise UsageError(f"--pattern {pattern!r}: a layout without %m (%msg, %message) has no message to read")
    text = "".join(out).replace("%%", "%")
    try:
        return re.compile(text, re.S)
    except re.error as exc:  # pragma: no cover - every part above is escaped or ours
        raise UsageError(f"--pattern {pattern!r}: {exc}") from None
