"""Reading a ``--keys-file``: plain text streamed from disk, CSV and JSON lines as records.

Text files: one key value per line, UTF-8, exactly as given but for the line ends: the ``\\n``
separator is removed, and so is a ``\\r`` ending a line (before its ``\\n``, or at the end of the
file: a file saved on Windows) unless ``keep_cr`` (``--keep-cr``); a UTF-8 byte order mark at the
start of the file is never part of the first key; an empty line is the empty string. analyze reads
the same keys (pipeline/inputs.py: Spark's line reader drops the mark, the CR is taken off there). A
file that had either is said once (:func:`reading_notes`). CSV and JSON lines files lose a byte
order mark at the start too (never part of a column name or of JSON); a CR before LF is a line end
of their own syntax. They are read twice, a few hundred kilobytes at a
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
import dataclasses
import io
import itertools
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..pipeline.preflight import key_columns_problem, parse_key_columns, unread_columns
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
# A UTF-8 byte order mark: at the start of a keys file it is not part of the first key.
BOM = b"\xef\xbb\xbf"

Record = tuple[int, dict[str, str]]


def _csv_records(path: str, lines: Iterator[str], columns: Mapping[str, str] | None = None) -> Iterator[Record]:
    """The records of a CSV file given as its lines (each with its line terminator, as a file opened
    with newline="" reads them): only the key columns (``columns``: ``--key-column``, else those named
    like key columns), each under its record name."""
    csv.field_size_limit(MAX_KEY_LINE_BYTES)  # a field may be as long as a line (default: 128 KiB)
    reader = csv.DictReader(lines)
    try:
        read = _key_columns(path, reader.fieldnames or [], columns)
        for n, row in enumerate(reader, 2):
            yield n, {record: row[col] for record, col in read.items() if row.get(col) is not None}
    except csv.Error as exc:
        raise UsageError(f"not valid CSV: {exc}", file=path, line=reader.line_num or 1, column=1) from None


def _jsonl_records(path: str, lines: Iterator[tuple[int, str]], columns: Mapping[str, str] | None = None
                   ) -> Iterator[Record]:
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
        read = _key_columns(path, list(obj), columns, line=n, each_line=True)
        obj = {record: obj[col] for record, col in read.items() if col in obj}
        for k, v in obj.items():
            if isinstance(v, list) and (k not in ("roles", "key") or not all(isinstance(x, str) for x in v)):
                raise UsageError(f"{k}: only roles (or a ROLE_NAME key) may be a list, of strings", file=path,
                                 line=n, column=1)
        # a roles array keeps each name as it is (commas included); see keys.role_list
        yield n, {k: tuple(v) if isinstance(v, list) else v for k, v in obj.items() if v is not None}


def _key_columns(path: str, names: list[str], columns: Mapping[str, str] | None, line: int = 1,
                 each_line: bool = False) -> dict[str, str]:
    """{record column: input column} of the columns that hold keys: those ``--key-column`` names
    (``columns``), else those named like key columns (key, client_id, ...). Other columns are not read.
    Without any key column, an error naming the columns and how to map the one that holds the keys."""
    if columns:
        missing = [c for c in columns.values() if c not in names]
        if missing and not each_line:  # a JSON line without the column: the key type's value is missing
            raise UsageError(f"--key-column names {', '.join(repr(c) for c in missing)}, which the file does not "
                             f"have (columns: {', '.join(names)})", file=path, line=line, column=1)
        return dict(columns)
    problem = key_columns_problem(names) if names or not each_line else None
    if problem is not None:
        raise UsageError(problem, file=path, line=line, column=1)
    return {c: c for c in names if c in RECORD_COLUMNS or c == "key"}


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
    columns: tuple[str, ...] = ()  # the CSV header, or the columns of the first JSON line


@dataclass(frozen=True)
class Reading:
    """How a keys file's bytes become keys (the options), and what of it this file needed."""

    keep_cr: bool = False  # --keep-cr: a CR before LF stays part of the keys (text files)
    columns: Mapping[str, str] | None = None  # --key-column: {record column: the file's column}
    bom: bool = False  # the file starts with a UTF-8 byte order mark
    crlf: bool = False  # some line ends with CR LF


@dataclass(frozen=True)
class KeysFile:
    """A keys file as checked, read from disk again piece by piece as it is used: a plain text file
    (``text``) or a CSV / JSON lines file of records (``records``: each record with its line number)."""

    size: int  # bytes
    text: TextKeys | None
    records: RecordsFile | None
    reading: Reading = Reading()

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
            for record in _records(stream.path, stream.kind, fd, self.size, self.reading):
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
            yield from _cleaned(_pieces(fd, path, self.size), self.reading.keep_cr)
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


def _cleaned(pieces: Iterator[tuple[int, bytes]], keep_cr: bool) -> Iterator[tuple[int, bytes]]:
    """``pieces`` without a UTF-8 byte order mark at the start and without the CR of each CR LF, unless
    ``keep_cr`` (a piece ends just after a LF, so a CR LF is never cut in two; lines keep their numbers)."""
    first = True
    for before, piece in pieces:
        if first and piece.startswith(BOM):
            piece = piece[len(BOM):]
        if not keep_cr:
            if b"\r\n" in piece:
                piece = piece.replace(b"\r\n", b"\n")
            if piece.endswith(b"\r"):  # the file's last line, without its LF (Spark's reader drops it too)
                piece = piece[:-1]
        first = False
        yield before, piece


def _load_text(path: str, reading: Reading) -> KeysFile:
    """Check a text keys file (regular, every line valid UTF-8) and count its keys, holding one piece."""
    fd, st = open_regular(path, limit=MAX_TEXT_KEYS_FILE_BYTES, what="keys file")
    count = 0
    last = b"\n"
    bom = crlf = False
    try:
        for before, piece in _pieces(fd, path, st.st_size):
            _decoded(path, piece, before)
            bom = bom or (before == 0 and piece.startswith(BOM))
            crlf = crlf or b"\r\n" in piece or piece.endswith(b"\r")
            count += piece.count(b"\n")
            last = piece[-1:]
    finally:
        os.close(fd)
    if last != b"\n":
        count += 1  # a last line without its terminator is a key too
    return KeysFile(st.st_size, TextKeys(path, _identity(st), count), None,
                    dataclasses.replace(reading, bom=bom, crlf=crlf))


def _records(path: str, kind: str, fd: int, size: int, reading: Reading) -> Iterator[Record]:
    """The records of the first ``size`` bytes of ``fd``, read and parsed a piece at a time."""
    # a BOM at the start is never part of a column name or of JSON; CR LF is a line end of their own
    # syntax already (and a CR inside a quoted CSV field stays as written)
    pieces = _pieces(fd, path, size)
    first = next(pieces, None)
    if first is not None and first[0] == 0 and first[1].startswith(BOM):
        first = (0, first[1][len(BOM):])
    texts = (_decoded(path, piece, before) for before, piece in itertools.chain([first] if first else [], pieces))
    if kind == "csv":
        # a piece ends just after a newline, so a \r\n is never cut in two: each piece's lines (split
        # as a file opened with newline="" splits them) are the file's
        yield from _csv_records(path, (line for text in texts for line in io.StringIO(text, newline="")),
                                reading.columns)
    else:
        yield from _jsonl_records(path, enumerate((line for text in texts for line in _jsonl_lines(text)), 1),
                                  reading.columns)


def _jsonl_lines(text: str) -> list[str]:
    """A piece's lines, without their newline (a piece without a final newline ends the file)."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def _header(path: str, kind: str, fd: int, size: int) -> tuple[tuple[str, ...], bool]:
    """The columns a CSV file's header or a JSON lines file's first object names, and whether the
    file starts with a byte order mark."""
    head = os.pread(fd, min(size, 1 << 16), 0)
    bom = head.startswith(BOM)
    text = head[len(BOM) if bom else 0:].decode("utf-8", "replace")
    if kind == "csv":
        row = next(csv.reader(io.StringIO(text.split("\n", 1)[0].rstrip("\r"), newline="")), [])
        return tuple(row), bom
    for line in text.split("\n")[:50]:
        if line.strip():
            try:
                obj = loads_json(line)
            except JsonError:
                return (), bom
            return (tuple(obj) if isinstance(obj, dict) else ()), bom
    return (), bom


def _load_records(path: str, kind: str, reading: Reading) -> KeysFile:
    """Check a CSV or JSON lines keys file whole (UTF-8, its format, its columns), holding one piece."""
    fd, st = open_regular(path, limit=MAX_TEXT_KEYS_FILE_BYTES, what="keys file")
    count = 0
    string_keys = True
    try:
        for before, piece in _pieces(fd, path, st.st_size):  # all of it UTF-8 first, as a text file
            _decoded(path, piece, before)
        columns, bom = _header(path, kind, fd, st.st_size)
        reading = dataclasses.replace(reading, bom=bom, crlf=False)
        os.lseek(fd, 0, os.SEEK_SET)
        for _, record in _records(path, kind, fd, st.st_size, reading):
            count += 1
            if string_keys and not isinstance(record.get("key"), str):
                string_keys = False
    finally:
        os.close(fd)
    return KeysFile(st.st_size, None, RecordsFile(path, _identity(st), kind, count, string_keys, columns), reading)


def load_keys(path: str, reading: Reading | None = None) -> KeysFile:
    """A keys file checked whole: text (one key per line), or CSV / JSON lines by its extension."""
    reading = reading or Reading()
    suffix = Path(path).suffix.lower()
    kind = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}.get(suffix)
    if kind is None:
        if reading.columns:
            raise UsageError("--key-column needs a file with columns (.csv or .jsonl); a text file holds one key "
                             "per line", file=path)
        return _load_text(path, reading)
    return _load_records(path, kind, reading)


def reading_of(keep_cr: bool = False, key_column: Sequence[str] | None = None) -> Reading:
    """The reading ``--keep-cr`` and ``--key-column KEYTYPE=COLUMN`` (repeatable, as analyze reads it) ask for:
    every command that reads a keys file (simulate, diff, fleet) builds it here."""
    return Reading(keep_cr=keep_cr, columns=parse_key_columns(key_column or []) or None)


def reading_notes(loaded: KeysFile) -> list[str]:
    """What the reading of this file assumed, to say once on stderr (nothing for an ordinary file)."""
    path = (loaded.text or loaded.records).path if (loaded.text or loaded.records) else ""
    r = loaded.reading
    notes = []
    if loaded.text is not None:
        notes.extend(f"{path}: {line}" for line in text_marks(r.bom, r.crlf, r.keep_cr))
    elif r.bom:
        notes.append(f"{path}: a UTF-8 byte order mark at its start: skipped (not part of the first record)")
    if loaded.records is not None:
        other = unread_columns(loaded.records.columns, r.columns)
        if r.columns:
            notes.append("key columns: " + ", ".join(f"{_KEY_TYPE[k]}={v}" for k, v in r.columns.items()))
        if other:
            notes.append(f"{path}: column(s) {', '.join(other)} not read (not key columns)")
    return notes


def text_marks(bom: bool, crlf: bool, keep_cr: bool) -> list[str]:
    """What to say about a text keys file's byte order mark and CR LF line ends (simulate, diff, analyze)."""
    out = []
    if bom:
        out.append("a UTF-8 byte order mark at its start: not part of the first key")
    if crlf:
        out.append("CR LF line ends: the CR is kept as part of each key (--keep-cr)" if keep_cr else
                   "CR LF line ends: the CR is not part of the keys (--keep-cr keeps it)")
    return out


_KEY_TYPE = {**RECORD_COLUMNS, "key": "KEY"}


def read_keys(path: str) -> tuple[list[Record], int]:
    """Every record of a keys file with its line number, and the file's size in bytes."""
    loaded = load_keys(path)
    return records_of(loaded), loaded.size


def records_of(loaded: KeysFile) -> list[Record]:
    """Every record of a keys file, in memory (a text file's lines as ``key`` records)."""
    if loaded.text is not None:
        return [(n, {"key": k}) for n, k in enumerate(loaded.keys(), 1)]
    return [record for chunk in loaded.record_chunks(1 << 14) for record in chunk]
