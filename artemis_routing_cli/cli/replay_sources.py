"""``arouter replay``'s inputs: files, directories of rotated logs, ``-`` (stdin), gzip; streamed.

Each line is read with a bound (:data:`~artemis_routing_cli.replay.layout.MAX_LINE`): a longer one
is cut there and counted bad, so a log without line ends never fills memory. Bytes that are not
UTF-8 are read as U+FFFD. A directory's files (``*.log*``, ``*.json*``, gzip or not) are read
oldest first: ordered by the time of their first record (log4j2's rotated names say little: the
current ``artemis.log`` holds the newest lines), audit logs before the others, so their users and roles
are known when the route lines come.
"""

from __future__ import annotations

import gzip
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ..errors import UsageError
from ..replay.layout import MAX_LINE, BadLine, Line, read_line

GZIP_MAGIC = b"\x1f\x8b"
#: lines looked at for a file's first record when ordering a directory
SNIFF_LINES = 200


def _open(path: str) -> BinaryIO:
    if path == "-":
        raw: BinaryIO = sys.stdin.buffer
        head = raw.peek(2)[:2] if hasattr(raw, "peek") else b""
        return gzip.GzipFile(fileobj=raw) if head == GZIP_MAGIC else raw  # type: ignore[return-value]
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if f.read(2) == GZIP_MAGIC:
        f.seek(0)
        return gzip.GzipFile(fileobj=f)  # type: ignore[return-value]
    f.seek(0)
    return f


def lines_of(path: str) -> Iterator[Line]:
    """The lines of one input, bounded and decoded."""
    f = _open(path)
    number = 0
    try:
        while True:
            try:
                raw = f.readline(MAX_LINE + 1)
            except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as exc:
                yield Line(path, number + 1, "", error=f"cannot read on: {exc}")  # counted bad; the next file goes on
                return
            if not raw:
                return
            number += 1
            too_long = len(raw) > MAX_LINE and not raw.endswith(b"\n")
            if too_long:
                while True:  # the rest of the over-long line, dropped a bound at a time
                    more = f.readline(MAX_LINE)
                    if not more or more.endswith(b"\n"):
                        break
                raw = raw[:MAX_LINE]
            yield Line(path, number, raw.decode("utf-8", "replace").rstrip("\r\n"), too_long)
    finally:
        if f is not sys.stdin.buffer:
            f.close()


def _first_record(path: Path) -> tuple[bool, str]:
    """(is an audit log, the time of its first record) of one file."""
    for i, line in enumerate(lines_of(str(path))):
        if i >= SNIFF_LINES:
            break
        try:
            rec = read_line(line.text)
        except BadLine:
            continue
        if rec is not None:
            return rec.logger == "org.apache.activemq.audit", rec.time
    return False, ""


def expand(inputs: list[str]) -> list[str]:
    """The files to read, in reading order: each directory's log files oldest first, audit logs first
    of all (a file given by name keeps its place among the other named inputs)."""
    files: list[str] = []
    for item in inputs:
        if item == "-":
            files.append(item)
            continue
        p = Path(item)
        if p.is_dir():
            found = sorted(f for f in p.iterdir() if f.is_file() and (".log" in f.name or ".json" in f.name))
            if not found:
                raise UsageError(f"{item}: no log files (*.log*, *.json*) in this directory")
            keyed = [(*_first_record(f), f.name, str(f)) for f in found]
            files.extend(k[3] for k in sorted(keyed, key=lambda k: (not k[0], k[1], k[2])))
        elif p.is_file() or not p.exists():
            if not p.exists():
                raise UsageError(f"{item}: no such file or directory")
            files.append(item)
        else:
            raise UsageError(f"{item}: not a regular file or directory")
    audits = [f for f in files if f != "-" and _first_record(Path(f))[0]]
    return audits + [f for f in files if f not in audits]


def read_all(inputs: list[str]) -> Iterator[Line]:
    for path in expand(inputs):
        yield from lines_of(path)


