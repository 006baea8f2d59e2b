"""What ``arouter analyze`` can learn about its key input before Spark starts (in well under a second).

Spark's own start-up costs 10-20 s, so every question that can be answered from the input's first
bytes is answered here, and a wrong input is refused before the JVM starts:

- the **format** of a path: its extension; for a directory or an extension-less file, the data
  itself (Parquet's ``PAR1`` and ORC's ``ORC`` magic bytes, a JSON object, a CSV header named
  like key columns); a remote URI (``s3a://``, ``hdfs://``, ...) without an extension is not
  guessed: ``--keys-format`` says it;
- the **columns** of local files (CSV header, the first JSON object, the Parquet/ORC schema), with
  the ``--key-column KEYTYPE=COLUMN`` mapping applied;
- whether each router can take the input: a router whose key type has no column, or a SOURCE_IP
  router given values that are not socket addresses, is refused with the routers that can take it.

Only regular files are read, and only their first :data:`SNIFF_BYTES` bytes (Parquet/ORC schemas
are read from the footer by pyarrow, which reads only the footer).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..routing.keys import RECORD_COLUMNS, source_address

FORMATS = ("auto", "text", "csv", "json", "parquet", "orc")
# Bytes read from the head of a local file to decide its format and columns.
SNIFF_BYTES = 64 * 1024
# Keys sampled from a local text file to check that each router can read them.
SAMPLE_KEYS = 200
# Files of a directory looked at to decide its format.
SNIFF_FILES = 8
KEY_TYPES = {v: k for k, v in RECORD_COLUMNS.items()}  # CLIENT_ID -> client_id
_EXTENSIONS = {".csv": "csv", ".jsonl": "json", ".ndjson": "json", ".json": "json", ".parquet": "parquet",
               ".pq": "parquet", ".orc": "orc", ".txt": "text", ".text": "text"}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_GLOB = re.compile(r"[*?\[{]")


@dataclass(frozen=True)
class KeysInput:
    """The key input as arouter understood it, before Spark reads it."""

    path: str
    format: str
    assumed: str  # how the format was chosen, said on stderr
    columns: tuple[str, ...] | None = None  # the input's columns, when readable here (local files)
    mapping: Mapping[str, str] = field(default_factory=dict)  # record column (client_id) -> input column
    samples: tuple[tuple[int, str], ...] = ()  # (line, key) of the first keys of a local text file
    where: str | None = None  # --where: a Spark SQL condition applied before routing
    id_column: str | None = None  # --id-column: the input's own row id, shown as ``row``
    keep_cr: bool = False  # --keep-cr: a text line's CR before its LF stays part of the key
    bom: bool = False  # a local text file that starts with a UTF-8 byte order mark (Spark's reader drops it)
    crlf: bool = False  # a local text file whose first lines end with CR LF

    def plain(self) -> bool:
        """One key per line, read as it is (its bytes are the key): no column mapping, filter or id column,
        no byte order mark and no CR to take off."""
        return (self.format == "text" and not self.mapping and self.where is None and self.id_column is None
                and not self.bom and (self.keep_cr or not self.crlf))

    def key_columns(self) -> tuple[str, ...] | None:
        """The record columns (key / client_id / ...) routing will see; None when not known yet."""
        if self.mapping:
            return tuple(self.mapping)
        if self.format == "text":
            return ("key",)
        return self.columns


def parse_key_columns(items: Sequence[str]) -> dict[str, str]:
    """``--key-column KEYTYPE=COLUMN`` (repeatable) as {record column: input column}."""
    out: dict[str, str] = {}
    for item in items:
        kind, sep, column = item.partition("=")
        name = kind.strip().upper()
        if not sep or not column:
            raise UsageError(f"--key-column {item!r}: expected KEYTYPE=COLUMN, e.g. CLIENT_ID=mqtt_client")
        if name not in KEY_TYPES:
            raise UsageError(f"--key-column {item!r}: unknown key type {kind!r}; use one of "
                             f"{', '.join(KEY_TYPES)}")
        record = KEY_TYPES[name]
        if record in out:
            raise UsageError(f"--key-column {name} is given twice ({out[record]!r} and {column!r})")
        out[record] = column
    return out


def is_local(path: str) -> bool:
    m = _SCHEME.match(path)
    return m is None or m.group(1).lower() == "file" or len(m.group(1)) == 1  # C:\ on Windows


def _local_path(path: str) -> Path:
    if path.lower().startswith("file://"):
        return Path(path[7:])
    if path.lower().startswith("file:"):
        return Path(path[5:])
    return Path(path)


def _by_extension(name: str) -> str | None:
    lower = name.lower().rstrip("/")
    for ext, kind in _EXTENSIONS.items():
        if lower.endswith(ext):
            return kind
    return None


def _data_files(directory: Path) -> list[Path]:
    """The data files of a Spark/Hive output directory (hidden, ``_`` and ``.crc`` files skipped)."""
    out = []
    try:
        entries = sorted(directory.iterdir())
    except OSError as exc:
        raise UsageError(f"cannot list the keys directory: {exc.strerror}", file=str(directory)) from None
    for p in entries:
        if p.name.startswith((".", "_")) or p.name.endswith(".crc"):
            continue
        try:
            st = p.stat()
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):  # partitioned output: key=value/ folders
            out.extend(_data_files(p)[:SNIFF_FILES])
        elif stat.S_ISREG(st.st_mode):
            out.append(p)
        if len(out) >= SNIFF_FILES:
            break
    return out


def _head(path: Path, size: int = SNIFF_BYTES) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise UsageError(f"cannot read keys: {exc.strerror}", file=str(path)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UsageError("keys must be a regular file or a directory of files", file=str(path))
        return os.read(fd, size)
    finally:
        os.close(fd)


def _sniff(head: bytes, name: str) -> str | None:
    """The format the first bytes of a file show, or None."""
    if head.startswith(b"PAR1"):
        return "parquet"
    if head.startswith(b"ORC"):
        return "orc"
    by_ext = _by_extension(name)
    if by_ext is not None:
        return by_ext
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"{"):
        return "json"
    first = text.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    if "," in first and all(c.strip().strip('"') for c in first.split(",")):
        names = {c.strip().strip('"') for c in first.split(",")}
        if names & ({"key"} | set(RECORD_COLUMNS)):
            return "csv"
    return None


def detect(path: str, fmt: str = "auto") -> tuple[str, str]:
    """(format, how it was chosen) of ``path``; a UsageError when it cannot be told."""
    if fmt not in FORMATS:
        raise UsageError(f"--keys-format {fmt!r}: use one of {', '.join(FORMATS)}")
    if fmt != "auto":
        return fmt, f"--keys-format {fmt}"
    by_ext = _by_extension(path)
    if not is_local(path) or _GLOB.search(path):
        if by_ext is not None:
            return by_ext, f"{by_ext} by the extension of {path}"
        raise UsageError("cannot tell the format of a remote or wildcard path without an extension: "
                         "give --keys-format text|csv|json|parquet|orc", file=path)
    local = _local_path(path)
    try:
        st = local.stat()
    except OSError as exc:
        raise UsageError(f"cannot read keys: {exc.strerror}", file=path) from None
    if stat.S_ISDIR(st.st_mode):
        files = _data_files(local)
        if not files:
            raise UsageError("the keys directory has no data files", file=path)
        kinds = {_sniff(_head(f), f.name) for f in files}
        if len(kinds) == 1 and None not in kinds:
            kind = kinds.pop()
            assert kind is not None
            return kind, f"{kind}, from the data files in the directory {path}"
        if None in kinds and len(kinds) == 1 and all(f.suffix == "" or f.suffix.startswith(".") for f in files):
            raise UsageError("cannot tell the format of the files in this directory: give --keys-format "
                             "text|csv|json|parquet|orc", file=path)
        raise UsageError(f"the files in this directory are of different formats "
                         f"({', '.join(sorted(k or 'unknown' for k in kinds))}): give --keys-format", file=path)
    if by_ext is not None:
        return by_ext, f"{by_ext} by the extension of {path}"
    kind = _sniff(_head(local), local.name)
    if kind in ("parquet", "orc", "json", "csv"):
        return kind, f"{kind}, from the first bytes of {path}"
    return "text", f"text (one key per line): {path} has no extension and no other format's marks"


def _columns_of(path: str, kind: str) -> tuple[str, ...] | None:
    """The columns of a local input, read from its first file's head or footer."""
    if not is_local(path) or _GLOB.search(path):
        return None
    local = _local_path(path)
    first = _data_files(local)[0] if local.is_dir() else local
    if kind == "text":
        return ("key",)
    if kind == "csv":
        head = _head(first).lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0].rstrip(b"\r")
        import csv

        row = next(csv.reader([head.decode("utf-8", "replace")]), [])
        return tuple(row)
    if kind == "json":
        import json

        head = _head(first)
        for line in head.split(b"\n")[:50]:
            if line.strip():
                try:
                    obj = json.loads(line)
                except ValueError:
                    return None  # Spark's reader reports it, with the rows it could not read
                return tuple(obj) if isinstance(obj, dict) else None
        return None
    try:
        if kind == "parquet":
            import pyarrow.parquet as pq

            return tuple(pq.read_schema(first).names)
        import pyarrow.orc as po

        return tuple(po.ORCFile(str(first)).schema.names)
    except Exception as exc:  # a damaged footer: one line, before Spark starts
        raise UsageError(f"cannot read the {kind} schema: {str(exc).splitlines()[0] if str(exc) else exc}",
                         file=str(first)) from None


def _text_head(path: str) -> bytes | None:
    """The first bytes of a local text input (its first file's), None for a remote or wildcard one."""
    if not is_local(path) or _GLOB.search(path):
        return None
    local = _local_path(path)
    return _head(_data_files(local)[0] if local.is_dir() else local)


def _text_samples(head: bytes | None) -> tuple[tuple[int, str], ...]:
    if head is None:
        return ()
    full = len(head) == SNIFF_BYTES
    head = head.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n")  # as the keys will be read (the CR
    # ending the file's last line too, when the head is the whole file)
    if not full and head.endswith(b"\r"):
        head = head[:-1]
    lines = head.split(b"\n")
    if full:
        lines.pop()  # possibly cut in the middle
    out = []
    for n, raw in enumerate(lines[:SAMPLE_KEYS], 1):
        try:
            out.append((n, raw.decode("utf-8")))
        except UnicodeDecodeError:
            continue
    return tuple(out)


def inspect(path: str, fmt: str = "auto", key_columns: Mapping[str, str] | None = None,
            id_column: str | None = None) -> KeysInput:
    """Everything known about ``path`` before Spark starts; refuses what cannot work."""
    kind, assumed = detect(path, fmt)
    mapping = dict(key_columns or {})
    columns = _columns_of(path, kind)
    if kind == "text" and mapping:
        raise UsageError("--key-column needs a file with columns (CSV, JSON lines, Parquet or ORC); "
                         "a text file holds one key per line", file=path)
    if columns is not None and kind != "text":
        if mapping:
            missing = [c for c in mapping.values() if c not in columns]
            if missing:
                raise UsageError(f"--key-column names {', '.join(repr(c) for c in missing)}, which the input does "
                                 f"not have (columns: {', '.join(columns)})", file=path)
        else:
            # the id column is not a key column (unless it is one: --id-column client_id)
            extra = id_column if id_column != "key" and id_column not in RECORD_COLUMNS else None
            _check_plain_columns(path, [c for c in columns if c != extra])
    head = _text_head(path) if kind == "text" else None
    samples = _text_samples(head)
    return KeysInput(path, kind, assumed, columns, mapping, samples, bom=head is not None and head.startswith(
        b"\xef\xbb\xbf"), crlf=head is not None and (b"\r\n" in head or head.endswith(b"\r")))


def _check_plain_columns(path: str, columns: Sequence[str]) -> None:
    """Columns named like key columns are read; others are not (and are fine). Without any, an error
    that names the columns and how to say which one holds which key type."""
    problem = key_columns_problem(columns)
    if problem is not None:
        raise UsageError(problem, file=path)


def key_columns_problem(columns: Sequence[str]) -> str | None:
    """Why a file with these columns (and no --key-column) gives no keys, or None. Columns not named like
    key columns are fine (not read); the message names the columns, not a guess at which holds the keys.
    analyze, simulate, diff and fleet say it alike."""
    keys = [c for c in columns if c == "key" or c in RECORD_COLUMNS]
    if not keys:
        return (f"no key column (columns: {', '.join(columns) or 'none'}): name one key or "
                f"{', '.join(RECORD_COLUMNS)}, or say which column holds which key type with "
                "--key-column KEYTYPE=COLUMN")
    if "key" in keys and len(keys) > 1:
        return f"give either a single key column or a column per key type (columns: {', '.join(columns)})"
    return None


def unread_columns(columns: Iterable[str], mapping: Mapping[str, str] | None, id_column: str | None = None
                   ) -> list[str]:
    """The columns that are not read as keys (said on stderr): all but the mapped ones (--key-column), or
    but those named like key columns."""
    used = set(mapping.values()) if mapping else {"key", *RECORD_COLUMNS}
    return [c for c in columns if c not in used and c != id_column]


def other_columns(inp: KeysInput) -> list[str]:
    """The input's columns that are not read as keys (said on stderr)."""
    if inp.columns is None or inp.format == "text":
        return []
    return unread_columns(inp.columns, inp.mapping, inp.id_column)


@dataclass(frozen=True)
class RouterInput:
    """A router as it will see the input."""

    name: str
    key_type: str


@dataclass(frozen=True)
class RouterCheck:
    """What :func:`check_routers` decided: routers left out, and notes to show."""

    skip: frozenset[str] = frozenset()
    notes: tuple[str, ...] = ()
    why: tuple[tuple[str, str], ...] = ()  # (router, why it is left out), for the report


def check_routers(inp: KeysInput, routers: Iterable[RouterInput], chosen: bool,
                  candidates: Iterable[RouterInput] = ()) -> RouterCheck:
    """Refuse routers that cannot read the input (before Spark).

    With several routers (no ``-r``), those that cannot read it are left out and said so; when none
    can, or the user chose the router (``chosen``), a UsageError names the routers that can
    (among ``candidates``: every router of the config).
    """
    routers = list(routers)
    pool = list(candidates) or routers
    cols = inp.key_columns()
    if cols is None:
        return RouterCheck()
    cols = [c for c in cols if c == "key" or c in RECORD_COLUMNS or inp.mapping]
    bad: dict[str, str] = {}
    for r in routers:
        reason = _reason(inp, r, cols)
        if reason is not None:
            bad[r.name] = reason
    if not bad:
        return RouterCheck()
    good = [r for r in routers if r.name not in bad]
    if not good or chosen:
        name, why = next(iter(bad.items()))
        able = [r for r in pool if r.name not in bad and _reason(inp, r, cols) is None]
        raise UsageError(f"router {name!r} cannot take these keys: {why}{_hint(inp, able)}", file=inp.path)
    notes = [f"{name}: left out, it cannot take these keys: {why}" for name, why in bad.items()]
    notes.append("routing with " + ", ".join(r.name for r in good) + " (choose one with -r NAME)")
    return RouterCheck(frozenset(bad), tuple(notes), tuple(bad.items()))


def _reason(inp: KeysInput, r: RouterInput, cols: Sequence[str]) -> str | None:
    """Why router ``r`` cannot read the input, or None."""
    if "key" in cols:
        return _not_addresses(inp) if r.key_type == "SOURCE_IP" and inp.samples else None
    if KEY_TYPES.get(r.key_type) not in cols:
        return (f"it reads {r.key_type} and the input has no {KEY_TYPES.get(r.key_type, '?')} column "
                f"(columns: {', '.join(cols)})")
    return None


def _not_addresses(inp: KeysInput) -> str | None:
    """Why the sampled keys are not SOURCE_IP values, when none of the first keys is one."""
    first_bad = None
    for line, value in inp.samples:
        if value == "":
            continue
        try:
            source_address(value)
            return None
        except UsageError:
            if first_bad is None:
                first_bad = (line, value)
    if first_bad is None:
        return None
    return (f"it reads SOURCE_IP and line {first_bad[0]} ({first_bad[1][:40]!r}) is not an IP address "
            "(nor any of the first keys)")


def _hint(inp: KeysInput, able: Sequence[RouterInput]) -> str:
    parts = []
    if able:
        parts.append("routers that can: " + ", ".join(f"-r {r.name} ({r.key_type})" for r in able))
    if inp.format == "text":
        parts.append("or give a CSV/JSON lines file with a column per key type "
                     f"({', '.join(RECORD_COLUMNS)})")
    else:
        parts.append("or map a column with --key-column KEYTYPE=COLUMN")
    return "; " + "; ".join(parts)
