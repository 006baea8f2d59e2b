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

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree

from ..errors import ConfigError
from .gcpause import gc_paused
from .positions import Locator, Pos
from .substitution import Lookup, Replacement, substitute

CORE_NS = "urn:activemq:core"
XI_NS = "http://www.w3.org/2001/XInclude"
XI_INCLUDE = f"{{{XI_NS}}}include"
XI_FALLBACK = f"{{{XI_NS}}}fallback"

# Deeper XInclude nesting than this is certainly a mistake (the broker has no limit; a cycle
# would overflow its stack).
MAX_INCLUDE_DEPTH = 16

_XML_DECL_ENCODING = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]+)[\"']")
_XML_DECL = re.compile(r"^(\s*<\?xml[^>]*?)\s+encoding\s*=\s*[\"'][A-Za-z0-9._-]+[\"']")
_ENTITY_DECL = re.compile(r"<!ENTITY", re.IGNORECASE)
_CDATA = "<![CDATA["


@dataclass(frozen=True, slots=True)
class LoadOptions:
    """Where ``${}`` values come from (``-D``/``--property`` first, then the environment)."""

    properties: Mapping[str, str] = field(default_factory=dict)
    environ: Mapping[str, str] | None = None
    broker_properties: Any = None  # config.properties.PropertiesOptions: --properties, --cr, --ordinal

    def lookup(self) -> Lookup:
        env = os.environ if self.environ is None else self.environ
        return Lookup(properties=self.properties, environ=env)


@dataclass(frozen=True, slots=True)
class SourceEncoding:
    """How the main file is encoded, as far as the broker's reading of it differs from ours."""

    bom: str | None = None  # "UTF-8" / "UTF-16" when the file starts with a byte-order mark
    declared: str | None = None  # the XML declaration's encoding=, as written
    ascii_only: bool = True  # every byte < 0x80: any ASCII-compatible charset reads the same text


@dataclass(frozen=True, slots=True)
class RelativeInclude:
    """A top-level ``<xi:include href>`` that is a relative reference (resolved differently by the broker)."""

    href: str
    pos: Pos
    resolved: str  # the file arouter read (relative to broker.xml's folder)


@dataclass(slots=True)
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


def read_source(path: str, stdin_bytes: bytes | None = None) -> tuple[str, bytes, Path]:
    """Return (display name, bytes, base directory) for a path or ``-`` (stdin)."""
    if path == "-":
        data = stdin_bytes if stdin_bytes is not None else sys.stdin.buffer.read()
        return "<stdin>", data, Path.cwd()
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ConfigError("file not found", file=path) from None
    except IsADirectoryError:
        raise ConfigError("is a directory, not a broker.xml file", file=path) from None
    except OSError as exc:
        raise ConfigError(f"cannot read file: {exc.strerror or exc}", file=path) from None
    return path, data, p.resolve().parent


def source_encoding(data: bytes) -> SourceEncoding:
    """What the broker's reading (the JVM default charset, no BOM handling) would trip over."""
    bom = None
    if data.startswith(b"\xef\xbb\xbf"):
        bom, data = "UTF-8", data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        bom = "UTF-16"
    m = _XML_DECL_ENCODING.match(data)
    return SourceEncoding(bom, m.group(1).decode("ascii") if m else None, data.isascii())


def decode(data: bytes, display: str) -> str:
    """Decode by BOM or XML declaration (UTF-8 otherwise) and drop the encoding declaration."""
    if data.startswith(b"\xef\xbb\xbf"):
        encoding = "utf-8-sig"
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16"
    else:
        m = _XML_DECL_ENCODING.match(data)
        encoding = m.group(1).decode("ascii") if m else "utf-8"
    try:
        text = data.decode(encoding)
    except LookupError:
        raise ConfigError(f"unknown encoding {encoding!r} in the XML declaration", file=display, line=1,
                          column=1) from None
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ConfigError(f"not valid {encoding} text", file=display, line=line, column=col) from None
    return _XML_DECL.sub(r"\1", text, count=1)


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


def parse_text(text: str, display: str) -> etree._ElementTree:
    """Parse XML text safely; malformed XML and entity declarations are ConfigErrors."""
    if not text.strip():
        raise ConfigError("file is empty", file=display, line=1, column=1)
    m = _ENTITY_DECL.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        raise ConfigError(
            "the document declares XML entities; arouter refuses them (XXE and entity-expansion "
            "attacks), and a broker.xml never needs them",
            file=display, line=line, column=col,
        )
    try:
        tree = etree.ElementTree(etree.fromstring(text, _parser()))
    except etree.XMLSyntaxError as exc:
        line, col = exc.position if exc.position else (exc.lineno or 1, 1)
        msg = " ".join((exc.msg or str(exc)).split(", line ")[0].split())[:200]
        raise ConfigError(f"malformed XML: {msg}", file=display, line=line or 1, column=max(col, 1)) from None
    return tree


def _pos_of_offset(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


@gc_paused()
def load_document(path: str, options: LoadOptions | None = None, *, stdin_bytes: bytes | None = None) -> RawDocument:
    """Load one broker.xml into a substituted, XIncluded lxml tree with positions."""
    options = options or LoadOptions()
    lookup = options.lookup()
    display, data, base_dir = read_source(path, stdin_bytes)
    text = decode(data, display)
    substituted, reps = substitute(text, lookup, file=display)
    replacements = [(display, *_pos_of_offset(text, r.offset), r) for r in reps]
    tree = parse_text(substituted, display)
    locator = Locator(display, substituted)
    included: list[str] = []
    root = tree.getroot()
    relative: list[RelativeInclude] = []
    has_cdata = [_CDATA in substituted]
    _expand_includes(root, base_dir, display, locator, lookup, replacements, included, [display], relative,
                     has_cdata)
    # Without included files, a "${" in the tree needs one in the text, a character reference
    # (&#36;) or a CDATA section next to a "{": none of them, nothing for the second pass to do.
    if included or "${" in substituted or "&#" in substituted or has_cdata[0]:
        _substitute_nodes(root, lookup, locator, replacements)
    core = _find_core(root, display)
    return RawDocument(display, root, core, locator, replacements, included, has_cdata[0], source_encoding(data),
                       relative)


def _find_core(root: etree._Element, display: str) -> etree._Element:
    if root.tag == f"{{{CORE_NS}}}core":
        return root
    for el in root.iter(f"{{{CORE_NS}}}core"):
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
) -> None:
    for inc in list(el.iter(XI_INCLUDE)):
        pos = locator.locate(inc)
        href = (inc.get("href") or "").strip()
        parse_mode = (inc.get("parse") or "xml").strip()
        if not href:
            raise ConfigError("<xi:include> without href", file=pos.file, line=pos.line, column=pos.column)
        if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", href) and not href.startswith("file://"):
            raise ConfigError(
                f"<xi:include href=\"{href}\"> points at the network; arouter only reads local files",
                file=pos.file, line=pos.line, column=pos.column,
            )
        target = Path(href[len("file://"):] if href.startswith("file://") else href)
        if not target.is_absolute():
            target = base_dir / target
            if len(stack) == 1:  # written in broker.xml itself: the broker has no base to resolve it against
                relative.append(RelativeInclude(href, pos, _display_path(target)))
        shown = _display_path(target)
        if shown in stack:
            raise ConfigError(f"<xi:include> loop: {' -> '.join([*stack, shown])}",
                              file=pos.file, line=pos.line, column=pos.column)
        if len(stack) > MAX_INCLUDE_DEPTH:
            raise ConfigError("<xi:include> nested too deeply", file=pos.file, line=pos.line, column=pos.column)
        try:
            data = target.read_bytes()
        except OSError as exc:
            fallback = inc.find(XI_FALLBACK)
            if fallback is not None:
                _replace_with(inc, list(fallback), fallback.text)
                continue
            reason = "not found" if isinstance(exc, FileNotFoundError) else (exc.strerror or str(exc))
            raise ConfigError(f"<xi:include href=\"{href}\">: {target}: {reason}",
                              file=pos.file, line=pos.line, column=pos.column) from None
        text = decode(data, shown)
        included.append(shown)
        has_cdata[0] = has_cdata[0] or _CDATA in text
        if parse_mode == "text":
            _replace_with(inc, [], text)
            continue
        if parse_mode != "xml":
            raise ConfigError(f"<xi:include parse=\"{parse_mode}\"> is not xml or text",
                              file=pos.file, line=pos.line, column=pos.column)
        sub_root = parse_text(text, shown).getroot()
        locator.add_file(shown, text)
        locator.mark(sub_root, shown)
        _expand_includes(sub_root, target.parent, shown, locator, lookup, replacements, included, [*stack, shown],
                         relative, has_cdata)
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
    for el in root.iter():
        pos = None
        attributes = el.attrib.items() if isinstance(el.tag, str) else []
        for name, value in attributes:
            if "${" in value:
                pos = pos or locator.locate(el)
                new, reps = substitute(value, lookup, file=pos.file)
                el.set(name, new)
                replacements.extend((pos.file, pos.line, pos.column, r) for r in reps)
        for attr in ("text", "tail"):
            value = getattr(el, attr)
            if value and "${" in value:
                pos = pos or locator.locate(el)
                new, reps = substitute(value, lookup, file=pos.file)
                setattr(el, attr, new)
                replacements.extend((pos.file, pos.line, pos.column, r) for r in reps)
