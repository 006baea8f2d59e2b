"""Reading a ``--keys-file``: plain text streamed from disk, CSV and JSON lines as records.

Text files: one key value per line, UTF-8, exactly as given (only the ``\\n`` separator is
removed; an empty line is the empty string). They are read twice, a few hundred kilobytes at a
time: once when loaded (every line valid UTF-8, the keys counted: a bad line is an error before
any output) and again for each router that routes them. So the memory a batch holds is flat in
the number of keys: one piece of the file, and a line at most :data:`MAX_KEY_LINE_BYTES` long.

``.csv`` / ``.jsonl``: a column per key type (client_id, user_name, source_ip, sni_host, roles) or
a single ``key`` column, streamed the same way: checked whole when loaded (UTF-8, CSV / JSON, the
columns), then parsed again a piece at a time (:meth:`KeysFile.record_chunks`) as they are routed.
A CSV field or a JSON line may be as long as :data:`MAX_KEY_LINE_BYTES`.
Roles are taken as given: in JSON lines ``"roles": ["a,b", " c"]`` is two roles, each exactly so;
a string (a CSV cell, a JSON string) is split at every comma, nothing trimmed; an empty cell is no
roles.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..routing.keys import RECORD_COLUMNS
from ..safeio import (
    MAX_KEY_LINE_BYTES,
    MAX_TEXT_KEYS_FILE_BYTES,
    JsonError,
    loads_json,
    open_regular,
)

# Bytes of a text keys file read (and decoded, and routed) at a time: bounds the memory a batch holds.
TEXT_CHUNK_BYTES = 1 << 18

Record = tuple[int, dict[str, str]]


def _csv_records(path: str, lines: Iterator[str]) -> Iterator[Record]:
    """The records of a CSV file given as its lines (each with its line terminator, as a file opened
    with newline="" reads them)."""
    csv.field_size_limit(MAX_KEY_LINE_BYTES)  # a field may be as long as a line (default: 128 KiB)
    reader = csv.DictReader(lines)
    try:
        _check_columns(path, reader.fieldnames or [])
        for n, row in enumerate(reader, 2):
            yield n, {k: v for k, v in row.items() if k is not None and v is not None}
    except csv.Error as exc:
        raise UsageError(f"not valid CSV: {exc}", file=path, line=reader.line_num or 1, column=1) from None


def _jsonl_records(path: str, lines: Iterator[tuple[int, str]]) -> Iterator[Record]:
    """The records of a JSON lines file given as its lines (without the newline), each with its number."""
    for n, line in lines:
        if not line.strip():
            continue
        try:
            obj = loads_json(line)
        except JsonError as exc:
            raise UsageError(f"not valid JSON: {exc.msg}", file=path, line=n, column=exc.column) from None
        if not isinstance(obj, dict):
            raise UsageError("each line must be a JSON object", file=path, line=n, column=1)
        _check_columns(path, list(obj), line=n)
        for k, v in obj.items():
            if isinstance(v, list) and (k not in ("roles", "key") or not all(isinstance(x, str) for x in v)):
                raise UsageError(f"{k}: only roles (or a ROLE_NAME key) may be a list, of strings", file=path,
                                 line=n, column=1)
        # a roles array keeps each name as it is (commas included); see keys.role_list
        yield n, {k: tuple(v) if isinstance(v, list) else v for k, v in obj.items() if v is not None}


def _check_columns(path: str, names: list[str], line: int = 1) -> None:
    unknown = [c for c in names if c not in RECORD_COLUMNS and c != "key"]
    if unknown:
        raise UsageError(f"unknown column(s) {', '.join(unknown)}; use key or {', '.join(RECORD_COLUMNS)}",
                         file=path, line=line, column=1)


@dataclass(frozen=True)
class TextKeys:
    """A plain text keys file as checked: where it is, which file it was, how many keys it holds."""

    path: str
    identity: tuple[int, int, int, int]  # device, inode, size, modification time (ns)
    count: int


@dataclass(frozen=True)
class RecordsFile:
    """A CSV or JSON lines keys file as checked: where, which file, which kind, how many records, and
    whether every record has a ``key`` that is a string."""

    path: str
    identity: tuple[int, int, int, int]
    kind: str  # "csv" or "jsonl"
    count: int
    string_keys: bool


@dataclass(frozen=True)
class KeysFile:
    """A keys file as checked, read from disk again piece by piece as it is used: a plain text file
    (``text``) or a CSV / JSON lines file of records (``records``: each record with its line number)."""

    size: int  # bytes
    text: TextKeys | None
    records: RecordsFile | None

    def __len__(self) -> int:
        return self.text.count if self.text is not None else self.records.count if self.records is not None else 0

    def record_chunks(self, size: int) -> Iterator[list[Record]]:
        """The records of a CSV or JSON lines file, in order, ``size`` at a time (none for a text file)."""
        if self.records is None:
            return
        stream = self.records
        fd, st = open_regular(stream.path, limit=MAX_TEXT_KEYS_FILE_BYTES, what="keys file")
        try:
            if _identity(st) != stream.identity:
                raise UsageError("the keys file changed while arouter was reading it", file=stream.path)
            chunk: list[Record] = []
            for record in _records(stream.path, stream.kind, fd, self.size):
                chunk.append(record)
                if len(chunk) >= size:
                    yield chunk
                    chunk = []
            if chunk:
                yield chunk
        finally:
            os.close(fd)

    def key_chunks(self) -> Iterator[list[str]]:
        """The keys of a text file, in order, a few hundred kilobytes at a time.

        One key per line: only the ``\\n`` separator is removed, an empty line is the empty string, and
        the final line terminator does not start another key.
        """
        for keys, _ in self.line_chunks():
            yield keys

    def line_chunks(self) -> Iterator[tuple[list[str], list[bytes]]]:
        """:meth:`key_chunks` with each key's line as written (its UTF-8 bytes), read from disk again."""
        for before, piece in self.pieces():
            yield self.piece_lines(before, piece)

    def piece_lines(self, before: int, piece: bytes) -> tuple[list[str], list[bytes]]:
        """The keys of one of :meth:`pieces`, and each key's line as written (its UTF-8 bytes)."""
        keys = _decoded(self.text.path if self.text is not None else "", piece, before).split("\n")
        lines = piece.split(b"\n")
        if piece.endswith(b"\n"):
            keys.pop()
            lines.pop()
        return keys, lines

    def pieces(self) -> Iterator[tuple[int, bytes]]:
        """A text file read from disk again: consecutive pieces of whole lines (valid UTF-8, checked
        when loaded; the last line may lack its newline), each with the number of lines before it."""
        if self.text is None:
            return
        path = self.text.path
        fd, st = open_regular(path, limit=MAX_TEXT_KEYS_FILE_BYTES, what="keys file")
        try:
            if _identity(st) != self.text.identity:
                raise UsageError("the keys file changed while arouter was reading it", file=path)
            yield from _pieces(fd, path, self.size)
        finally:
            os.close(fd)

    def keys(self) -> list[str]:
        return [k for chunk in self.key_chunks() for k in chunk]


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _pieces(fd: int, path: str, size: int) -> Iterator[tuple[int, bytes]]:
    """The first ``size`` bytes of ``fd`` in consecutive pieces, each ending just after a newline (but
    the last), with the number of lines before each: as UTF-8 never has a newline byte inside a
    character, each piece decodes on its own. A line longer than MAX_KEY_LINE_BYTES is an error."""
    parts: list[bytes] = []
    held = 0  # bytes in parts: the start of a line not yet ended
    before = 0
    left = size
    try:
        while left > 0:
            block = os.read(fd, min(TEXT_CHUNK_BYTES, left))
            if not block:
                raise UsageError("the keys file changed while arouter was reading it", file=path)
            left -= len(block)
            cut = block.rfind(b"\n") + 1
            # the line begun in earlier blocks: what it holds, with this block's part of it
            if held + (block.find(b"\n") if cut else len(block)) > MAX_KEY_LINE_BYTES:
                raise UsageError(f"a line longer than arouter's limit of {MAX_KEY_LINE_BYTES:,} bytes",
                                 file=path, line=before + 1, column=1)
            if cut == 0:
                parts.append(block)
                held += len(block)
                continue
            parts.append(block[:cut] if cut < len(block) else block)
            piece = b"".join(parts)
            yield before, piece
            before += piece.count(b"\n")
            parts = [block[cut:]] if cut < len(block) else []
            held = len(block) - cut
    except OSError as exc:
        raise UsageError(f"cannot read keys file: {exc.strerror or exc}", file=path) from None
    if parts:
        yield before, b"".join(parts)


def _decoded(path: str, piece: bytes, before: int) -> str:
    try:
        return piece.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = before + piece.count(b"\n", 0, exc.start) + 1
        raise UsageError("not valid UTF-8", file=path, line=line, column=1) from None


def _load_text(path: str) -> KeysFile:
    """Check a text keys file (regular, every line valid UTF-8) and count its keys, holding one piece."""
    fd, st = open_regular(path, limit=MAX_TEXT_KEYS_FILE_BYTES, what="keys file")
    count = 0
    last = b"\n"
    try:
        for before, piece in _pieces(fd, path, st.st_size):
            _decoded(path, piece, before)
            count += piece.count(b"\n")
            last = piece[-1:]
    finally:
        os.close(fd)
    if last != b"\n":
        count += 1  # a last line without its terminator is a key too
    return KeysFile(st.st_size, TextKeys(path, _identity(st), count), None)


def _records(path: str, kind: str, fd: int, size: int) -> Iterator[Record]:
    """The records of the first ``size`` bytes of ``fd``, read and parsed a piece at a time."""
    texts = (_decoded(path, piece, before) for before, piece in _pieces(fd, path, size))
    if kind == "csv":
        # a piece ends just after a newline, so a \r\n is never cut in two: each piece's lines (split
        # as a file opened with newline="" splits them) are the file's
        yield from _csv_records(path, (line for text in texts for line in io.StringIO(text, newline="")))
    else:
        yield from _jsonl_records(path, enumerate((line for text in texts for line in _jsonl_lines(text)), 1))


def _jsonl_lines(text: str) -> list[str]:
    """A piece's lines, without their newline (a piece without a final newline ends the file)."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def _load_records(path: str, kind: str) -> KeysFile:
    """Check a CSV or JSON lines keys file whole (UTF-8, its format, its columns), holding one piece."""
    fd, st = open_regular(path, limit=MAX_TEXT_KEYS_FILE_BYTES, what="keys file")
    count = 0
    string_keys = True
    try:
        for before, piece in _pieces(fd, path, st.st_size):  # all of it UTF-8 first, as a text file
            _decoded(path, piece, before)
        os.lseek(fd, 0, os.SEEK_SET)
        for _, record in _records(path, kind, fd, st.st_size):
            count += 1
            if string_keys and not isinstance(record.get("key"), str):
                string_keys = False
    finally:
        os.close(fd)
    return KeysFile(st.st_size, None, RecordsFile(path, _identity(st), kind, count, string_keys))


def load_keys(path: str) -> KeysFile:
    suffix = Path(path).suffix.lower()
    kind = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}.get(suffix)
    if kind is None:
        return _load_text(path)
    return _load_records(path, kind)


def read_keys(path: str) -> tuple[list[Record], int]:
    """Every record of a keys file with its line number, and the file's size in bytes."""
    loaded = load_keys(path)
    return records_of(loaded), loaded.size


def records_of(loaded: KeysFile) -> list[Record]:
    """Every record of a keys file, in memory (a text file's lines as ``key`` records)."""
    if loaded.text is not None:
        return [(n, {"key": k}) for n, k in enumerate(loaded.keys(), 1)]
    return [record for chunk in loaded.record_chunks(1 << 14) for record in chunk]
