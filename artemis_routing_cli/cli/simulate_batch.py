"""``arouter simulate --keys-file``: one output record per input key, in order.

Text files: one key value per line, UTF-8, exactly as given (only the ``\\n`` separator is
removed; an empty line is the empty string). ``.csv`` / ``.jsonl``: a column per key type
(client_id, user_name, source_ip, sni_host, roles) or a single ``key`` column.
The router cache persists across the batch, as in a live broker.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from ..config.model import BrokerConfig
from ..errors import UsageError
from ..routing.batch import route_batch
from ..routing.keys import RECORD_COLUMNS, Connection, connection_from_record
from ..routing.router import Router
from ..routing.targets import TargetState
from .common import stderr_console
from .simulate_one import select_routers

FIELDS = ("key", "key_value", "status", "target", "node_id", "local")
# Show a progress bar for files at least this large (bytes) when stderr is a terminal.
PROGRESS_MIN_BYTES = 4 * 1024 * 1024


def _text_records(path: str, data: str) -> Iterator[tuple[int, dict[str, str]]]:
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final line terminator does not start another key
    for n, line in enumerate(lines, 1):
        yield n, {"key": line}


def _csv_records(path: str, data: str) -> Iterator[tuple[int, dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(data, newline=""))
    _check_columns(path, reader.fieldnames or [])
    for n, row in enumerate(reader, 2):
        yield n, {k: v for k, v in row.items() if k is not None and v is not None}


def _jsonl_records(path: str, data: str) -> Iterator[tuple[int, dict[str, str]]]:
    for n, line in enumerate(data.split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"not valid JSON: {exc.msg}", file=path, line=n, column=exc.colno) from None
        if not isinstance(obj, dict):
            raise UsageError("each line must be a JSON object", file=path, line=n, column=1)
        _check_columns(path, list(obj), line=n)
        yield n, {k: ",".join(v) if isinstance(v, list) else v for k, v in obj.items() if v is not None}


def _check_columns(path: str, names: list[str], line: int = 1) -> None:
    unknown = [c for c in names if c not in RECORD_COLUMNS and c != "key"]
    if unknown:
        raise UsageError(f"unknown column(s) {', '.join(unknown)}; use key or {', '.join(RECORD_COLUMNS)}",
                         file=path, line=line, column=1)


def read_keys(path: str) -> tuple[list[tuple[int, dict[str, str]]], int]:
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise UsageError("keys file not found", file=path) from None
    except OSError as exc:
        raise UsageError(f"cannot read keys file: {exc.strerror or exc}", file=path) from None
    try:
        data = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise UsageError("not valid UTF-8", file=path, line=line, column=1) from None
    suffix = Path(path).suffix.lower()
    reader = {".csv": _csv_records, ".jsonl": _jsonl_records, ".ndjson": _jsonl_records}.get(suffix, _text_records)
    return list(reader(path, data)), len(raw)


def connection_for(router: Router, record: dict[str, str], path: str, line: int) -> tuple[Connection, str]:
    """The connection one record describes, and the input key shown in the output."""
    shown = record["key"] if "key" in record else record.get(_column_of(router.key_type), "")
    try:
        return connection_from_record(router.key_type, record), shown
    except UsageError as err:
        raise UsageError(err.message, file=path, line=line, column=1) from None


def _column_of(key_type: str) -> str:
    return next(c for c, kt in RECORD_COLUMNS.items() if kt == key_type)


def run_batch(cfg: BrokerConfig, state: TargetState, router: str | None, keys_file: str, output: str | None,
              fmt: str, seed: int | None, management: bool) -> None:
    if fmt not in ("jsonl", "csv"):
        raise UsageError(f"--format {fmt!r}: batch output is jsonl or csv")
    routers = select_routers(cfg, state, router, seed)
    for r in routers:
        r.tracing = False
    records, size = read_keys(keys_file)
    with_router = len(routers) > 1
    err = stderr_console()
    for r in routers:
        for w in r.warnings:
            err.print(f"[yellow]warning[/yellow]: {r.name}: {w}", highlight=False)

    tmp = Path(output + ".tmp") if output else None
    sink = open(tmp, "w", encoding="utf-8", newline="") if tmp else sys.stdout
    try:
        writer = _writer(sink, fmt, with_router)
        progress = _progress(size, len(records) * len(routers))
        for r in routers:
            if management:
                shown_keys = [rec.get("key", "") for _, rec in records]
                result = route_batch(r, shown_keys, management=True)
            else:
                pairs = [connection_for(r, rec, keys_file, line) for line, rec in records]
                shown_keys = [shown for _, shown in pairs]
                result = route_batch(r, [conn for conn, _ in pairs])
            for shown, rec in zip(shown_keys, result.records(), strict=True):
                writer({"router": r.name, "key": shown, **rec} if with_router else {"key": shown, **rec})
                if progress is not None:
                    progress.advance()
        if progress is not None:
            progress.close()
    except BaseException:
        if tmp is not None:
            sink.close()
            tmp.unlink(missing_ok=True)
        raise
    if tmp is not None and output is not None:
        sink.close()
        os.replace(tmp, output)
    else:
        sink.flush()


def _writer(sink: io.TextIOBase, fmt: str, with_router: bool):  # noqa: ANN202
    if fmt == "csv":
        fields = (("router",) if with_router else ()) + FIELDS
        w = csv.DictWriter(sink, fieldnames=fields, lineterminator="\n")
        w.writeheader()

        def write_csv(rec: dict[str, object]) -> None:
            w.writerow({k: ("" if v is None else str(v).lower() if isinstance(v, bool) else v)
                        for k, v in rec.items()})
        return write_csv
    dumps = json.dumps

    def write_jsonl(rec: dict[str, object]) -> None:
        sink.write(dumps(rec, ensure_ascii=False) + "\n")
    return write_jsonl


class _Bar:
    def __init__(self, total: int) -> None:
        from rich.progress import Progress

        self._p = Progress(console=stderr_console(), transient=True)
        self._p.start()
        self._task = self._p.add_task("routing keys", total=total)
        self._pending = 0

    def advance(self) -> None:
        self._pending += 1
        if self._pending >= 10_000:
            self._p.advance(self._task, self._pending)
            self._pending = 0

    def close(self) -> None:
        self._p.stop()


def _progress(size: int, total: int) -> _Bar | None:
    if size < PROGRESS_MIN_BYTES or not sys.stderr.isatty():
        return None
    return _Bar(total)
