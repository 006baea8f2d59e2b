"""Turn libxml2's schema-validation errors into plain sentences about broker.xml.

libxml2 says *that* something is wrong, in XSD vocabulary ("This element is not expected.
Expected is one of ( {urn:activemq:core}quorum-timeout, ... )"). This module says *what* is
wrong and what the broker wants instead ("in <pool>, <static-connectors> must come after
<quorum-size>"). It reads the content models of arouter's own XSD through ``xmlschema``, but
only when there is an error to explain, so valid files never pay for it.

Everything here works on the validated copy of a section; ``schema.py`` maps the elements back
to the original document for positions.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

CORE_NS = "urn:activemq:core"
XML_NS = "http://www.w3.org/XML/1998/namespace"

_MAX_SHOWN_VALUE = 60

# What each value type accepts, in words; keys are the type names libxml2 prints.
_TYPE_WORDS: dict[str, str] = {
    "xs:int": "a whole number from -2147483648 to 2147483647",
    "xs:long": "a whole number (64-bit)",
    "xs:integer": "a whole number",
    "xs:boolean": "true or false",
    "xs:double": "a number",
    "xs:anyURI": "a URI",
    "xs:NCName": "a name without spaces or colons that does not start with a digit",
    "xs:language": "a language tag such as en or en-GB",
    "{urn:activemq:core}unique-name": "a name without spaces or colons that does not start with a digit",
    "{urn:activemq:core}name-pointer": "a name without spaces or colons that does not start with a digit",
}

_ELEMENT = r"Element '(?P<el>[^']+)'(?:, attribute '(?P<attr>[^']+)')?: "
_RE_ENUM = re.compile(_ELEMENT + r"\[facet 'enumeration'\] The value .* is not an element of the set "
                      r"\{(?P<set>.*)\}\.$", re.S)
_RE_FACET = re.compile(_ELEMENT + r"\[facet '(?P<facet>[^']+)'\]", re.S)
_RE_TYPE = re.compile(_ELEMENT + r".* is not a valid value of the (?:atomic|union|list) type "
                      r"'(?P<type>[^']+)'\.$", re.S)
_RE_MISSING_ATTR = re.compile(_ELEMENT + r"The attribute '(?P<name>[^']+)' is required but missing\.$")
_RE_EXTRA_ATTR = re.compile(_ELEMENT + r"The attribute '(?P<name>[^']+)' is not allowed\.$")
_RE_NOT_EXPECTED = re.compile(_ELEMENT + r"This element is not expected\.(?: Expected is (?P<exp>.*)\.)?$",
                              re.S)
_RE_MISSING_CHILD = re.compile(_ELEMENT + r"Missing child element\(s\)\.(?: Expected is (?P<exp>.*)\.)?$",
                               re.S)
_RE_TEXT = re.compile(_ELEMENT + r"Character content (?:other than whitespace )?is not allowed,? because "
                      r"the content type is '?(?P<kind>[\w-]+)'?\.$")
_RE_SIMPLE_WITH_ELEMENTS = re.compile(_ELEMENT + r"Element content is not allowed, because the (?:content "
                                      r"type is a simple type definition|type definition is simple)\.$")
_RE_QNAME = re.compile(r"\{[^}]*\}")


@dataclass(frozen=True, slots=True)
class Finding:
    """One schema problem, attached to an element of the validated copy."""

    rule: str
    element: etree._Element
    message: str
    hint: str | None = None
    attribute: str | None = None  # set for value and attribute problems (used to drop repeats)


@dataclass(slots=True)
class ChildModel:
    """The part of an element declaration that explanations need."""

    kind: str  # "sequence", "all", "choice", "simple" or "empty"
    names: list[str] = field(default_factory=list)  # children in declared order
    rank: dict[str, int] = field(default_factory=dict)  # position in a sequence; alternatives share one
    once: set[str] = field(default_factory=set)  # children allowed at most once (per pass)
    many: set[str] = field(default_factory=set)  # children that may repeat
    required: list[str] = field(default_factory=list)
    alternatives: list[list[str]] = field(default_factory=list)  # exactly one of these must appear
    exclusive: list[list[str]] = field(default_factory=list)  # at most one of these may appear
    repeats: bool = False  # the whole group may repeat (a connection-router pool does)
    min_children: int = 0
    attributes: list[str] = field(default_factory=list)


class ModelIndex:
    """Content models of arouter's XSD, looked up by the path of local names from a section."""

    def __init__(self, schema: Any) -> None:  # an xmlschema.XMLSchema
        self._schema = schema
        self._cache: dict[tuple[str, ...], ChildModel | None] = {}

    def model(self, path: tuple[str, ...]) -> ChildModel | None:
        if path not in self._cache:
            decl = self._declaration(path)
            self._cache[path] = None if decl is None else self._describe(decl)
        return self._cache[path]

    def _declaration(self, path: tuple[str, ...]) -> Any:
        decl = self._schema.elements.get(path[0])
        for name in path[1:]:
            if decl is None:
                return None
            decl = next((d for d in self._child_declarations(decl) if d.local_name == name), None)
        return decl

    def _child_declarations(self, decl: Any) -> Iterable[Any]:
        xtype = decl.type
        if not xtype.is_complex() or xtype.has_simple_content() or xtype.content is None:
            return []
        found: list[Any] = []
        for particle in xtype.content.iter_elements():
            if getattr(particle, "abstract", False):
                found.extend(self._schema.elements[name] for name in self._members(particle))
            else:
                found.append(particle)
        return found

    def _members(self, head: Any) -> list[str]:
        """Substitutes for an abstract head, in the order the XSD declares them."""
        members = {m.local_name for m in self._schema.maps.substitution_groups.get(head.name, [])}
        return [name for name in self._schema.elements if name in members]

    def _describe(self, decl: Any) -> ChildModel:
        xtype = decl.type
        if not xtype.is_complex() or xtype.has_simple_content():
            return ChildModel(kind="simple", attributes=_attribute_names(xtype))
        group = xtype.content
        if group is None or xtype.is_empty():
            return ChildModel(kind="empty", attributes=_attribute_names(xtype))
        model = ChildModel(kind=group.model, attributes=_attribute_names(xtype))
        model.repeats = group.max_occurs is None or group.max_occurs > 1
        model.min_children = group.min_occurs if group.model == "choice" else 0
        for position, particle in enumerate(group):
            if hasattr(particle, "model"):  # a nested choice: its members are alternatives
                members = [p.local_name for p in particle.iter_elements()]
                for name in members:
                    model.names.append(name)
                    model.rank[name] = position
                    model.once.add(name)
                if particle.min_occurs >= 1:
                    model.alternatives.append(members)
                continue
            if getattr(particle, "abstract", False):
                members = self._members(particle)
                model.exclusive.append(members)
                for name in members:
                    model.names.append(name)
                    model.rank[name] = position
                    model.once.add(name)
                continue
            name = particle.local_name
            model.names.append(name)
            model.rank[name] = position
            if particle.max_occurs == 1 and group.model != "choice":
                model.once.add(name)
            if particle.max_occurs is None or particle.max_occurs > 1:
                model.many.add(name)
            if particle.min_occurs >= 1 and group.model != "choice":
                model.required.append(name)
        return model


def _attribute_names(xtype: Any) -> list[str]:
    attributes = getattr(xtype, "attributes", None)
    if not attributes:
        return []
    return [k for k in attributes if k and not k.startswith("{")]


# ------------------------------------------------------------------------------ helpers


def local(el: etree._Element) -> str:
    return etree.QName(el).localname


def tag(name: str) -> str:
    return f"<{name}>"


def one_of(names: list[str], joiner: str = "or") -> str:
    shown = [tag(n) for n in names]
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + f" {joiner} " + shown[-1]


def shown_value(value: str | None) -> str:
    text = value if value is not None else ""
    if len(text) > _MAX_SHOWN_VALUE:
        text = text[: _MAX_SHOWN_VALUE - 3] + "..."
    return f"'{text}'"


def _plain(qname: str) -> str:
    """'{urn:activemq:core}pool' -> 'pool'; xml attributes keep their xml: prefix."""
    if qname.startswith("{" + XML_NS + "}"):
        return "xml:" + qname.split("}", 1)[1]
    return _RE_QNAME.sub("", qname)


def _expected_names(text: str | None) -> list[str]:
    if not text or "(" not in text:
        return []
    inside = text[text.index("(") + 1: text.rindex(")")] if ")" in text else ""
    return [_plain(part.strip()) for part in inside.split(",") if part.strip()]


def _path(el: etree._Element) -> tuple[str, ...]:
    names: list[str] = []
    node: etree._Element | None = el
    while node is not None:
        names.append(local(node))
        node = node.getparent()
    return tuple(reversed(names))


def _element_children(el: etree._Element) -> list[etree._Element]:
    return [c for c in el if isinstance(c.tag, str)]


def _first_text(el: etree._Element) -> str:
    pieces = [el.text or ""] + [c.tail or "" for c in el]
    for piece in pieces:
        if piece.strip():
            return piece.strip()
    return ""


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _did_you_mean(name: str, candidates: list[str]) -> str | None:
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.7)
    return close[0] if close else None


def _order_hint(parent: str, model: ChildModel) -> str:
    groups: dict[int, list[str]] = {}
    for name in model.names:
        groups.setdefault(model.rank[name], []).append(name)
    parts = [" | ".join(names) if len(names) > 1 else names[0] for _, names in sorted(groups.items())]
    return f"the order inside <{parent}> is: " + ", ".join(parts)


# ------------------------------------------------------------------------------ translation


class Translator:
    """Explains the errors of one validated section copy."""

    def __init__(self, models: ModelIndex) -> None:
        self._models = models

    def explain(self, entry: Any, el: etree._Element) -> Finding:
        """One libxml2 log entry about ``el`` (an element of the section copy) -> one finding."""
        message = entry.message
        for pattern, handler in (
            (_RE_ENUM, self._enumeration),
            (_RE_TYPE, self._bad_type),
            (_RE_FACET, self._bad_facet),
            (_RE_MISSING_ATTR, self._missing_attribute),
            (_RE_EXTRA_ATTR, self._unknown_attribute),
            (_RE_NOT_EXPECTED, self._not_expected),
            (_RE_MISSING_CHILD, self._missing_child),
            (_RE_TEXT, self._text_content),
            (_RE_SIMPLE_WITH_ELEMENTS, self._elements_in_value),
        ):
            match = pattern.match(message)
            if match:
                return handler(match, el)
        return Finding("AR101", el, f"<{local(el)}>: {_plain(message.split(': ', 1)[-1])}")

    # -- values ----------------------------------------------------------------------------

    def _subject(self, el: etree._Element, attr: str | None) -> tuple[str, str | None]:
        if attr is None:
            return f"<{local(el)}>", el.text
        name = _plain(attr)
        return f"the {name} attribute of <{local(el)}>", el.get(attr)

    def _enumeration(self, match: re.Match[str], el: etree._Element) -> Finding:
        subject, value = self._subject(el, match["attr"])
        allowed = [v.strip().strip("'") for v in match["set"].split(",")]
        message = f"{subject} must be one of {', '.join(allowed)}, not {shown_value(value)}"
        return Finding("AR103", el, message, attribute=match["attr"] or "")

    def _bad_type(self, match: re.Match[str], el: etree._Element) -> Finding:
        subject, value = self._subject(el, match["attr"])
        words = _TYPE_WORDS.get(match["type"], f"a valid {_plain(match['type'])}")
        hint = None
        if match["type"] == "xs:boolean":
            hint = "the schema takes true, false, 1 or 0; the broker then reads only 'true' as true"
        return Finding("AR103", el, f"{subject} must be {words}, not {shown_value(value)}", hint=hint,
                       attribute=match["attr"] or "")

    def _bad_facet(self, match: re.Match[str], el: etree._Element) -> Finding:
        subject, value = self._subject(el, match["attr"])
        return Finding("AR103", el, f"{subject} has an invalid value {shown_value(value)}",
                       attribute=match["attr"] or "")

    # -- attributes ------------------------------------------------------------------------

    def _missing_attribute(self, match: re.Match[str], el: etree._Element) -> Finding:
        name = _plain(match["name"])
        return Finding("AR104", el, f"<{local(el)}> needs {_article(name)} {name} attribute",
                       attribute=match["name"])

    def _unknown_attribute(self, match: re.Match[str], el: etree._Element) -> Finding:
        name = _plain(match["name"])
        model = self._models.model(_path(el))
        known = model.attributes if model else []
        message = f"<{local(el)}> does not take {_article(name)} {name} attribute"
        guess = _did_you_mean(name, known)
        if guess:
            message += f"; did you mean {guess}?"
        hint = f"<{local(el)}> takes: {', '.join(known)}" if known else f"<{local(el)}> takes no attributes"
        return Finding("AR104", el, message, hint=hint, attribute=match["name"])

    # -- content ---------------------------------------------------------------------------

    def _not_expected(self, match: re.Match[str], child: etree._Element) -> Finding:
        parent = child.getparent()
        name = local(child)
        if parent is None:
            return Finding("AR101", child, f"<{name}> is not expected here")
        pname = local(parent)
        model = self._models.model(_path(parent))
        expected = _expected_names(match["exp"])
        if model is None:
            return Finding("AR101", child, f"<{pname}> does not take <{name}>")
        if name not in model.names:
            return self._unknown_child(child, pname, model)
        if etree.QName(child).namespace != CORE_NS:
            return Finding("AR101", child, f"<{name}> must be in the {CORE_NS} namespace",
                           hint=f'add xmlns="{CORE_NS}" to the fragment that holds it')
        before = _element_children(parent)
        before = before[: before.index(child)]
        for group in model.exclusive:
            if name in group:
                other = next((b for b in before if local(b) in group), None)
                if other is not None:
                    return Finding("AR101", child, f"<{pname}> takes only one of {one_of(group)}",
                                   hint=f"the first is <{local(other)}> at line {other.sourceline}")
        if model.kind == "sequence":
            if model.repeats:  # a new pass starts after each member of a required choice
                starts = [i for i, b in enumerate(before) if any(local(b) in a for a in model.alternatives)]
                if starts:
                    before = before[starts[-1] + 1:]
            rank = model.rank[name]
            present = {local(b) for b in before}
            skipped = [r for r in model.required if model.rank[r] < rank and r not in present]
            if skipped:
                return Finding("AR102", parent, f"<{pname}> needs {one_of(skipped, 'and')} before <{name}>",
                               hint=_order_hint(pname, model))
            late = next((b for b in before if model.rank.get(local(b), -1) > rank), None)
            if late is not None:
                return Finding("AR101", late, f"in <{pname}>, <{local(late)}> must come after <{name}>",
                               hint=_order_hint(pname, model))
        first = next((b for b in before if local(b) == name), None)
        if first is not None and name in model.once:
            return Finding("AR105", child, f"<{pname}> may hold only one <{name}> "
                                           f"(the first is at line {first.sourceline})")
        shown = f"; expected {one_of(expected)}" if expected else ""
        return Finding("AR101", child, f"<{name}> is not allowed at this place in <{pname}>{shown}")

    def _unknown_child(self, child: etree._Element, pname: str, model: ChildModel) -> Finding:
        name = local(child)
        if model.kind in ("simple", "empty"):
            what = "holds a value, not elements" if model.kind == "simple" else "must be empty"
            return Finding("AR101", child, f"<{pname}> {what}; <{name}> is not allowed inside it")
        message = f"<{pname}> does not take <{name}>"
        guess = _did_you_mean(name, model.names)
        if guess:
            message += f"; did you mean <{guess}>?"
        return Finding("AR101", child, message, hint=f"<{pname}> takes: {', '.join(model.names)}")

    def _missing_child(self, match: re.Match[str], parent: etree._Element) -> Finding:
        pname = local(parent)
        model = self._models.model(_path(parent))
        children = _element_children(parent)
        present = {local(c) for c in children}
        if model is not None:
            if model.kind == "sequence" and model.repeats and model.alternatives:
                # settings written after the last target source start a pass that never ends
                starts = [i for i, c in enumerate(children) if any(local(c) in a for a in model.alternatives)]
                if starts and starts[-1] < len(children) - 1:
                    source, trailing = children[starts[-1]], children[starts[-1] + 1]
                    return Finding("AR101", source,
                                   f"in <{pname}>, <{local(source)}> must come after <{local(trailing)}>",
                                   hint=_order_hint(pname, model))
            for group in model.alternatives:
                if not present.intersection(group):
                    return Finding("AR102", parent, f"<{pname}> needs one of {one_of(group)}")
            missing = [n for n in model.required if n not in present]
            if len(missing) == 1 and missing[0] in model.many:
                return Finding("AR102", parent, f"<{pname}> needs at least one <{missing[0]}>")
            if missing:
                return Finding("AR102", parent, f"<{pname}> needs {one_of(missing, 'and')}")
            if model.kind == "choice" and model.min_children and not children:
                return Finding("AR102", parent, f"<{pname}> needs at least one {one_of(model.names)}")
        expected = _expected_names(match["exp"])
        if len(expected) == 1:
            return Finding("AR102", parent, f"<{pname}> needs {tag(expected[0])}")
        if expected:
            return Finding("AR102", parent, f"<{pname}> needs one of {one_of(expected)}")
        return Finding("AR102", parent, f"<{pname}> is missing a child element")

    def _text_content(self, match: re.Match[str], el: etree._Element) -> Finding:
        text = shown_value(_first_text(el))
        if match["kind"] == "empty":
            return Finding("AR101", el, f"<{local(el)}> must be empty, not hold text {text}")
        return Finding("AR101", el, f"<{local(el)}> holds only elements, not text {text}")

    def _elements_in_value(self, match: re.Match[str], el: etree._Element) -> Finding:
        inner = next(iter(_element_children(el)), None)
        what = f"; <{local(inner)}> is not allowed inside it" if inner is not None else ""
        # attribute "" marks the element's own value, so a follow-up type error is not repeated
        return Finding("AR101", el, f"<{local(el)}> holds a value, not elements{what}", attribute="")
