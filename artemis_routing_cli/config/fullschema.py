"""The whole of ``<core>`` against the schema of the user's own broker (``--broker-home``).

arouter's own XSD (:mod:`.schema`) judges the sections it models; the broker validates all of
``<core>`` (``FileDeploymentManager.readConfiguration``: ``XMLUtil.validate`` on the first
``core`` element, after ``${}`` and XInclude) and refuses to start on any error ("Invalid
configuration"). This module reads ``schema/artemis-configuration.xsd`` and what it imports out of
the installation's ``artemis-server`` jar at run time (zipfile; the imports are resolved from the
jar, never from the network), compiles it with libxml2 once per jar, and reports every error
as AR107 at the element's file:line:col. Errors inside a judged section are left to arouter's own
schema check where it reports on that section (its messages say more); where it finds nothing the
broker's schema refuses, AR107 says so (a version whose schema differs from arouter's model).
"""

from __future__ import annotations

import copy
import difflib
import itertools
import re
import zipfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from lxml import etree

from ..diagnostics import Diagnostic
from ..errors import UsageError
from .fullschema_rules import BROKER_SCHEMA_RULES
from .positions import Pos
from .schema import MAX_ERRORS_PER_SECTION, MAX_FINDINGS_PER_ELEMENT, _element_of, _mark_include_roots
from .schema_ids import CORE_NS, JUDGED_SECTIONS

SCHEMA_ENTRY = "schema/artemis-configuration.xsd"
# artemis-configuration.xsd is ~230 KiB (2.40); no schema file of the broker's comes near 8 MiB.
MAX_XSD_BYTES = 8 << 20
MAX_XSD_FILES = 16
# Rounds of "take out the unexpected elements and look again" (each finds at least one more).
MAX_ROUNDS = 50
XSD_NS = "http://www.w3.org/2001/XMLSchema"  # it imports xml.xsd only; a chain longer than this is not the broker's

_META = BROKER_SCHEMA_RULES[0]
_NS_PREFIX = re.compile(r"\{" + re.escape(CORE_NS) + r"\}")
_UNEXPECTED = re.compile(r"Element '([^']+)': This element is not expected\."
                         r"(?: Expected is (?:one of )?\( ?(.*?) ?\)\.)?")


class _JarResolver(etree.Resolver):
    """Serves the schema's imports from the jar's ``schema/`` folder; anything else is refused."""

    def __init__(self, jar: zipfile.ZipFile) -> None:
        super().__init__()
        self.jar = jar
        self.served = 0

    def resolve(self, system_url: str, public_id: str, context: Any) -> Any:
        name = f"schema/{system_url.rsplit('/', 1)[-1]}"
        self.served += 1
        if self.served > MAX_XSD_FILES:
            raise UsageError(f"the broker's schema imports more than {MAX_XSD_FILES} files")
        return self.resolve_string(_entry(self.jar, name), context)


def _entry(jar: zipfile.ZipFile, name: str) -> bytes:
    try:
        info = jar.getinfo(name)
    except KeyError:
        raise UsageError(f"{jar.filename}: no {name} in the jar (the broker's schema imports it)") from None
    if info.file_size > MAX_XSD_BYTES:
        raise UsageError(f"{jar.filename}: {name} is {info.file_size:,} bytes: not the broker's schema")
    with jar.open(info) as fh:
        return fh.read(MAX_XSD_BYTES + 1)[:MAX_XSD_BYTES]


@lru_cache(maxsize=4)
def broker_schema(jar_path: str, _stamp: float = 0.0) -> etree.XMLSchema:
    """The broker's XSD, compiled from its jar once per jar (``_stamp``: its mtime, a new jar's new key)."""
    try:
        with zipfile.ZipFile(jar_path) as jar:
            parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
            parser.resolvers.add(_JarResolver(jar))
            root = etree.fromstring(_entry(jar, SCHEMA_ENTRY), parser, base_url=f"jar:{SCHEMA_ENTRY}")
            return etree.XMLSchema(etree.ElementTree(root))
    except (OSError, zipfile.BadZipFile) as exc:
        raise UsageError(f"cannot read the broker's schema in {jar_path}: {exc}") from None
    except (etree.XMLSyntaxError, etree.XMLSchemaParseError) as exc:
        raise UsageError(f"{jar_path}: the broker's schema does not compile here: {exc}") from None


def schema_of(jar: Path) -> etree.XMLSchema:
    try:
        stamp = jar.stat().st_mtime
    except OSError as exc:
        raise UsageError(f"cannot read {jar}: {exc.strerror or exc}") from None
    return broker_schema(str(jar), stamp)


def check_whole_file(core: etree._Element, locate: Callable[[etree._Element], Pos],
                     file_of: Callable[[etree._Element], str], jar: Path, version: str) -> list[Diagnostic]:
    """AR107 for every error of the broker's own schema in ``core`` (its ``section`` names the top element:
    :func:`keep` drops those in a section arouter's own schema check already reports on)."""
    schema = schema_of(jar)
    clone = copy.deepcopy(core)
    copies = list(clone.iter())
    originals = dict(zip(copies, core.iter(), strict=True))
    _mark_include_roots(core, copies, file_of)
    out: list[Diagnostic] = []
    for el in copies:  # a hostile element with 100,000 attributes: libxml2 would work out a path for each
        if isinstance(el.tag, str) and len(el.attrib) > MAX_FINDINGS_PER_ELEMENT:
            for name in list(el.attrib)[MAX_FINDINGS_PER_ELEMENT:]:
                del el.attrib[name]
    tree = clone.getroottree()
    per_element: dict[etree._Element, int] = {}
    names = _declared_names(str(jar), jar.stat().st_mtime)
    # libxml2, like the broker's Xerces, stops reading an element's content at its first unexpected
    # child: each round takes out the elements found unexpected and looks again, so every typo is found.
    for _ in range(MAX_ROUNDS):
        if schema.validate(clone):
            break
        log = schema.error_log
        by_path: dict[str, etree._Element] = {}
        unexpected: list[etree._Element] = []
        for entry in itertools.islice(log, MAX_ERRORS_PER_SECTION):
            target = _element_of(entry, tree, copies, by_path)
            if "This element is not expected" in entry.message and target is not clone:
                unexpected.append(target)
            count = per_element[target] = per_element.get(target, 0) + 1
            if count > MAX_FINDINGS_PER_ELEMENT or len(out) >= MAX_ERRORS_PER_SECTION:
                continue
            message, hint = _explain(entry.message, version, names)
            pos = locate(originals.get(target, core))
            out.append(Diagnostic(_META.id, _META.severity, _META.category, message, pos.file, pos.line,
                                  pos.column, _section(target, clone), hint, _META.broker))
        gone = [el for el in unexpected if el.getparent() is not None]
        if not gone:
            break
        for el in gone:
            el.getparent().remove(el)
    return out


@lru_cache(maxsize=4)
def _declared_names(jar_path: str, _stamp: float = 0.0) -> tuple[str, ...]:
    """Every element name the broker's schema declares (for "did you mean")."""
    with zipfile.ZipFile(jar_path) as jar:
        root = etree.fromstring(_entry(jar, SCHEMA_ENTRY), etree.XMLParser(resolve_entities=False, no_network=True))
    return tuple(sorted({n for n in root.xpath("//xsd:element/@name", namespaces={"xsd": XSD_NS})}))


def _top(el: etree._Element, root: etree._Element) -> etree._Element | None:
    node: etree._Element | None = el
    while node is not None and node.getparent() is not root:
        node = node.getparent()
    return node


def keep(found: list[Diagnostic], own: list[Diagnostic]) -> list[Diagnostic]:
    """The broker-schema findings worth showing beside arouter's own: all outside the judged sections;
    inside one, only where arouter's own schema check found nothing in that section (then arouter's model
    of the broker's schema is behind this version: ROLE_NAME before 2.41, say)."""
    reported = {d.section for d in own if d.rule.startswith("AR1")}
    return [d for d in found if d.section not in JUDGED_SECTIONS or d.section not in reported]


def _section(el: etree._Element, root: etree._Element) -> str | None:
    top = _top(el, root)
    return etree.QName(top).localname if top is not None and isinstance(top.tag, str) else None


def _explain(message: str, version: str, names: tuple[str, ...]) -> tuple[str, str | None]:
    """libxml2's message without the namespace noise, and a hint (the nearest allowed name)."""
    text = _NS_PREFIX.sub("", message)
    hint = None
    m = _UNEXPECTED.match(text)
    if m is not None:
        name = m.group(1)
        allowed = [a.strip() for a in (m.group(2) or "").split(",") if a.strip()]
        near = difflib.get_close_matches(name, allowed or names, n=1, cutoff=0.75)
        text = f"<{name}> is not allowed here by the schema of Artemis {version}"
        if near:
            hint = f"did you mean <{near[0]}>?"
        elif allowed and len(allowed) <= 8:
            hint = "allowed here: " + ", ".join(f"<{a}>" for a in allowed)
    else:
        text = f"the schema of Artemis {version} refuses this: {text}"
    return text + " (the broker stops: Invalid configuration)", hint
