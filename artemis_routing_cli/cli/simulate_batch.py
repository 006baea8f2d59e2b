"""``arouter simulate --keys-file``: one output record per input key, in order.

The keys file is read as :mod:`.keys_file` says: streamed from disk (checked whole first, then
routed a chunk at a time for each router, a plain text file's lines or a CSV / JSON lines file's
records), so the memory a batch holds does not grow with the number of keys. Output is written a
chunk at a time too (to stdout, or to the temporary file that replaces ``-o FILE`` at the end).
The router cache persists across the batch, as in a live broker.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import json
import operator
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from ..config.model import BrokerConfig
from ..errors import UsageError
from ..outfile import atomic_text
from ..routing.batch import BatchInput, BatchResult, batch_router
from ..routing.batch_piece import PieceRoute, piece_router
from ..routing.keys import RECORD_COLUMNS, Connection, connection_from_record
from ..routing.router import Router
from ..routing.selection import select_routers
from ..routing.targets import TargetState
from .common import note, stderr_console, warn
from .key_options import apply as apply_key_options
from .key_options import assumed
from .keys_file import KeysFile, Reading, Record, load_keys, read_keys, reading_notes

if TYPE_CHECKING:
    import numpy as np

__all__ = ["CsvWriter", "JsonLinesWriter", "KeysFile", "load_keys", "read_keys", "run_batch"]

FIELDS = ("key", "key_value", "status", "target", "node_id", "local")
# Show a progress bar for files at least this large (bytes) when stderr is a terminal.
PROGRESS_MIN_BYTES = 4 * 1024 * 1024


def connection_for(router: Router, record: dict[str, str], path: str, line: int) -> tuple[Connection, str]:
    """The connection one record describes, and the input key shown in the output."""
    shown = record["key"] if "key" in record else record.get(_column_of(router.key_type), "")
    try:
        return connection_from_record(router.key_type, record, router.sni_encoding), shown
    except UsageError as err:
        raise UsageError(err.message, file=path, line=line, column=1) from None


def _column_of(key_type: str) -> str:
    return next(c for c, kt in RECORD_COLUMNS.items() if kt == key_type)


# Key types whose ``key`` column is used as given: route_batch takes those strings directly. (An SNI_HOST
# host name is made a connection record by record: a name a Java client cannot send is a bad row.)
_PLAIN_KEY_TYPES = ("CLIENT_ID", "USER_NAME", "ROLE_NAME")
# Records routed (and then encoded and written) at a time: bounds the memory a batch holds.
CHUNK = 1 << 14


@dataclass
class BadRows:
    """Rows a router cannot take (a SOURCE_IP that is no address, an SNI host a Java client cannot
    send): counted, the first few kept with their line, left out of the output (exit 1), as analyze
    does with its bad rows."""

    path: str
    count: int = 0
    samples: list[tuple[str, int, str]] = field(default_factory=list)  # router, line, why

    def add(self, router: str, line: int, why: str) -> None:
        self.count += 1
        if len(self.samples) < BAD_SAMPLES:
            self.samples.append((router, line, why))

    def lines(self) -> list[str]:
        """What to say on stderr about them (nothing when there are none)."""
        if not self.count:
            return []
        out = [f"{self.path}:{line}:1: {router}: {why} (left out)" for router, line, why in self.samples]
        more = f", the first {len(self.samples)} above" if self.count > len(self.samples) else ""
        out.append(f"{self.count:,} bad row(s) left out{more}: the records cover the other keys")
        return out


# Bad rows shown with their line (the others are counted).
BAD_SAMPLES = 10


def _connections(router: Router, items: Iterable[tuple[int, dict[str, str]]], path: str, bad: BadRows | None
                 ) -> tuple[list[object], list[Connection]]:
    """The keys shown and the connections of ``items`` (line, record), a bad one left out (counted in
    ``bad``; without ``bad`` it is an error at its line)."""
    shown: list[object] = []
    conns: list[Connection] = []
    for line, rec in items:
        try:
            conn, key = connection_for(router, rec, path, line)
        except UsageError as err:
            if bad is None:
                raise
            bad.add(router.name, line, err.message)
            continue
        shown.append(key)
        conns.append(conn)
    return shown, conns


def batch_inputs(router: Router, records: list[Record], path: str, management: bool, bad: BadRows | None = None
                 ) -> tuple[list[object], BatchInput]:
    """The keys shown in the output and what route_batch routes, for one router, in input order
    (records of a CSV or JSON lines file; a bad one left out, see :class:`BadRows`)."""
    keys: list[object] | None = None
    if management:
        keys = [rec.get("key", "") for _, rec in records]
    elif all("key" in rec for _, rec in records):
        keys = [rec["key"] for _, rec in records]
        if not all(issubclass(t, str) for t in set(map(type, keys))):
            keys = None
    if keys is not None and (management or router.key_type in _PLAIN_KEY_TYPES):
        # The key column holds the key type's value: route_batch builds the same connection from it.
        return keys, keys  # type: ignore[return-value]
    return _connections(router, records, path, bad)  # type: ignore[return-value]


def _text_chunks(router: Router, loaded: KeysFile, path: str, management: bool, bad: BadRows | None = None
                 ) -> Iterator[tuple[Sequence[object], BatchInput, list[bytes] | None]]:
    """:func:`_input_chunks` of a text file, read from disk as they are routed. Keys the router takes
    as they are go to route_batch as strings (with their UTF-8 lines); others (SOURCE_IP, SNI_HOST)
    become connections here, a bad one left out (:class:`BadRows`)."""
    for before, piece in loaded.pieces():
        yield from _piece_chunks(router, loaded, path, management, before, piece, bad)


def _piece_chunks(router: Router, loaded: KeysFile, path: str, management: bool, before: int, piece: bytes,
                  bad: BadRows | None = None) -> Iterator[tuple[Sequence[object], BatchInput, list[bytes] | None]]:
    """:func:`_text_chunks` of one piece of the file (``before``: the lines before it)."""
    plain = management or router.key_type in _PLAIN_KEY_TYPES
    line = before + 1
    keys, lines = loaded.piece_lines(before, piece)
    for start in range(0, len(keys), CHUNK):
        part = keys[start:start + CHUNK]
        if plain:
            yield part, part, lines[start:start + CHUNK]
        else:
            shown, conns = _connections(router, ((line + i, {"key": k}) for i, k in enumerate(part)), path, bad)
            yield shown, conns, None
        line += len(part)


def _input_chunks(router: Router, loaded: KeysFile, path: str, management: bool, bad: BadRows | None = None
                  ) -> Iterator[tuple[Sequence[object], BatchInput, list[bytes] | None]]:
    """Consecutive chunks of (shown keys, route_batch input, the keys' UTF-8 lines when read from a
    text file), read from disk as they are routed; a row the router cannot take is left out and
    counted in ``bad`` (without it, an error at its line)."""
    if loaded.text is not None:
        yield from _text_chunks(router, loaded, path, management, bad)
        return
    for records in loaded.record_chunks(CHUNK):
        shown, inputs = batch_inputs(router, records, path, management, bad)
        yield shown, inputs, None


def unreadable(candidates: Sequence[Any], routers: Sequence[Router], loaded: KeysFile, chosen: bool
               ) -> tuple[set[str], list[str]]:
    """The routers of ``routers`` that cannot take a keys file, as analyze decides it (pipeline/preflight):
    a SOURCE_IP router given a plain file whose first keys are no addresses; and what to say about them.
    When none can, or the router was chosen with -r (``chosen``), an error naming the routers that can
    (among ``candidates``: each with a name and a key_type, e.g. the config's routers)."""
    if loaded.text is None:
        return set(), []
    from ..pipeline.preflight import SAMPLE_KEYS, KeysInput, RouterInput, check_routers

    samples: list[tuple[int, str]] = []
    for keys in loaded.key_chunks():
        samples.extend(enumerate(keys[:SAMPLE_KEYS - len(samples)], len(samples) + 1))
        if len(samples) >= SAMPLE_KEYS:
            break
    inp = KeysInput(loaded.text.path, "text", "", ("key",), {}, tuple(samples))
    checked = check_routers(inp, [RouterInput(r.name, r.key_type) for r in routers], chosen=chosen,
                            candidates=[RouterInput(r.name, r.key_type) for r in candidates])
    return set(checked.skip), list(checked.notes)


def usable_routers(cfg: BrokerConfig, routers: list[Router], loaded: KeysFile, chosen: bool) -> list[Router]:
    """``routers`` but those that cannot take the keys file (:func:`unreadable`), which are said on stderr."""
    skip, notes = unreadable(cfg.connection_routers, routers, loaded, chosen)
    err = stderr_console()
    for line in notes:
        warn(err, line)
    return [r for r in routers if r.name not in skip]


def run_batch(cfg: BrokerConfig, state: TargetState, router: str | None, keys_file: str, output: str | None,
              fmt: str, seed: int | None, management: bool,
              key_options: tuple[str | None, str | None] = (None, None), reading: Reading | None = None) -> int:
    """Route a keys file; the exit code (0, or 1 when some rows were bad and left out)."""
    if fmt not in ("jsonl", "csv"):
        raise UsageError(f"--format {fmt!r}: batch output is jsonl or csv")
    routers = select_routers(cfg, state, router, seed)
    options = apply_key_options(routers, *key_options)
    for r in routers:
        r.tracing = False
    loaded = load_keys(keys_file, reading)
    if not management:
        routers = usable_routers(cfg, routers, loaded, chosen=router is not None)
    said = assumed(routers, *options)
    with_router = len(routers) > 1
    bad = BadRows(keys_file)
    # bad input is one line: what was assumed, and the warnings, are said once every input is checked
    for line in reading_notes(loaded):
        note(f"arouter: {line}")
    if said and not management:
        note(f"arouter: {said}")
    err = stderr_console()
    for r in routers:
        for w in r.warnings:
            warn(err, f"{r.name}: {w}")
    with contextlib.ExitStack() as stack:
        sink = stack.enter_context(atomic_text(output, what="records", newline="")) if output else sys.stdout
        writer = (CsvWriter if fmt == "csv" else JsonLinesWriter)(sink, with_router)
        progress = _progress(loaded.size, len(routers), loaded)
        for r in routers:
            # One batch per router, routed chunk by chunk (the router's cache persists across chunks).
            route = batch_router(r, management=management)
            by_piece = piece_router(r, management) if isinstance(writer, JsonLinesWriter) and \
                loaded.text is not None and writer.writes_bytes() else None
            if by_piece is None:
                chunks = _input_chunks(r, loaded, keys_file, management, bad)
            else:
                chunks = _routed_pieces(r, loaded, keys_file, management, by_piece, writer)  # type: ignore[arg-type]
            for shown, inputs, lines in chunks:
                if inputs is not _WRITTEN and len(shown):
                    writer.write(r.name, shown, route(inputs), lines)
                if progress is not None:
                    progress.advance(len(shown))
        if progress is not None:
            progress.close()
        if not output:
            sink.flush()
    for line in bad.lines():
        warn(err, line)
    return 1 if bad.count else 0


# What _routed_pieces yields for a piece it has written itself (its first item: the piece's key count).
_WRITTEN: list[str] = []


def _routed_pieces(router: Router, loaded: KeysFile, path: str, management: bool,
                   by_piece: Callable[[bytes], PieceRoute | None], writer: JsonLinesWriter
                   ) -> Iterator[tuple[Sequence[object], BatchInput, list[bytes] | None]]:
    """A text file's pieces routed and written whole (routing/batch_piece); a piece that cannot be
    (a key needing escapes in JSON, one holding the internal client-id prefix) comes out as
    :func:`_input_chunks` would give it. A piece written is yielded as (``range(count)``, _WRITTEN, None)."""
    for before, piece in loaded.pieces():
        routed = by_piece(piece)
        if routed is not None and writer.write_piece(router.name, piece, routed):
            yield range(routed.count), _WRITTEN, None
        else:
            yield from _piece_chunks(router, loaded, path, management, before, piece)


# -- output -------------------------------------------------------------------------------------
# Both writers produce, byte for byte, what writing one dict per record would:
#   JSON lines: json.dumps({"router"?, "key", "key_value", "status", "target", "node_id", "local"},
#               ensure_ascii=False) + "\n"
#   CSV: csv.DictWriter(fieldnames=FIELDS, lineterminator="\n"), None as "", booleans as true/false.
# They work on whole columns (``tests/cli/test_batch_output.py`` compares them with those).
def _columns(shown: Sequence[object], result: BatchResult) -> list[list[object]]:
    if len(shown) != len(result):
        raise ValueError("one shown key per result")
    return [list(shown), result.key_value.tolist(), result.status.tolist(), result.target.tolist(),
            result.node_id.tolist(), result.local.tolist()]


# Pieces joined per write: a few hundred records, small enough for malloc to reuse its memory
# from one write to the next instead of mapping (and page-faulting) fresh memory each time.
WRITE_PIECES = 1280


class JsonLinesWriter:
    def __init__(self, sink: TextIO, with_router: bool) -> None:
        self._sink = sink
        self._with_router = with_router

    def write(self, router: str, shown: Sequence[object], result: BatchResult,
              lines: list[bytes] | None = None) -> None:
        """Write the records of ``result`` (``shown``: the input keys, in the same order; ``lines``:
        optionally, each key's UTF-8 encoding)."""
        head = f'{{"router": {_dumps(router)}, "key": ' if self._with_router else '{"key": '
        cols = _columns(shown, result)
        binary = self._binary_sink()
        if binary is not None and lines is not None and all(map(operator.is_, cols[0], cols[1])):
            pieces_b = json_line_bytes(head, lines, *cols[2:])
            if pieces_b is not None:
                self._sink.flush()
                for start in range(0, len(pieces_b), WRITE_PIECES):
                    binary.write(b"".join(pieces_b[start:start + WRITE_PIECES]))
                return
        pieces = json_line_pieces(head, *cols)
        for start in range(0, len(pieces), WRITE_PIECES):
            self._sink.write(escape_lone_surrogates("".join(pieces[start:start + WRITE_PIECES])))

    def writes_bytes(self) -> bool:
        """Whether the sink takes UTF-8 bytes for its text (:meth:`write_piece` can write)."""
        return self._binary_sink() is not None

    def write_piece(self, router: str, piece: bytes, routed: PieceRoute) -> bool:
        """Write the records of a piece of a text keys file routed by routing/batch_piece (each key is
        its line, shown as given): False, and nothing written, when some key needs escaping in JSON."""
        binary = self._binary_sink()
        if binary is None or len(piece.translate(None, _JSON_ESCAPED_BYTES)) != len(piece):
            return False
        lines = piece.split(b"\n")
        if piece.endswith(b"\n"):
            lines.pop()
        if len(lines) != routed.count:
            raise ValueError("one routed key per line")
        head = f'{{"router": {_dumps(router)}, "key": "' if self._with_router else '{"key": "'
        tails = _Tails('"', binary=True)
        pieces: list[bytes] = [head.encode("utf-8"), b"", b'", "key_value": "', b"", b""] * len(lines)
        pieces[1::5] = lines
        pieces[3::5] = lines
        pieces[4::5] = _object_array([tails[o] for o in routed.outcomes])[routed.slot].tolist()
        self._sink.flush()
        for start in range(0, len(pieces), WRITE_PIECES):
            binary.write(b"".join(pieces[start:start + WRITE_PIECES]))
        return True

    def _binary_sink(self) -> BinaryIO | None:
        """The byte stream under the text sink, when writing UTF-8 there is writing the text: the sink
        encodes UTF-8 and a newline stays a newline (newline="" or a POSIX os.linesep)."""
        binary = getattr(self._sink, "buffer", None)
        encoding = getattr(self._sink, "encoding", None)
        if binary is None or not isinstance(encoding, str) or os.linesep != "\n":
            return None
        try:
            return binary if codecs.lookup(encoding).name == "utf-8" else None  # type: ignore[no-any-return]
        except LookupError:
            return None


def _object_array(items: list[bytes]) -> np.ndarray:
    import numpy as np

    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


# A lone UTF-16 surrogate: Java strings (and so keys) may hold one, UTF-8 cannot. In a Python str a
# valid pair is one character, so every char in this range is a lone surrogate.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as its JSON escape (``\\ud800``, six characters):
    inside a JSON string that is the same string; in CSV it is the text arouter writes for it."""
    if _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class _SurrogateEscaping:
    """A text sink that writes lone surrogates as JSON escapes (csv.writer writes through it)."""

    def __init__(self, sink: TextIO) -> None:
        self._sink = sink

    def write(self, text: str) -> int:
        return self._sink.write(escape_lone_surrogates(text))


# json.dumps's encoder (ensure_ascii=False, otherwise the defaults) but with a raw newline between list
# items: an encoded value never contains one (a newline in a string is written \\n), so splitting a
# list's encoding on newlines gives each item's own encoding.
_COLUMN_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=("\n", ": "))


def encode_column(values: list[object]) -> list[str] | None:
    """``json.dumps(v, ensure_ascii=False)`` of each value, in one C-level pass.

    None when a value is a list or dict with more than one item (its own separators would differ).
    """
    if not values:
        return []
    parts = _COLUMN_ENCODER.encode(values)[1:-1].split("\n")
    return parts if len(parts) == len(values) else None


def json_lines(head: str, keys: list[object], key_values: list[object], status: list[object],
               targets: list[object], node_ids: list[object], local: list[object]) -> str:
    """The JSON lines of these records; ``head`` opens each line up to the key's value."""
    return "".join(json_line_pieces(head, keys, key_values, status, targets, node_ids, local))


def json_line_pieces(head: str, keys: list[object], key_values: list[object], status: list[object],
                     targets: list[object], node_ids: list[object], local: list[object]) -> list[str]:
    """:func:`json_lines` as pieces to concatenate."""
    n = len(keys)
    same = all(map(operator.is_, keys, key_values))
    raw_keys = _verbatim(keys)
    raw_values = raw_keys if same else _verbatim(key_values)
    # The rest of a line depends on few distinct (status, target, node_id, local): encode each once.
    rest = zip(status, targets, node_ids, local, strict=True)
    if raw_keys and raw_values:
        # Nothing to escape: the strings go between the quotes as they are.
        pieces: list[object] = [head + '"', "", '", "key_value": "', "", ""] * n
        pieces[1::5] = keys
        pieces[3::5] = key_values
        pieces[4::5] = map(_Tails('"').__getitem__, rest)
        return pieces  # type: ignore[return-value]
    tails = map(_Tails("").__getitem__, rest)
    enc_keys = encode_column(keys)
    enc_values = enc_keys if same else encode_column(key_values)
    if enc_keys is None or enc_values is None:
        return [f"{head}{_dumps(k)}, \"key_value\": {_dumps(v)}{t}"
                for k, v, t in zip(keys, key_values, tails, strict=True)]
    pieces = [head, "", ', "key_value": ', "", ""] * n
    pieces[1::5] = enc_keys
    pieces[3::5] = enc_values
    pieces[4::5] = tails
    return pieces  # type: ignore[return-value]


def json_line_bytes(head: str, lines: list[bytes], status: list[object], targets: list[object],
                    node_ids: list[object], local: list[object]) -> list[bytes] | None:
    """The UTF-8 pieces of the JSON lines whose key and key_value are both the key whose UTF-8
    encoding each of ``lines`` is; None if some key needs escaping in JSON."""
    joined = b"\n".join(lines)
    if len(joined.translate(None, _JSON_ESCAPED_BYTES)) != len(joined):
        return None
    pieces: list[bytes] = [(head + '"').encode("utf-8"), b"", b'", "key_value": "', b"", b""] * len(lines)
    pieces[1::5] = lines
    pieces[3::5] = lines
    pieces[4::5] = map(_Tails('"', binary=True).__getitem__, zip(status, targets, node_ids, local, strict=True))
    return pieces


# What json.dumps(ensure_ascii=False) escapes in a string: the quote, the backslash, C0 controls.
_JSON_ESCAPED = re.compile(r'["\\\x00-\x1f]')
# The same bytes in UTF-8 (all ASCII), but the newline that json_line_bytes puts between lines.
_JSON_ESCAPED_BYTES = bytes(c for c in range(0x20) if c != 0x0A) + b'"\\'


def _verbatim(values: list[object]) -> bool:
    """Whether every value is a string that JSON writes as its own characters between quotes."""
    if not all(issubclass(t, str) for t in set(map(type, values))):
        return False
    return _JSON_ESCAPED.search("".join(values)) is None  # type: ignore[arg-type]


class _Tails(dict):  # type: ignore[type-arg]
    """The end of a line for each (status, target, node_id, local), after ``prefix``."""

    def __init__(self, prefix: str, *, binary: bool = False) -> None:
        super().__init__()
        self._prefix = prefix
        self._binary = binary

    def __missing__(self, key: tuple[object, object, object, object]) -> str | bytes:
        text = self._prefix + _tail(key)
        value = self[key] = text.encode("utf-8") if self._binary else text
        return value


def _tail(key: tuple[object, object, object, object]) -> str:
    status, target, node_id, local = key
    return ", " + _dumps({"status": status, "target": target, "node_id": node_id, "local": local})[1:] + "\n"


class CsvWriter:
    def __init__(self, sink: TextIO, with_router: bool) -> None:
        self._fields = (("router",) if with_router else ()) + FIELDS
        # a lone surrogate (a Java string may hold one; UTF-8 cannot) is written as the six characters \udXXX
        self._csv = csv.writer(_SurrogateEscaping(sink), lineterminator="\n")
        self._csv.writerow(self._fields)
        self._with_router = with_router

    def write(self, router: str, shown: Sequence[object], result: BatchResult,
              lines: list[bytes] | None = None) -> None:
        """Write the records of ``result`` (``shown``: the input keys, in the same order)."""
        cols = [_csv_column(c) for c in _columns(shown, result)]
        if self._with_router:
            cols.insert(0, [_csv_value(router)] * len(result))
        self._csv.writerows(zip(*cols, strict=True))


def _csv_value(value: object) -> object:
    if isinstance(value, tuple):  # a roles list from JSON lines: its JSON array (role names may hold commas)
        return json.dumps(list(value), ensure_ascii=False)
    return "" if value is None else str(value).lower() if isinstance(value, bool) else value


def _csv_column(values: list[object]) -> list[object]:
    """A column as csv.DictWriter rows would hold it: None as "", booleans lower-case, a roles list
    as its JSON array."""
    kinds = set(map(type, values))
    if type(None) in kinds or any(issubclass(k, (bool, tuple)) for k in kinds):
        return list(map(_csv_value, values))
    return values


class _Bar:
    def __init__(self, total: int) -> None:
        from rich.progress import Progress

        self._p = Progress(console=stderr_console(), transient=True)
        self._p.start()
        self._task = self._p.add_task("routing keys", total=total)
        self._pending = 0

    def advance(self, count: int = 1) -> None:
        self._pending += count
        if self._pending >= 10_000:
            self._p.advance(self._task, self._pending)
            self._pending = 0

    def close(self) -> None:
        self._p.stop()


def _progress(size: int, routers: int, loaded: KeysFile) -> _Bar | None:
    if size < PROGRESS_MIN_BYTES or not sys.stderr.isatty():
        return None
    return _Bar(len(loaded) * routers)
