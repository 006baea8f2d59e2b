"""Schema layer of ``arouter validate``: is broker.xml shaped the way the broker's schema demands?

The broker validates ``<core>`` against its XSD before reading anything, and on failure stops
with a bare "Invalid configuration". This module checks the sections arouter judges
(connection routers, diverts, cluster connections, acceptors, connectors, broadcast and
discovery groups) against arouter's own XSD (``schemas/arouter-core.xsd``, shipped as package
data) and says where and why, in plain words.

Each section element present under ``<core>`` is deep-copied into its own small document (lxml
keeps ``sourceline``) and validated with libxml2 through lxml; the compiled schema is cached
for the life of the process. Uniqueness of names and discovery-group references, which need the
whole ``<core>``, are checked by :mod:`schema_ids`. Messages come from :mod:`schema_messages`.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from lxml import etree

from ..diagnostics import REFUSES, Diagnostic, RuleMeta, Severity
from .gcpause import gc_paused
from .positions import Locator, Pos
from .schema_ids import CORE_NS, JUDGED_SECTIONS, duplicate_sections, id_problems

if TYPE_CHECKING:
    from .schema_messages import Finding, ModelIndex

SCHEMA_FILE = "arouter-core.xsd"
SCHEMA_FILES = ("arouter-core.xsd", "xml-attributes.xsd")
CATEGORY = "schema"

_WRAP = '<core xmlns="urn:activemq:core">'
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"

SCHEMA_RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR101",
        name="unexpected-element",
        severity=Severity.ERROR,
        category=CATEGORY,
        broker=REFUSES,
        summary="An element (or text) the broker's schema does not allow at that place or in that order.",
        doc="""\
Catches a child element the broker's schema does not know in its parent (usually a typo),
an element written out of order where the schema fixes the order (a router's `<pool>`, a
`<broadcast-group>`), two alternatives where only one may be given, and text inside an element
that holds only elements. The broker refuses to start with just "Invalid configuration".

Inside `<pool>` the settings come first, in this order: `username`, `password`,
`check-period`, `quorum-size`, `quorum-timeout`, `local-target-enabled`; then exactly one of
`cluster-connection`, `static-connectors`, `discovery-group-ref`.

**FAIL**
```xml
<connection-routers>
  <connection-router name="r1">
    <policy name="FIRST_ELEMENT"/>
    <pool>
      <static-connectors><connector-ref>b1</connector-ref></static-connectors>
      <quorum-size>2</quorum-size>
    </pool>
  </connection-router>
</connection-routers>
```

**PASS**
```xml
<connection-routers>
  <connection-router name="r1">
    <policy name="FIRST_ELEMENT"/>
    <pool>
      <quorum-size>2</quorum-size>
      <static-connectors><connector-ref>b1</connector-ref></static-connectors>
    </pool>
  </connection-router>
</connection-routers>
```
""",
    ),
    RuleMeta(
        id="AR102",
        name="missing-element",
        severity=Severity.ERROR,
        category=CATEGORY,
        broker=REFUSES,
        summary="A child element the broker's schema requires is missing.",
        doc="""\
Catches a required child that is not there: a divert without `<address>` or
`<forwarding-address>`, a cluster connection without `<connector-ref>`, a router `<pool>`
without a source of targets, an empty `<static-connectors>`, `<acceptors>` or
`<cluster-connections>`.

**FAIL**
```xml
<diverts>
  <divert name="audit">
    <address>orders</address>
  </divert>
</diverts>
```

**PASS**
```xml
<diverts>
  <divert name="audit">
    <address>orders</address>
    <forwarding-address>audit.orders</forwarding-address>
  </divert>
</diverts>
```
""",
    ),
    RuleMeta(
        id="AR103",
        name="invalid-value",
        severity=Severity.ERROR,
        category=CATEGORY,
        broker=REFUSES,
        summary="A value is not of the type the broker's schema wants (number, boolean, enumeration, name).",
        doc="""\
Catches values the broker's schema rejects: a word where a number goes (`<check-period>`,
`<max-hops>`, `<timeout>`), a boolean other than true/false/1/0, a `<key-type>`,
`<routing-type>` or `<message-load-balancing>` outside its list (the lists are case
sensitive), and names with spaces or a leading digit where the broker wants an XML name
(divert, cluster connection, broadcast and discovery group names).

**FAIL**
```xml
<connection-routers>
  <connection-router name="r1">
    <key-type>CLIENTID</key-type>
  </connection-router>
</connection-routers>
```

**PASS**
```xml
<connection-routers>
  <connection-router name="r1">
    <key-type>CLIENT_ID</key-type>
  </connection-router>
</connection-routers>
```
""",
    ),
    RuleMeta(
        id="AR104",
        name="bad-attribute",
        severity=Severity.ERROR,
        category=CATEGORY,
        broker=REFUSES,
        summary="A required attribute is missing, or an attribute is not allowed on that element.",
        doc="""\
Catches a missing `name` on a connection router, policy, divert, cluster connection or group,
a `<filter>` without `string`, a `<property>` without `key` or `value`, and attributes the
element does not take (often a typo, or `allow-direct-connections-only` on a router pool's
`<static-connectors>`, where only a cluster connection's list takes it).

**FAIL**
```xml
<connection-routers>
  <connection-router>
    <policy name="FIRST_ELEMENT"/>
  </connection-router>
</connection-routers>
```

**PASS**
```xml
<connection-routers>
  <connection-router name="r1">
    <policy name="FIRST_ELEMENT"/>
  </connection-router>
</connection-routers>
```
""",
    ),
    RuleMeta(
        id="AR105",
        name="duplicate",
        severity=Severity.ERROR,
        category=CATEGORY,
        broker=REFUSES,
        summary="Something that may appear once appears twice: a child, a section, or a unique name.",
        doc="""\
Catches a second copy of a child that may appear only once (a divert's `<address>`, a
cluster connection's `<max-hops>`), a section written twice in `<core>`, and a name used
twice among the elements whose names the broker's schema wants unique across all of
`<core>`: diverts, cluster connections, broadcast groups, discovery groups, bridges,
federations and router key transformers share one pool of names.

**FAIL**
```xml
<diverts>
  <divert name="copy">
    <address>a</address>
    <forwarding-address>b</forwarding-address>
  </divert>
  <divert name="copy">
    <address>c</address>
    <forwarding-address>d</forwarding-address>
  </divert>
</diverts>
```

**PASS**
```xml
<diverts>
  <divert name="copy-a">
    <address>a</address>
    <forwarding-address>b</forwarding-address>
  </divert>
  <divert name="copy-c">
    <address>c</address>
    <forwarding-address>d</forwarding-address>
  </divert>
</diverts>
```
""",
    ),
    RuleMeta(
        id="AR106",
        name="unknown-discovery-group",
        severity=Severity.ERROR,
        category=CATEGORY,
        broker=REFUSES,
        summary="A discovery-group-name names nothing in <core>, so the broker's schema rejects the file.",
        doc="""\
The broker's schema types `discovery-group-name` as a reference that must match a name
defined in the same `<core>` (normally a `<discovery-group>`). A reference to a group that is
not defined stops the broker before it reads any router or cluster connection.

**FAIL**
```xml
<connection-routers>
  <connection-router name="r1">
    <policy name="CONSISTENT_HASH"/>
    <pool>
      <discovery-group-ref discovery-group-name="dg1"/>
    </pool>
  </connection-router>
</connection-routers>
```

**PASS**
```xml
<discovery-groups>
  <discovery-group name="dg1">
    <group-address>231.7.7.7</group-address>
    <group-port>9876</group-port>
  </discovery-group>
</discovery-groups>
<connection-routers>
  <connection-router name="r1">
    <policy name="CONSISTENT_HASH"/>
    <pool>
      <discovery-group-ref discovery-group-name="dg1"/>
    </pool>
  </connection-router>
</connection-routers>
```
""",
    ),
]

_RULES_BY_ID: dict[str, RuleMeta] = {rule.id: rule for rule in SCHEMA_RULES}


def schema_dir() -> Path:
    """The package-data folder holding arouter's XSD files (beside the package's modules)."""
    return Path(__file__).resolve().parent.parent / "data" / "schemas"


class _PackageResolver(etree.Resolver):
    """Serves the XSD files imported by arouter-core.xsd from package data."""

    def resolve(self, system_url: str, public_id: str, context: Any) -> Any:
        name = system_url.rsplit("/", 1)[-1]
        if name in SCHEMA_FILES:
            return self.resolve_string((schema_dir() / name).read_bytes(), context)
        return None


@lru_cache(maxsize=1)
def compiled_schema() -> etree.XMLSchema:
    """arouter's XSD compiled once by libxml2 (cached for the process)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    parser.resolvers.add(_PackageResolver())
    document = etree.fromstring((schema_dir() / SCHEMA_FILE).read_bytes(), parser, base_url=SCHEMA_FILE)
    return etree.XMLSchema(etree.ElementTree(document))


@lru_cache(maxsize=1)
def _models() -> ModelIndex:
    import xmlschema  # only needed to explain an error

    from .schema_messages import ModelIndex

    return ModelIndex(xmlschema.XMLSchema(str(schema_dir() / SCHEMA_FILE)))


@gc_paused()
def check_schema(core: etree._Element, locate: Callable[[etree._Element], Pos],
                 file_of: Callable[[etree._Element], str] | None = None, *,
                 text: str | None = None) -> list[Diagnostic]:
    """Validate the judged sections of ``core`` (``<core xmlns="urn:activemq:core">``).

    ``core`` must already be ``${}``-substituted and XIncluded. Returns the problems sorted by
    position; an empty list means the broker's schema accepts these sections. ``file_of`` (the
    loader's ``Locator.file_of``) is a fast way to tell which file an element came from. ``text``:
    the text every element of the tree was parsed from (no XInclude), which tells at a glance that
    no element is crowded (:func:`may_be_crowded`).
    """
    if file_of is None:
        def file_of(el: etree._Element) -> str:
            return locate(el).file

    diagnostics: list[Diagnostic] = []
    for problem in duplicate_sections(core, locate):
        diagnostics.append(_diagnostic(problem.rule, problem.element, problem.message, problem.hint, locate))
    prefix = f"{{{CORE_NS}}}"
    crowded_anywhere: bool | None = None  # worked out for the first section judged
    for section in core:
        tag = section.tag
        if not isinstance(tag, str) or not tag.startswith(prefix):
            continue  # a comment, a processing instruction, or another namespace
        if tag[len(prefix):] in JUDGED_SECTIONS:
            if crowded_anywhere is None:
                crowded_anywhere = text is None or may_be_crowded(text)
            diagnostics.extend(_check_section(section, locate, file_of, crowded_anywhere))
    for problem in id_problems(core, locate):
        diagnostics.append(_diagnostic(problem.rule, problem.element, problem.message, problem.hint, locate))
    return sorted(set(diagnostics), key=lambda d: (*d.sort_key(), d.message))


# Schema findings listed for one element (a hostile one can have 100,000 unknown attributes);
# the rest are counted in one more finding.
MAX_FINDINGS_PER_ELEMENT = 50
MAX_ERRORS_PER_SECTION = 2_000
# Whether some element of a section (itself included) has more attributes than are listed: an element
# with an attribute in position MAX + 1. libxml2 stops at that position on each element's attribute list
# and makes no Python object per element (``count(@*)`` would build every element's whole list).
# Namespace declarations are no attributes here, as in lxml's ``attrib``; namespaced attributes are.
_CROWDED = etree.XPath(f"boolean(descendant-or-self::*/@*[{MAX_FINDINGS_PER_ELEMENT + 1}])", regexp=False)


def crowded_section(section: etree._Element) -> bool:
    """Whether some element of ``section`` has more than MAX_FINDINGS_PER_ELEMENT attributes."""
    return bool(_CROWDED(section))


# Every byte but '<' and '=': what is left of a text is its start tags' '=' signs between the '<'s.
_NOT_TAG_OR_EQUALS = bytes(b for b in range(256) if b not in b"<=")
_CROWDED_EQUALS = b"=" * (MAX_FINDINGS_PER_ELEMENT + 1)


def may_be_crowded(text: str) -> bool:
    """False when no element of a tree parsed from ``text`` alone has more than
    MAX_FINDINGS_PER_ELEMENT attributes: each attribute is written with an '=' in its start tag,
    and a start tag holds no '<' (an attribute value cannot), so an element's attributes are at
    most the '=' signs between one '<' and the next. (Namespace declarations and '=' in other
    text only make it look more often.) Two passes in C over the text, where the XPath of
    :func:`crowded_section` visits every element of every section."""
    # (in UTF-8 no '<' or '=' byte lies inside a character)
    marks = text.encode("utf-8", "surrogatepass").translate(None, _NOT_TAG_OR_EQUALS)
    return _CROWDED_EQUALS in marks


def _check_section(section: etree._Element, locate: Callable[[etree._Element], Pos],
                   file_of: Callable[[etree._Element], str], crowded_anywhere: bool = True) -> list[Diagnostic]:
    schema = compiled_schema()
    may_include = _may_include(file_of)
    crowded = crowded_anywhere and crowded_section(section)
    if not may_include and not crowded and schema.validate(section):
        # lxml validates an element as the root of a temporary document that shares its subtree,
        # which is what validating a copy does; the copy (which explanations need) only on failure.
        return []
    clone = copy.deepcopy(section)
    copies: list[etree._Element] = []
    added_base: set[etree._Element] = set()
    if may_include:
        copies = list(clone.iter())
        added_base = _mark_include_roots(section, copies, file_of)
    copies = copies or list(clone.iter())
    originals = dict(zip(copies, section.iter(), strict=True))
    out: list[Diagnostic] = []
    if crowded:
        # libxml2 works out a path for every error: 100,000 attributes of one element among many
        # siblings would take minutes. No element of the broker's schema takes that many.
        for el in copies:
            if isinstance(el.tag, str) and len(el.attrib) > MAX_FINDINGS_PER_ELEMENT:
                extra = list(el.attrib)[MAX_FINDINGS_PER_ELEMENT:]
                for name in extra:
                    del el.attrib[name]
                out.append(_diagnostic("AR104", originals[el], f"<{etree.QName(el).localname}> has "
                                       f"{len(extra) + MAX_FINDINGS_PER_ELEMENT:,} attributes; those after the "
                                       f"first {MAX_FINDINGS_PER_ELEMENT} are not checked", None, locate,
                                       etree.QName(section).localname))
    if schema.validate(clone):
        return out
    tree = clone.getroottree()
    from .schema_messages import Translator  # only needed to explain an error

    translator = Translator(_models())
    seen_values: set[tuple[int, str]] = set()
    index = {el: i for i, el in enumerate(copies)}
    per_element: dict[etree._Element, int] = {}
    rule_of: dict[etree._Element, str] = {}
    log = schema.error_log
    by_path: dict[str, etree._Element] = {}
    for entry in itertools.islice(log, MAX_ERRORS_PER_SECTION):
        target = _element_of(entry, tree, copies, by_path)
        shown = per_element[target] = per_element.get(target, 0) + 1
        if shown > MAX_FINDINGS_PER_ELEMENT:
            continue  # counted, summed up below
        finding: Finding = translator.explain(entry, target)
        rule_of[target] = finding.rule
        if finding.attribute is not None:
            key = (index.get(finding.element, -1), finding.attribute)
            if key in seen_values:
                continue
            seen_values.add(key)
        original = originals.get(finding.element, section)
        message, hint = finding.message, finding.hint
        if finding.attribute == XML_BASE and finding.element in added_base:
            name = etree.QName(finding.element).localname
            message = (f"<{name}> cannot be the top element of an XIncluded file: the broker adds "
                       f"xml:base to it, and its schema does not allow xml:base on <{name}>")
            hint = "include the whole enclosing section instead"
        out.append(_diagnostic(finding.rule, original, message, hint, locate, etree.QName(section).localname))
    for target, count in per_element.items():
        if count > MAX_FINDINGS_PER_ELEMENT:
            name = etree.QName(target).localname if isinstance(target.tag, str) else "comment"
            out.append(_diagnostic(rule_of.get(target, "AR103"),
                                   originals.get(target, section),
                                   f"<{name}> has {count - MAX_FINDINGS_PER_ELEMENT:,} more schema problems "
                                   f"than the {MAX_FINDINGS_PER_ELEMENT} listed", None, locate,
                                   etree.QName(section).localname))
    if len(log) > MAX_ERRORS_PER_SECTION:
        out.append(_diagnostic(out[-1].rule if out else "AR103", section,
                               f"<{etree.QName(section).localname}> has {len(log) - MAX_ERRORS_PER_SECTION:,} more "
                               f"schema problems than the {MAX_ERRORS_PER_SECTION:,} looked at", None, locate,
                               etree.QName(section).localname))
    return out


def _may_include(file_of: Callable[[etree._Element], str]) -> bool:
    """False when ``file_of`` is a Locator's and nothing was XIncluded: every element is from one file."""
    owner = getattr(file_of, "__self__", None)
    return not isinstance(owner, Locator) or owner.has_includes


def _mark_include_roots(
    section: etree._Element, copies: list[etree._Element], file_of: Callable[[etree._Element], str]
) -> set[etree._Element]:
    """Give XIncluded top elements the xml:base the broker's parser adds (Xerces fixes up base URIs)."""
    added: set[etree._Element] = set()
    for clone, original in zip(copies, section.iter(), strict=True):
        parent = original.getparent()
        if not isinstance(original.tag, str) or parent is None or clone.get(XML_BASE) is not None:
            continue
        here = file_of(original)
        if here != file_of(parent):
            clone.set(XML_BASE, _base_uri(here))
            added.add(clone)
    return added


def _base_uri(shown: str) -> str:
    """An xml:base for the file shown as ``shown``: a relative URI, as Xerces writes the href it followed.

    Only whether the schema allows xml:base on the element is in question, so the value must be a
    valid anyURI whatever the name: a file read from git is shown as ``REV:path``, and a revision such
    as ``HEAD~1``, ``HEAD^`` or a short hash starting with a digit is no URI scheme.
    """
    name = shown.rsplit("/", 1)[-1]
    return quote(name, safe="") or "included.xml"


def _element_of(entry: Any, tree: etree._ElementTree, copies: list[etree._Element],
                by_path: dict[str, etree._Element] | None = None) -> etree._Element:
    """The element of the copy that a libxml2 log entry is about (``by_path`` remembers each path's)."""
    path = getattr(entry, "path", None)
    if path and by_path is not None and path in by_path:
        return by_path[path]
    if path:
        try:
            found = tree.xpath(path)
        except etree.XPathError:
            found = []
        if found and isinstance(found[0], etree._Element):
            if by_path is not None:
                by_path[path] = found[0]
            return found[0]
    for el in copies:  # fall back to the first element on the reported line
        if isinstance(el.tag, str) and el.sourceline == entry.line:
            return el
    return copies[0]


def _diagnostic(
    rule: str,
    element: etree._Element,
    message: str,
    hint: str | None,
    locate: Callable[[etree._Element], Pos],
    section: str | None = None,
) -> Diagnostic:
    meta = _RULES_BY_ID[rule]
    pos = locate(element)
    if section is None:
        section = _section_of(element)
    return Diagnostic(rule=rule, severity=meta.severity, category=meta.category, message=message,
                      file=pos.file, line=pos.line, column=pos.column, section=section, hint=hint,
                      broker=meta.broker)


def _section_of(element: etree._Element) -> str | None:
    node: etree._Element | None = element
    while node is not None:
        parent = node.getparent()
        if parent is not None and etree.QName(parent).localname == "core":
            return etree.QName(node).localname
        node = parent
    return None


def wrap_fragment(fragment: str) -> str:
    """A ``<core>`` document around section fragments (used by tests and rule docs)."""
    return f"{_WRAP}\n{fragment}\n</core>"
