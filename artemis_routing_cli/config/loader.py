"""Reading broker.xml as the broker does: substitute, parse safely, XInclude, substitute again.

Order (as in the broker's XMLUtil.readerToElement): ``${}`` substitution on the raw text, parse
with XInclude, then substitution once more on every attribute and text node (which is how
included files get their ``${}`` replaced). Parsing never touches the network, never loads a
DTD and refuses documents that declare entities (XXE, billion laughs): that refusal is arouter's
own safety policy; a broker started without ``-Dartemis.disableXxe=true`` accepts them.

What the broker does differently, and is recorded here for the rules to report: it reads the
file through ``new InputStreamReader(stream)`` (the JVM's default charset, UTF-8 from JDK 18) and
hands the text to the parser, so a byte-order mark is content before the prolog (the broker does
not start), the XML declaration's ``encoding=`` is ignored, and a relative XInclude ``href`` is
resolved against the broker's working directory (there is no base URI). arouter decodes as the
declaration says and resolves against the file's own folder, which is what people mean.
"""

from __future__ import annotations

import bisect
import codecs
import os
import posixpath
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from lxml import etree

from ..errors import ArouterError, ConfigError
from ..javastr import java_utf8_decode_marked
from ..records import record
from ..safeio import MAX_CONFIG_BYTES, read_regular
from .gcpause import gc_paused
from .masked import KEY_ENV, KEY_PROPERTY
from .positions import Locator, Pos
from .substitution import Lookup, Replacement, has_opening, substitute

CORE_NS = "urn:activemq:core"
XI_NS = "http://www.w3.org/2001/XInclude"
XI_INCLUDE = f"{{{XI_NS}}}include"
XI_FALLBACK = f"{{{XI_NS}}}fallback"

# Deeper XInclude nesting than this is certainly a mistake (the broker has no limit; a cycle
# would overflow its stack).
MAX_INCLUDE_DEPTH = 16
# What one document may pull in through XInclude, all files together: a fan-out of includes
# (8 per file, 7 levels deep) is a tree of millions of files without a loop.
MAX_INCLUDES = 256
MAX_INCLUDED_BYTES = 64 << 20

_XML_DECL_ENCODING = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*(?:\"([^\"<>]*)\"|'([^'<>]*)')")
_NOT_LINE_END = re.compile(r"[^\r\n]")
_XML_DECL = re.compile(r"^(\s*<\?xml[^>]*?)\s+encoding\s*=\s*(?:\"[^\"<>]*\"|'[^'<>]*')")
# Python codecs no XML parser knows (and punycode decodes in quadratic time): refused by name.
_NOT_XML_ENCODINGS = frozenset({"punycode", "idna", "unicode-escape", "raw-unicode-escape", "undefined",
                                "utf-7", "mbcs", "oem"})
# Characters XML 1.0 forbids (NUL, most C0 controls, U+FFFE/U+FFFF, lone surrogates).
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_ASCII_ALLOWED = bytes([0x09, 0x0A, 0x0D, *range(0x20, 0x80)])  # the ASCII characters _FORBIDDEN lets through
_ENTITY_DECL = re.compile(r"<!ENTITY", re.IGNORECASE)
_CDATA = "<![CDATA["
_INCLUDE = re.compile("include")  # (the regex engine's literal search: quicker than ``in`` on a large text)
_CHAR_REF = re.compile("&#")  # (the regex engine's literal search: quicker than ``in`` on a large text)


@record(frozen=True, slots=True)
class FileSource:
    """Files read from somewhere other than the file system, e.g. a git revision (``arouter diff REV:path``).

    ``read`` takes a normalised relative POSIX path and returns its bytes (FileNotFoundError when
    absent); files are shown as ``LABEL:path``. XIncludes resolve inside the same source, relative to
    the including file; an absolute ``href`` or one that climbs above the source's root is refused.
    """

    label: str
    read: Callable[[str], bytes]

    def show(self, path: str) -> str:
        return f"{self.label}:{path}"


@record(frozen=True, slots=True)
class LoadOptions:
    """Where ``${}`` values come from (``-D``/``--define`` first, then the environment), and
    (``source``) where files are read from when not from the file system."""

    properties: Mapping[str, str] = field(default_factory=dict)
    environ: Mapping[str, str] | None = None
    broker_properties: Any = None  # config.properties.PropertiesOptions: --properties, --cr, --ordinal
    source: FileSource | None = None  # where files are read from (a git revision), else the file system

    def lookup(self) -> Lookup:
        env = os.environ if self.environ is None else self.environ
        return Lookup(properties=self.properties, environ=env)


@record(frozen=True, slots=True)
class SourceEncoding:
    """How the main file is encoded, as far as the broker's reading of it differs from ours."""

    bom: str | None = None  # "UTF-8" / "UTF-16" when the file starts with a byte-order mark
    declared: str | None = None  # the XML declaration's encoding=, as written
    ascii_only: bool = True  # every byte < 0x80: any ASCII-compatible charset reads the same text
    # (line, column) of each U+FFFD the broker's UTF-8 reader puts in place of malformed bytes
    replaced: tuple[tuple[int, int], ...] = ()


@record(frozen=True, slots=True)
class RelativeInclude:
    """A top-level ``<xi:include href>`` that is a relative reference (resolved differently by the broker)."""

    href: str
    pos: Pos
    resolved: str  # the file arouter read (relative to broker.xml's folder)


@record(slots=True)
class RawDocument:
    """The parsed, substituted, XIncluded document and what it took to get there."""

    path: str
    root: etree._Element
    core: etree._Element
    locator: Locator
    replacements: list[tuple[str, int, int, Replacement]]  # (file, line, column, replacement)
    included: list[str]
    has_cdata: bool = False  # a CDATA section somewhere (then text nodes need a closer look)
    encoding: SourceEncoding = field(default_factory=SourceEncoding)
    relative_includes: list[RelativeInclude] = field(default_factory=list)
    # the masked-password codec key from the -D properties / environment (masked.KEY_PROPERTY, KEY_ENV)
    codec_key_property: str | None = None
    codec_key_env: str | None = None


def read_source(path: str, stdin_bytes: bytes | None = None) -> tuple[str, bytes]:
    """Return (display name, bytes) for a path or ``-`` (stdin)."""
    if path == "-":
        data = stdin_bytes if stdin_bytes is not None else sys.stdin.buffer.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"standard input is over arouter's limit of {MAX_CONFIG_BYTES:,} bytes",
                              file="<stdin>")
        return "<stdin>", data
    if os.path.isdir(path):
        raise ConfigError("is a directory, not a broker.xml file", file=path)
    return path, read_regular(path, limit=MAX_CONFIG_BYTES, what="file", error=ConfigError)


def base_directory(path: str) -> Path:
    """The folder relative includes of ``path`` (or ``-``: the working folder) are read from."""
    return Path.cwd() if path == "-" else Path(path).resolve().parent


def source_encoding(data: bytes, replaced: tuple[tuple[int, int], ...] = ()) -> SourceEncoding:
    """What the broker's reading (the JVM default charset, no BOM handling) would trip over;
    ``replaced``: where :func:`decode` read U+FFFD for malformed bytes."""
    bom = None
    if data.startswith(b"\xef\xbb\xbf"):
        bom, data = "UTF-8", data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        bom = "UTF-16"
    m = _XML_DECL_ENCODING.match(data)
    declared = (m.group(1) if m.group(1) is not None else m.group(2)).decode("latin-1") if m else None
    return SourceEncoding(bom, declared, data.isascii(), replaced)


def decode(data: bytes, display: str, *, blank: bool = True, replaced: list[int] | None = None,
           why: str = "") -> str:
    """Decode by BOM or XML declaration (UTF-8 otherwise); ``blank``: with the declaration's
    ``encoding=`` blanked out (:func:`blank_encoding`), as lxml takes a str.

    ``replaced`` (the main file): UTF-8 that is not valid is read as the broker's reader reads it
    (``new InputStreamReader(stream)``, UTF-8 on JDK 18+): each malformed sequence becomes one U+FFFD as
    Java counts them, and its offset in the text is added to ``replaced``. Without it, or in another
    declared encoding, undecodable bytes are a ConfigError (its message ends with ``why``)."""
    if data.startswith(b"\xef\xbb\xbf"):
        encoding = "utf-8-sig"
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16"
    else:
        m = _XML_DECL_ENCODING.match(data)
        encoding = (m.group(1) if m.group(1) is not None else m.group(2)).decode("latin-1") if m else "utf-8"
    try:
        known = codecs.lookup(encoding)
        if known.name in _NOT_XML_ENCODINGS or not getattr(known, "_is_text_encoding", True):
            raise LookupError(encoding)
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        if replaced is not None and known.name == "utf-8":
            text, marks = java_utf8_decode_marked(data)
            replaced.extend(at for at, _ in marks)
            return blank_encoding(text) if blank else text
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(f"not valid {encoding} text{why}", file=display, line=line, column=col) from None
    except (LookupError, ValueError, TypeError):  # UnicodeError is a ValueError
        raise ConfigError(f"unknown encoding {encoding[:40]!r} in the XML declaration", file=display, line=1,
                          column=1) from None
    return blank_encoding(text) if blank else text


def blank_encoding(text: str) -> str:
    """``text`` with its XML declaration's ``encoding=`` (which lxml refuses in a str) blanked out:
    spaces in its place, its line ends kept, so that every line and column is the file's. The
    pattern is anchored at the start (matched there only, not tried at every position as sub() would)."""
    m = _XML_DECL.match(text)
    return text if m is None else m.group(1) + _NOT_LINE_END.sub(" ", text[m.end(1):m.end()]) + text[m.end():]


def _plain_utf8(data: bytes) -> bool:
    """Whether libxml2 reads ``data`` as :func:`decode` does, from the bytes themselves: ASCII (no BOM,
    every character one byte) declared UTF-8 or not declared at all."""
    if not data.isascii():
        return False
    m = _XML_DECL_ENCODING.match(data)
    return m is None or (m.group(1) if m.group(1) is not None else m.group(2)).upper() in (b"UTF-8", b"UTF8")


def check_xml_chars(text: str, display: str, raw: bytes | None = None) -> None:
    """A ConfigError at the first character XML forbids (lxml refuses to hold them). ``raw``: ``text``
    as ASCII bytes, when the caller has them."""
    if raw is None and text.isascii():
        raw = text.encode("ascii")
    if raw is not None and not raw.translate(None, _ASCII_ALLOWED):
        return  # (an ASCII text needs no pattern: dropping every allowed byte leaves nothing)
    m = _FORBIDDEN.search(text)
    if m:
        line, col = _pos_of_offset(text, m.start())
        raise ConfigError(f"character U+{ord(m.group()):04X} is not allowed in XML", file=display, line=line,
                          column=col)


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_blank_text=False,
        strip_cdata=False,  # keep CDATA sections: the broker's DOM has them as nodes of their own
    )


def parse_text(text: str, display: str, raw: bytes | None = None, unquoted: str | None = None) -> etree._ElementTree:
    """Parse XML text safely; malformed XML and entity declarations are ConfigErrors. ``raw``: the
    bytes ``text`` was decoded from, when libxml2 reads them alike (:func:`_plain_utf8`): they are
    parsed instead (no copy of the text without its declaration's encoding). ``unquoted``: why
    libxml2's message, which quotes names from the text, must not be shown (it is replaced by this)."""
    if not text or text.isspace():  # (what strip() would leave empty, without a copy of the text)
        raise ConfigError("file is empty", file=display, line=1, column=1)
    m = _ENTITY_DECL.search(text) if "!" in text else None  # (one character found in C at memchr's pace)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        raise ConfigError(
            "the document declares XML entities; arouter refuses them (XXE and entity-expansion "
            "attacks), and a broker.xml never needs them",
            file=display, line=line, column=col,
        )
    check_xml_chars(text, display, raw)
    try:
        tree = etree.ElementTree(etree.fromstring(text if raw is None else raw, _parser()))
    except etree.XMLSyntaxError as exc:
        line, col = exc.position if exc.position else (exc.lineno or 1, 1)
        msg = " ".join((exc.msg or str(exc)).split(", line ")[0].split())[:200] if unquoted is None else unquoted
        raise ConfigError(f"malformed XML: {msg}", file=display, line=line or 1, column=max(col, 1)) from None
    except ValueError:
        # lxml refuses a str whose declaration still has an encoding= that blank_encoding did not blank:
        # one whose value is not a quoted name (a quote, '<' or '>' out of place). Xerces stops on it too.
        at = text.find("encoding")
        line, col = _pos_of_offset(text, at) if at >= 0 else (1, 1)
        raise ConfigError("malformed XML: the XML declaration's encoding= is not a quoted encoding name",
                          file=display, line=line, column=col) from None
    if "!" in text and "<!DOCTYPE" in text:
        # With a DOCTYPE naming an external DTD, libxml2 accepts an undeclared &name; as an entity
        # reference node (the DTD is never read); the broker could not resolve it either.
        for ref in tree.getroot().iter(etree.Entity):
            line = ref.sourceline or 1
            raise ConfigError(f"reference to the entity {ref.text} which is not declared (arouter never reads "
                              "an external DTD, and a broker.xml needs none)", file=display, line=line,
                              column=_column_in_line(text, line, ref.text or "&"))
    return tree


def _column_in_line(text: str, line: int, needle: str) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return 1
    end = text.find("\n", start)
    found = text.find(needle, start, end if end >= 0 else len(text))
    return found - start + 1 if found >= 0 else 1


def _positions_of(text: str, offsets: list[int]) -> list[tuple[int, int]]:
    """(line, column) of many offsets with one pass over ``text`` (a count per offset is quadratic)."""
    if len(offsets) < 8:
        return [_pos_of_offset(text, o) for o in offsets]
    newlines = [m.start() for m in re.finditer("\n", text)]
    out = []
    for o in offsets:
        line = bisect.bisect_left(newlines, o)
        out.append((line + 1, o - (newlines[line - 1] + 1 if line else 0) + 1))
    return out


def _pos_of_offset(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


# An included file that names no broker namespace is not broker XML (a secrets or properties file
# included by mistake): libxml2's message would quote its names, so it is not shown.
_BROKER_XML = "urn:activemq"
_NOT_BROKER_XML = ("the file is not broker XML (no urn:activemq namespace; a properties or secrets file included "
                   "as XML?): libxml2's message, which would quote the file, is not shown")


def _markup_values(reps: list[Any]) -> str | None:
    """Why a parse error of a substituted text is not quoted: a ``${}`` value from the environment or a
    property holds XML markup ('<' or '&'), so libxml2's message may quote the value (None: it may be)."""
    tokens = list(dict.fromkeys(r.token for r in reps if r.source in ("env", "property")
                                and ("<" in r.value or "&" in r.value)))
    if not tokens:
        return None
    return (f"the value of {', '.join(tokens)} holds XML markup ('<' or '&'), which breaks the document (the broker "
            "substitutes before parsing too: write it as &lt; / &amp;); the value is not shown")


@gc_paused()
def load_document(path: str, options: LoadOptions | None = None, *, stdin_bytes: bytes | None = None) -> RawDocument:
    """Load one broker.xml into a substituted, XIncluded lxml tree with positions."""
    options = options or LoadOptions()
    lookup = options.lookup()
    if options.source is not None:
        display, data, base_dir = _read_from(options.source, path)
    else:
        display, data = read_source(path, stdin_bytes)
        base_dir = None
    replaced: list[int] = []
    text = decode(data, display, blank=False, replaced=replaced)
    # (a text with no "${" is its own substitution: nothing to look for again below)
    opened = has_opening(text)
    # A plain UTF-8 file that nothing substitutes is parsed from its bytes, declaration and all
    raw = data if not opened and _plain_utf8(data) else None
    if raw is None:
        text = blank_encoding(text)
    substituted, reps = substitute(text, lookup, file=display) if opened else (text, [])
    where = _positions_of(text, [r.offset for r in reps])
    replacements = [(display, line, column, r) for (line, column), r in zip(where, reps, strict=True)]
    tree = parse_text(substituted, display, raw, _markup_values(reps))
    locator = Locator(display, substituted)
    included: list[str] = []
    root = tree.getroot()
    relative: list[RelativeInclude] = []
    # The scans below look for a rare character first (a one-character search runs at memchr's pace;
    # a longer needle is checked at every position): most files then need no second look.
    # (a CDATA section and a comment both start "<!")
    has_cdata = ["!" in substituted and "[" in substituted and _CDATA in substituted]
    char_refs = "#" in substituted and _CHAR_REF.search(substituted) is not None
    # An <xi:include> is an element called "include" (a name is written as it is) in XInclude's
    # namespace, whose URI holds an "X" or a character reference standing for it (no DTD is read).
    if ("X" in substituted or char_refs) and _INCLUDE.search(substituted) is not None:
        if base_dir is None:
            base_dir = base_directory(path)
        _expand_includes(root, base_dir, display, locator, lookup, replacements, included, [display], relative,
                         has_cdata, [0], options.source)
    # Without included files, a "${" in the tree needs one in the text, a character reference
    # (&#36;) or a CDATA section next to a "{": none of them, nothing for the second pass to do.
    if (included or (opened and has_opening(substituted))
            or char_refs or has_cdata[0]):
        _substitute_nodes(root, lookup, locator, replacements)
    else:
        locator.verbatim_text = substituted
    core = _find_core(root, display)
    encoding = source_encoding(data, tuple(_positions_of(text, replaced)) if replaced else ())
    return RawDocument(display, root, core, locator, replacements, included, has_cdata[0], encoding,
                       relative, lookup.properties.get(KEY_PROPERTY), lookup.environ.get(KEY_ENV))


def _read_from(source: FileSource, path: str) -> tuple[str, bytes, Path]:
    """(display name, bytes, base directory) of ``path`` read from ``source``."""
    norm = posixpath.normpath(path.replace("\\", "/"))
    if norm.startswith(("/", "../")) or norm == "..":
        raise ConfigError(f"{path}: not a path inside {source.label}", file=source.show(path))
    try:
        data = source.read(norm)
    except FileNotFoundError:
        raise ConfigError(f"file not found in {source.label}", file=source.show(norm)) from None
    return source.show(norm), data, Path(posixpath.dirname(norm))


def _find_core(root: etree._Element, display: str) -> etree._Element:
    """The first ``<core>`` of the document, in document order (the root itself included).

    Child by child: lxml's ``iter`` looks ahead for the next match as it hands one over, so
    ``next(root.iter(tag))`` would walk the whole document after the usual ``<core>`` (the root's
    first child) to learn there is no second one. Here only the subtrees of children before the
    first ``<core>`` child are searched."""
    tag = f"{{{CORE_NS}}}core"
    if root.tag == tag:
        return root
    for child in root.iterchildren(etree.Element):
        if child.tag == tag:
            return child
        if len(child):
            for el in child.iter(tag):
                return el
    tag = etree.QName(root).localname if isinstance(root.tag, str) else str(root.tag)
    raise ConfigError(
        f"not a broker.xml: no <core xmlns=\"{CORE_NS}\"> element (the root is <{tag}>)",
        file=display, line=root.sourceline or 1, column=1,
    )


def _expand_includes(
    el: etree._Element,
    base_dir: Path,
    display: str,
    locator: Locator,
    lookup: Lookup,
    replacements: list[tuple[str, int, int, Replacement]],
    included: list[str],
    stack: list[str],
    relative: list[RelativeInclude],
    has_cdata: list[bool],
    budget: list[int],
    source: FileSource | None = None,
) -> None:
    for inc in list(el.iter(XI_INCLUDE)):
        pos = locator.locate(inc)
        href = (inc.get("href") or "").strip()
        if not href:
            raise ConfigError("<xi:include> without href", file=pos.file, line=pos.line, column=pos.column)
        if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", href) and not href.startswith("file://"):
            raise ConfigError(
                f"<xi:include href=\"{href}\"> points at the network; arouter only reads local files",
                file=pos.file, line=pos.line, column=pos.column,
            )
        target = Path(href[len("file://"):] if href.startswith("file://") else href)
        if source is not None:
            if target.is_absolute():
                raise ConfigError(f"<xi:include href=\"{href}\">: an absolute path is not in {source.label}; "
                                  "compare files on disk instead", file=pos.file, line=pos.line, column=pos.column)
            _include_from(source, inc, href, base_dir, pos, locator, lookup, replacements, included, stack,
                          relative, has_cdata, budget)
            continue
        if not target.is_absolute():
            target = base_dir / target
            if len(stack) == 1:  # written in broker.xml itself: the broker has no base to resolve it against
                relative.append(RelativeInclude(href, pos, _display_path(target)))
        shown = _display_path(target)
        _check_room(shown, stack, included, pos)
        try:
            data = read_regular(str(target), limit=MAX_INCLUDED_BYTES - budget[0], what="file")
        except ArouterError as exc:
            fallback = inc.find(XI_FALLBACK)
            unreadable = exc.message.startswith(("file not found", "cannot read", "file is a directory"))
            if fallback is not None and unreadable:
                _replace_with(inc, list(fallback), fallback.text)
                continue
            reason = "not found" if exc.message == "file not found" else exc.message.removeprefix("file ")
            if "over arouter's limit" in reason:
                reason = f"the included files are over arouter's limit of {MAX_INCLUDED_BYTES:,} bytes together"
            raise ConfigError(f"<xi:include href=\"{href}\">: {target}: {reason}",
                              file=pos.file, line=pos.line, column=pos.column) from None
        budget[0] += len(data)
        _splice(inc, data, shown, target.parent, pos, locator, lookup, replacements, included, stack, relative,
                has_cdata, budget, None)


def _check_room(shown: str, stack: list[str], included: list[str], pos: Pos) -> None:
    """An include may not loop, nest past MAX_INCLUDE_DEPTH or pass MAX_INCLUDES files in one document."""
    if shown in stack:
        raise ConfigError(f"<xi:include> loop: {' -> '.join([*stack, shown])}",
                          file=pos.file, line=pos.line, column=pos.column)
    if len(stack) > MAX_INCLUDE_DEPTH:
        raise ConfigError("<xi:include> nested too deeply", file=pos.file, line=pos.line, column=pos.column)
    if len(included) >= MAX_INCLUDES:
        raise ConfigError(f"<xi:include>: more than {MAX_INCLUDES} included files in one document",
                          file=pos.file, line=pos.line, column=pos.column)


def _include_from(source: FileSource, inc: etree._Element, href: str, base_dir: Path, pos: Pos, locator: Locator,
                  lookup: Lookup, replacements: list[tuple[str, int, int, Replacement]], included: list[str],
                  stack: list[str], relative: list[RelativeInclude], has_cdata: list[bool],
                  budget: list[int]) -> None:
    """One ``<xi:include>`` resolved inside ``source`` (the same git revision as the including file)."""
    norm = posixpath.normpath(posixpath.join(base_dir.as_posix(), href))
    if norm.startswith("../") or norm == "..":
        raise ConfigError(f"<xi:include href=\"{href}\"> climbs out of {source.label}",
                          file=pos.file, line=pos.line, column=pos.column)
    shown = source.show(norm)
    _check_room(shown, stack, included, pos)
    try:
        data = source.read(norm)
    except FileNotFoundError:
        fallback = inc.find(XI_FALLBACK)
        if fallback is not None:
            _replace_with(inc, list(fallback), fallback.text)
            return
        raise ConfigError(f"<xi:include href=\"{href}\">: {shown}: not found",
                          file=pos.file, line=pos.line, column=pos.column) from None
    budget[0] += len(data)
    if budget[0] > MAX_INCLUDED_BYTES:
        raise ConfigError(f"<xi:include href=\"{href}\">: the included files are over arouter's limit of "
                          f"{MAX_INCLUDED_BYTES:,} bytes together", file=pos.file, line=pos.line, column=pos.column)
    _splice(inc, data, shown, Path(posixpath.dirname(norm)), pos, locator, lookup, replacements, included, stack,
            relative, has_cdata, budget, source)


def _splice(inc: etree._Element, data: bytes, shown: str, base_dir: Path, pos: Pos, locator: Locator,
            lookup: Lookup, replacements: list[tuple[str, int, int, Replacement]], included: list[str],
            stack: list[str], relative: list[RelativeInclude], has_cdata: list[bool], budget: list[int],
            source: FileSource | None) -> None:
    """Put an included file's content where its ``<xi:include>`` stands (text, or a parsed tree whose
    own includes are expanded first)."""
    text = decode(data, shown, why=" (the broker's XML parser reads an included file itself and stops at such bytes "
                                   "with a fatal error: the broker does not start)")
    included.append(shown)
    has_cdata[0] = has_cdata[0] or _CDATA in text
    parse_mode = (inc.get("parse") or "xml").strip()
    if parse_mode == "text":
        check_xml_chars(text, shown)
        locator.text_includes.append((shown, text))
        _replace_with(inc, [], text)
        return
    if parse_mode != "xml":
        raise ConfigError(f"<xi:include parse=\"{parse_mode}\"> is not xml or text",
                          file=pos.file, line=pos.line, column=pos.column)
    sub_root = parse_text(text, shown, unquoted=None if _BROKER_XML in text else _NOT_BROKER_XML).getroot()
    locator.add_file(shown, text)
    locator.mark(sub_root, shown)
    _expand_includes(sub_root, base_dir, shown, locator, lookup, replacements, included, [*stack, shown],
                     relative, has_cdata, budget, source)
    _replace_with(inc, [sub_root], None)


def _display_path(target: Path) -> str:
    try:
        return os.path.relpath(target)
    except ValueError:
        return str(target)


def _replace_with(inc: etree._Element, elements: list[etree._Element], text: str | None) -> None:
    parent = inc.getparent()
    tail = inc.tail
    if parent is None:
        raise ConfigError("<xi:include> cannot be the document root")
    index = parent.index(inc)
    prev = inc.getprevious()
    if text:
        if prev is not None:
            prev.tail = (prev.tail or "") + text
        else:
            parent.text = (parent.text or "") + text
    parent.remove(inc)  # drops inc.tail with it; put it back below
    for offset, child in enumerate(elements):
        parent.insert(index + offset, child)
    if tail:
        last = elements[-1] if elements else parent[index - 1] if index > 0 else None
        if last is not None:
            last.tail = (last.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail


def _substitute_nodes(
    root: etree._Element,
    lookup: Lookup,
    locator: Locator,
    replacements: list[tuple[str, int, int, Replacement]],
) -> None:
    """The broker's second pass: ``${}`` in every attribute and text node after XInclude."""
    if b"${" not in etree.tostring(root):
        return  # one C-level look at the whole tree (attributes, text, comments): nothing to replace
    # Attributes holding "${", found by one XPath: walking every attribute list from Python is
    # quadratic in the length of a list (an element with 50,000 attributes took a minute).
    pending: dict[etree._Element, list[tuple[str, str]]] = {}
    for found in root.xpath("//@*[contains(., '${')]"):
        pending.setdefault(found.getparent(), []).append((found.attrname, str(found)))
    for el in root.iter():
        pos = None
        for name, value in pending.get(el, ()):
            if "${" in value:
                pos = pos or locator.locate(el)
                new, reps = substitute(value, lookup, file=pos.file)
                _check_value(new, reps, pos)
                el.set(name, new)
                replacements.extend((pos.file, pos.line, pos.column, r) for r in reps)
        for attr in ("text", "tail"):
            value = getattr(el, attr)
            if value and "${" in value:
                pos = pos or locator.locate(el)
                new, reps = substitute(value, lookup, file=pos.file)
                _check_value(new, reps, pos)
                setattr(el, attr, new)
                replacements.extend((pos.file, pos.line, pos.column, r) for r in reps)


def _check_value(new: str, reps: list[Replacement], pos: Pos) -> None:
    """A substituted value lxml cannot hold (a control character from a property) is a ConfigError."""
    m = _FORBIDDEN.search(new)
    if m:
        names = ", ".join(sorted({r.token for r in reps if _FORBIDDEN.search(r.value)})) or "a ${} value"
        raise ConfigError(f"{names} holds character U+{ord(m.group()):04X}, which XML does not allow",
                          file=pos.file, line=pos.line, column=pos.column)
