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
from ..routing.keys import Connection
from ..routing.router import Router, RouteResult
from ..routing.targets import TargetState
from .common import stderr_console
from .simulate_one import select_routers, source_address

COLUMNS = {"client_id": "CLIENT_ID", "user_name": "USER_NAME", "source_ip": "SOURCE_IP", "sni_host": "SNI_HOST",
           "roles": "ROLE_NAME"}
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
    unknown = [c for c in names if c not in COLUMNS and c != "key"]
    if unknown:
        raise UsageError(f"unknown column(s) {', '.join(unknown)}; use key or {', '.join(COLUMNS)}",
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
    """Build the connection for one record; returns it and the input key shown in the output."""
    if "key" in record:
        fields = {router.key_type: record["key"]}
        shown = record["key"]
    else:
        fields = {COLUMNS[k]: v for k, v in record.items()}
        shown = fields.get(router.key_type, "")
    try:
        sip = fields.get("SOURCE_IP")
        conn = Connection(
            client_id=fields.get("CLIENT_ID"),
            username=fields.get("USER_NAME"),
            sni_host=fields.get("SNI_HOST"),
            remote_address=source_address(sip) if sip is not None and sip != "" else None,
            roles=tuple(r.strip() for r in fields.get("ROLE_NAME", "").split(",") if r.strip()),
        )
    except UsageError as err:
        raise UsageError(err.message.replace("--key ", ""), file=path, line=line, column=1) from None
    return conn, shown


def record_of(res: RouteResult, shown: str, with_router: bool) -> dict[str, object]:
    t = res.target
    rec: dict[str, object] = {}
    if with_router:
        rec["router"] = res.router
    rec.update({
        "key": shown,
        "key_value": res.key_value,
        "status": res.status,
        "target": res.target_label,
        "node_id": t.node_id if t is not None else None,
        "local": res.local,
    })
    return rec


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
            for line, rec in records:
                if management:
                    shown = rec.get("key", "")
                    res = r.route_key(shown)
                else:
                    conn, shown = connection_for(r, rec, keys_file, line)
                    res = r.route(conn)
                writer(record_of(res, shown, with_router))
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
