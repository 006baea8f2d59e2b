"""Where broker properties come from, in the broker's order, read safely.

``ConfigurationImpl.parseProperties`` (with ``Run`` and ``Configuration.resolvePropertiesSources``):
the system property ``broker.properties`` if set, else ``artemis run --properties``, else
``<instance>/etc/broker.properties`` if that file exists (``Run``: ``new File(getBrokerEtc(),
"broker.properties")``; a stock instance keeps broker.xml in that same etc folder, so arouter looks
beside broker.xml). The value is split on ``,``; an entry ending in ``/`` is a directory whose
names matching ``.*\\.(json|properties)`` (or ``?filter=REGEX``: a java.util.regex pattern,
URL-decoded as ``URISupport.parseQuery`` does) are applied in ``Arrays.sort`` order, a missing
directory being skipped; any other entry is a file, and a missing or unreadable file stops the
broker. A ``.json`` file is the JSON form. Last come the JVM system properties
named ``brokerconfig.*`` (``-D`` here), prefix removed.

Hostile input: regular files only, at most :data:`MAX_FILE_BYTES` each and :data:`MAX_FILES` in all.
"""

from __future__ import annotations

import os
import re
import stat
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import ConfigError
from ...javastr import java_split, java_utf8_decode_marked
from ..javauri import url_decode  # URLDecoder.decode, as for acceptor URLs
from ..positions import Pos
from .apply import PropLine
from .jsonform import load_json
from .options import SYSTEM_PREFIX
from .syntax import PropertiesSyntaxError, load_properties

MAX_FILE_BYTES = 16 * 1024 * 1024  # far beyond any real properties file
MAX_FILES = 10_000


@dataclass(slots=True)
class Source:
    """One properties source as the broker's status names it, and its lines."""

    name: str  # the status key: the file's name, or "system-brokerconfig."
    path: str  # what arouter shows in findings
    lines: list[PropLine] = field(default_factory=list)
    load_error: str | None = None
    load_error_pos: Pos | None = None
    file_checksum: int = 0  # Adler-32 of the file's bytes (the status' fileAlder32)
    utf8_line: int | None = None  # first line with UTF-8 multi-byte text, which Properties.load reads as ISO-8859-1
    # (line, column, how many) of the first U+FFFD the broker's reader puts for bytes that are not UTF-8
    # in a .json file (new InputStreamReader(stream): UTF-8 on JDK 18+), and how many in the file
    replaced: tuple[int, int, int] | None = None


def checksum(lines: list[PropLine]) -> int:
    """The status' ``alder32``: Adler-32 over ``key=value`` of every entry, in order, as UTF-8."""
    value = 1
    for line in lines:
        value = zlib.adler32(line.key.encode("utf-8", "surrogatepass"), value)
        value = zlib.adler32(b"=", value)
        value = zlib.adler32(line.value.encode("utf-8", "surrogatepass"), value)
    return value


def read_file(path: Path, shown: str) -> Source:
    """One file, as ``parseFileProperties``: a load error is recorded, never raised."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ConfigError("properties file not found: the broker does not start", file=shown) from None
    except OSError as exc:
        raise ConfigError(f"cannot read properties file: {exc.strerror or exc}", file=shown) from None
    if stat.S_ISDIR(st.st_mode):
        raise ConfigError("is a directory: the broker reads a directory only when its name ends with '/'",
                          file=shown, hint=f"write {shown.rstrip('/')}/")
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError("not a regular file", file=shown)
    if st.st_size > MAX_FILE_BYTES:
        raise ConfigError(f"properties file larger than {MAX_FILE_BYTES} bytes", file=shown)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read properties file: {exc.strerror or exc}", file=shown) from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(f"properties file larger than {MAX_FILE_BYTES} bytes", file=shown)
    return parse_bytes(data, shown, path.name)


def parse_bytes(data: bytes, shown: str, name: str) -> Source:
    source = Source(name, shown, file_checksum=zlib.adler32(data))
    try:
        if name.endswith(".json"):
            # new InputStreamReader(stream) (2.41+; a FileReader in 2.37 to 2.40): UTF-8 on JDK 18+, each
            # malformed sequence one U+FFFD as Java counts them
            text, marks = java_utf8_decode_marked(data)
            if marks:
                at = marks[0][0]
                line = text.count("\n", 0, at) + 1
                source.replaced = (line, at - (text.rfind("\n", 0, at) + 1) + 1, len(marks))
            entries = [(k, v, line) for k, v, line in load_json(text)]
            source.lines = [PropLine(k, v, Pos(shown, line, 1), json=True) for k, v, line in entries]
        else:
            text = data.decode("iso-8859-1")  # Properties.load(InputStream)
            source.utf8_line = _utf8_line(data)
            source.lines = [PropLine(e.key, e.value, Pos(shown, e.line, 1), written=e.written)
                            for e in load_properties(text)]
    except PropertiesSyntaxError as exc:
        source.lines = []
        source.load_error = exc.java or exc.message
        source.load_error_pos = Pos(shown, exc.line, exc.column)
    return source


def _utf8_line(data: bytes) -> int | None:
    """The line of the first UTF-8 multi-byte sequence, when the bytes are valid UTF-8 but not ASCII."""
    if data.isascii():
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None  # not UTF-8: probably meant as ISO-8859-1 indeed
    first = next(i for i, b in enumerate(data) if b >= 0x80)
    return data.count(b"\n", 0, first) + 1


def _java_sorted(names: list[str]) -> list[str]:
    """``Arrays.sort`` of Strings: by UTF-16 code units."""
    return sorted(names, key=lambda n: n.encode("utf-16-be"))


def split_query(entry: str) -> tuple[str, str | None, bool]:
    """(path, filter, given) of one list entry as ``parseProperties`` reads it with ``URISupport``:
    the path ends at the first ``?``, the query starts after the last one, its parameters split on
    ``&`` and ``;``, names and values URL-decoded (so ``+`` is a blank), the last ``filter`` wins; a
    ``filter`` without ``=`` is null (the broker then fails: ``Pattern.compile(null)``)."""
    if "?" not in entry:
        return entry, None, False
    query = entry[entry.rindex("?") + 1:]
    found: str | None = None
    given = False
    if query:
        for parameter in java_split(query.replace(";", "&"), "&"):
            name, eq, value = parameter.partition("=")
            try:
                name = url_decode(name)
                decoded = url_decode(value) if eq else None
            except ValueError as exc:
                raise ConfigError(f"{exc} in {parameter!r}: the broker does not start", file=entry) from None
            if name == "filter":
                found, given = decoded, True
    return entry[:entry.index("?")], found, given


# the default filter, ".*\.(json|properties)", in Java's meaning ('.' stops at Java's line terminators)
_DEFAULT = re.compile("[^\n\r\u0085\u2028\u2029]*\\.(?:json|properties)")


def name_matcher(pattern: str | None, given: bool, entry: str) -> Callable[[str], bool]:
    """``Pattern.compile(filter).matcher(name).matches()``, in java.util.regex's meaning."""
    if not given:
        return lambda name: _DEFAULT.fullmatch(name) is not None
    if pattern is None:
        raise ConfigError("?filter without '=': Pattern.compile(null) throws and the broker does not start",
                          file=entry)
    from ...jregex.javaregex import JavaRegexError, compile_java

    try:
        compiled = compile_java(pattern)
    except JavaRegexError as exc:
        if exc.construct is None:
            raise ConfigError(f"?filter: {exc} (PatternSyntaxException): the broker does not start",
                              file=entry) from None
        raise ConfigError(f"?filter: {exc}", file=entry, hint=exc.hint) from None

    def matches(name: str) -> bool:
        try:
            return compiled.matches(name)
        except JavaRegexError as exc:
            raise ConfigError(f"?filter on {name!r}: {exc}", file=entry) from None

    return matches


def read_list(spec: str, base: Path | None = None) -> list[Source]:
    """Every source of one comma list, in order."""
    out: list[Source] = []
    for raw in java_split(spec, ","):  # String.split: trailing empty entries dropped, others kept
        entry, pattern, given = split_query(raw)
        matcher = name_matcher(pattern, given, raw)  # compiled before the path is looked at, as the broker does
        if not entry:
            raise ConfigError(f"empty entry in the properties list {spec!r}: the broker opens the file \"\" "
                              "(FileNotFoundException) and does not start")
        path = Path(entry) if base is None or os.path.isabs(entry) else base / entry
        if entry.endswith("/"):
            if not path.is_dir():
                continue  # the broker skips a directory that does not exist
            names = _java_sorted([n for n in os.listdir(path) if matcher(n)])
            if len(names) + len(out) > MAX_FILES:
                raise ConfigError(f"more than {MAX_FILES} properties files", file=entry)
            for n in names:
                child = path / n
                if child.is_file():
                    out.append(read_file(child, os.path.join(entry, n)))
            continue
        out.append(read_file(path, entry))
    return out


def system_source(defines: Mapping[str, str]) -> Source | None:
    """``-D brokerconfig.K=V``: the last source, prefix removed (the JVM's order is undefined; ours is
    the order given)."""
    lines = [PropLine(k[len(SYSTEM_PREFIX):], v, Pos(f"-D {k}", 1, 1)) for k, v in defines.items()
             if k.startswith(SYSTEM_PREFIX)]
    return Source("system-" + SYSTEM_PREFIX, "-D", lines) if lines else None


def empty_broker_xml() -> str:
    """The bundled empty broker.xml: the broker's defaults, for properties-only configurations."""
    return str(Path(__file__).resolve().parent.parent.parent / "data" / "empty-broker.xml")
