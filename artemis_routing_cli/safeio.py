"""Reading untrusted files and JSON within bounds: regular files only, a size cap, no deep nesting.

Every file arouter reads (broker.xml and what it includes, settings, targets, keys, messages) comes
through :func:`read_regular`: a FIFO, a device (``/dev/zero``), a socket or a directory is refused
before a byte is read (opening does not block: ``O_NONBLOCK``), and a file larger than its cap is
refused from its size, so a sparse 6 GiB file costs nothing. JSON from files, the command line and
the management endpoint goes through :func:`loads_json`: nesting deeper than :data:`MAX_JSON_DEPTH`,
integers longer than :data:`MAX_INT_DIGITS` digits and ``NaN``/``Infinity`` are refused with a
position instead of a ``RecursionError`` or ``ValueError`` from the standard library.
"""

from __future__ import annotations

import os
import re
import stat
from typing import Any

from .errors import ArouterError, UsageError

MiB = 1 << 20
# broker.xml: the largest real one we know is under 100 KiB; 32 MiB leaves room for generated ones.
MAX_CONFIG_BYTES = 32 * MiB
# Settings (.arouter.toml / pyproject.toml), targets files and --message JSON are hand-written.
MAX_SMALL_FILE_BYTES = 8 * MiB
# A --keys-file is a batch: large by design. Every kind (plain text, CSV, JSON lines) is streamed
# (memory flat in its size): only one line (a CSV field, a JSON line) is held whole, at most 256 MiB;
# the file itself is bounded in time, not memory (64 GiB: some 4 billion keys of 16 bytes, hours of
# routing).
MAX_KEY_LINE_BYTES = 256 * MiB
MAX_TEXT_KEYS_FILE_BYTES = 64 << 30
# JSON nesting: messages and keys are flat objects; 64 levels is far more than any has.
MAX_JSON_DEPTH = 64
# Python refuses int(str) past 4,300 digits (CVE-2020-10735); Java's long has 19.
MAX_INT_DIGITS = 4_300

_KIND = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
         stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}


def open_regular(path: str, *, limit: int, what: str = "file",
                 error: type[ArouterError] = UsageError) -> tuple[int, os.stat_result]:
    """An open descriptor on the regular file ``path`` and its status, the file no larger than ``limit``
    bytes; anything else is ``error``. The caller closes the descriptor."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise error(f"{what} not found", file=path) from None
    except IsADirectoryError:
        raise error(f"{what} is a directory, not a file", file=path) from None
    except OSError as exc:
        raise error(f"cannot read {what}: {exc.strerror or exc}", file=path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = _KIND.get(stat.S_IFMT(st.st_mode), "not a regular file")
            raise error(f"{what} is {kind}; arouter reads regular files only", file=path)
        if st.st_size > limit:
            raise error(f"{what} is {st.st_size:,} bytes, over arouter's limit of {limit:,}", file=path)
    except OSError as exc:
        os.close(fd)
        raise error(f"cannot read {what}: {exc.strerror or exc}", file=path) from None
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_regular(path: str, *, limit: int, what: str = "file",
                 error: type[ArouterError] = UsageError) -> bytes:
    """The bytes of the regular file ``path``; anything else, or more than ``limit`` bytes, is ``error``."""
    fd, st = open_regular(path, limit=limit, what=what, error=error)
    try:
        chunks: list[bytes] = []
        total = 0
        # the size fstat gave (and one byte more, to see the end) in one read; then 1 MiB at a time
        # while the file keeps growing, up to one byte past the limit
        want = st.st_size + 1
        while True:
            chunk = os.read(fd, min(want, limit + 1 - total))
            want = 1 << 20
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew while we read it
                raise error(f"{what} is over arouter's limit of {limit:,} bytes", file=path)
    except OSError as exc:
        raise error(f"cannot read {what}: {exc.strerror or exc}", file=path) from None
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


class JsonError(ValueError):
    """JSON that is malformed or outside arouter's bounds; ``line``/``column`` are 1-based."""

    def __init__(self, msg: str, line: int, column: int) -> None:
        super().__init__(msg)
        self.msg = msg
        self.line = line
        self.column = column


_LONG_NUMBER = re.compile(rf"-?\d{{{MAX_INT_DIGITS + 1},}}")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def _int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text):,} digits")
    return int(text)


def _depth_error(text: str) -> JsonError | None:
    """Where nesting first goes deeper than MAX_JSON_DEPTH (strings skipped), or None."""
    depth = 0
    in_string = escaped = False
    line, line_start = 1, 0
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return JsonError(f"nested deeper than {MAX_JSON_DEPTH} levels", line, i - line_start + 1)
        elif ch in "]}":
            depth -= 1
        elif ch == "\n":
            line, line_start = line + 1, i + 1
    return None


def loads_json(text: str) -> Any:
    """``json.loads`` within bounds; every failure is a :class:`JsonError` with a position."""
    if "[" in text or "{" in text:
        deep = _depth_error(text) if text.count("[") + text.count("{") > MAX_JSON_DEPTH else None
        if deep is not None:
            raise deep
    import json  # (here: a validate of broker.xml alone never reads JSON)

    try:
        return json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise JsonError(exc.msg, exc.lineno, exc.colno) from None
    except (ValueError, RecursionError) as exc:
        message = str(exc) or "not valid JSON"
        at = _LONG_NUMBER.search(text) if "digits" in message else None
        if at is None:
            words = {"NaN", "Infinity", "-Infinity"} & set(message.split())
            at = re.search(re.escape(words.pop()), text) if words else None
        if at is None:
            raise JsonError(message, 1, 1) from None
        line = text.count("\n", 0, at.start()) + 1
        raise JsonError(message, line, at.start() - (text.rfind("\n", 0, at.start()) + 1) + 1) from None
