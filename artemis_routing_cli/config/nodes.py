"""Reading lxml elements the way the broker's DOM code reads them.

The broker's FileConfigurationParser uses ``getElementsByTagName`` (first matching *descendant*),
``getTextContent().trim()`` (Java's trim: chars <= U+0020 only), and in a few places
``getChildNodes().item(0).getNodeValue()``: the *first child node*, which may be a comment, a
CDATA section or a text node that ends where a comment or CDATA section begins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from operator import attrgetter

from lxml import etree

from ..javastr import JAVA_TRIMMED, java_parse_boolean, java_parse_double, java_parse_integer, java_trim
from .model import FieldValue
from .positions import Locator

# tag -> local name, for the tags met (a document has few distinct ones; bounded all the same)
_LOCAL_NAMES: dict[str, str] = {}
_MAX_NAMES = 4096
_TAG = attrgetter("tag")
_FEW = 10  # child nodes up to which ChildFields reads all of them at once


def _local_name(tag: str) -> str:
    name = tag.rpartition("}")[2]
    if len(_LOCAL_NAMES) >= _MAX_NAMES:
        _LOCAL_NAMES.clear()
    _LOCAL_NAMES[tag] = name
    return name


def local(el: etree._Element) -> str:
    tag = el.tag
    if isinstance(tag, str):
        name = _LOCAL_NAMES.get(tag)
        return name if name is not None else _local_name(tag)
    return ""


def text_content(el: etree._Element) -> str:
    """Java's Node.getTextContent(): all descendant text, comments and PIs left out."""
    if not len(el):
        return (el.text or "") if isinstance(el.tag, str) else ""
    parts: list[str] = [el.text or ""] if isinstance(el.tag, str) else []
    for child in el:
        if isinstance(child.tag, str):
            parts.append(text_content(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _element_text(el: etree._Element) -> str:
    """:func:`text_content` of an element (not a comment or PI)."""
    if not len(el):
        return el.text or ""
    return text_content(el)


def child_elements(el: etree._Element, name: str | None = None) -> Iterator[etree._Element]:
    """Element children (any namespace), optionally only those with local name ``name``."""
    return el.iterchildren("{*}" + name if name is not None else etree.Element)


def descendants(el: etree._Element, name: str) -> Iterator[etree._Element]:
    """Like the broker's getElementsByTagName: every descendant with this name, document order."""
    return el.iterdescendants("{*}" + name)


def first_descendant(el: etree._Element, name: str) -> etree._Element | None:
    return next(descendants(el, name), None)


def java_bool(text: str) -> bool:
    """XMLUtil.parseBoolean: the trimmed text is ``true`` in any case."""
    return java_parse_boolean(java_trim(text))


def java_int(text: str, bits: int = 32) -> int | None:
    """XMLUtil.parseInt / parseLong: the trimmed text through Integer.parseInt / Long.parseLong; else None."""
    return java_parse_integer(java_trim(text), bits=bits)


def java_double(text: str) -> float | None:
    """XMLUtil.parseDouble: Double.parseDouble of the trimmed text; else None."""
    return java_parse_double(text)


class ChildFields(Mapping[str, FieldValue]):
    """An element's child elements by local name, in document order: for each name the trimmed text
    and position of its first occurrence and how many there are.

    Text and position are read when a name is first looked up: most are never asked for.
    """

    __slots__ = ("_first", "_count", "_el", "_values", "_locator", "_nested", "_repeated", "_direct")

    def __init__(self, el: etree._Element, locator: Locator) -> None:
        if len(el) > _FEW:  # <core> and the like, often with comments among its children: element by element
            self._read_each(el)
            self._count: dict[str, int] | None = None
            self._el = el
            self._values: dict[str, FieldValue] = {}
            self._locator = locator
            return
        children = el[:]  # every child node, comments and PIs too
        names = list(map(_LOCAL_NAMES.get, map(_TAG, children)))  # None: not an element, or a new name
        first = dict(zip(names, children))  # noqa: B905 (as long by construction; no keyword to parse)
        if len(first) != len(names) or None in first:
            # a comment or PI, a name met for the first time, or a name written twice: one child at a time
            self._read_slowly(children, names)
        else:  # the common case, worked out in C: each child an element with a name of its own
            self._first = first
            self._repeated = False
            if any(map(len, children)):
                self._nested = True
                # names whose first child comes no later than the first child with children of its own:
                # no earlier subtree can hold a descendant of that name, so that child is the first one
                self._direct = next(i for i, child in enumerate(children, 1) if len(child))
            else:
                self._nested = False
                self._direct = len(first)
        self._count = None  # counted when some name repeats and is asked for
        self._el = el
        self._values = {}
        self._locator = locator

    def _read_each(self, el: etree._Element) -> None:
        """``_first``, ``_repeated``, ``_nested`` and ``_direct``, walking the child elements one by one."""
        first: dict[str, etree._Element] = {}
        nested = False
        children = direct = 0
        names = _LOCAL_NAMES
        for child in el.iterchildren(etree.Element):
            children += 1
            tag = child.tag
            name = names.get(tag)
            if name is None:
                name = _local_name(tag)
            if name not in first:
                first[name] = child
            if not nested and len(child):
                nested = True
                direct = len(first)
        self._first = first
        self._direct = direct if nested else len(first)
        self._repeated = children != len(first)
        self._nested = nested

    def _read_slowly(self, children: list[etree._Element], names: list[str | None]) -> None:
        """``_first``, ``_repeated``, ``_nested`` and ``_direct`` for any child nodes (``names``: each
        one's local name where already known)."""
        first: dict[str, etree._Element] = {}
        nested = False
        elements = direct = 0
        for name, child in zip(names, children):  # noqa: B905 (as long by construction)
            if name is None:
                tag = child.tag
                if not isinstance(tag, str):
                    continue  # a comment, processing instruction or entity reference
                name = _local_name(tag)
            elements += 1
            if name not in first:
                first[name] = child
            if not nested and len(child):
                nested = True
                direct = len(first)
        self._first = first
        self._direct = direct if nested else len(first)
        self._repeated = elements != len(first)
        self._nested = nested  # whether some child has children (comments count) of its own

    def _counts(self) -> dict[str, int]:
        count = self._count
        if count is None:
            count = dict.fromkeys(self._first, 0)
            if self._repeated:
                names = _LOCAL_NAMES
                for child in self._el.iterchildren(etree.Element):
                    tag = child.tag
                    name = names.get(tag)
                    count[name if name is not None else _local_name(tag)] += 1
            else:
                count = dict.fromkeys(self._first, 1)
            self._count = count
        return count

    def element(self, name: str) -> etree._Element | None:
        """The first child element called ``name`` (any namespace), or None."""
        return self._first.get(name)

    def children(self) -> Iterable[tuple[str, etree._Element]]:
        """Every child element with its local name, in document order (repeated names included)."""
        if not self._repeated:
            return self._first.items()
        return [(local(child), child) for child in self._el.iterchildren(etree.Element)]

    def count(self, name: str) -> int:
        """How many child elements are called ``name`` (0 when none)."""
        if name not in self._first:
            return 0
        return self._counts()[name] if self._repeated else 1

    @property
    def repeated(self) -> bool:
        """Whether some name occurs more than once among the child elements."""
        return self._repeated

    def __getitem__(self, name: str) -> FieldValue:
        value = self._values.get(name)
        if value is None:  # the same value whoever reads it first
            child = self._first[name]
            value = FieldValue(_element_text(child).strip(JAVA_TRIMMED), self._locator.locate(child),
                               self._counts()[name] if self._repeated else 1)
            self._values[name] = value
        return value

    def text(self, name: str) -> str | None:
        """``self[name].text`` (None when there is no such child), without working out its position."""
        value = self._values.get(name)
        if value is not None:
            return value.text
        child = self._first.get(name)
        return None if child is None else _element_text(child).strip(JAVA_TRIMMED)

    def get(self, name: str, default: FieldValue | None = None) -> FieldValue | None:  # type: ignore[override]
        return self[name] if name in self._first else default

    def __contains__(self, name: object) -> bool:
        return name in self._first

    def __iter__(self) -> Iterator[str]:
        return iter(self._first)

    def __len__(self) -> int:
        return len(self._first)

    def __repr__(self) -> str:
        return f"ChildFields({dict(self)!r})"


# The names known to occur nowhere below one element (the root): a Reader of an element below it need
# not search its own subtree for them. A name is looked up in the root's whole subtree (in C, up to its
# first occurrence) once readers have searched for it _ASKED times on their own: a generated or real
# broker.xml asks thousands of readers for the same few names it never writes (<quorum-timeout>,
# <call-timeout>), while a small file is cheaper searched reader by reader. Per name: how many
# searches so far, or whether it occurs nowhere (True) or somewhere (False).
Nowhere = tuple[etree._Element, dict[str, int | bool]]
_ASKED = 32
_MAX_NOWHERE = 1024  # names remembered; the readers ask for the broker's few dozen, bounded all the same


def nowhere(root: etree._Element) -> Nowhere:
    """What the readers of elements below ``root`` share to learn the names written nowhere below it."""
    return root, {}


class Reader:
    """Reads one element's settings as the broker does (getElementsByTagName(..).item(0), trimmed
    with String.trim), remembering where each came from."""

    __slots__ = ("el", "locator", "fields", "_first", "_nested", "_nowhere")

    def __init__(self, el: etree._Element, locator: Locator, shared: Nowhere | None = None) -> None:
        """``shared``: :func:`nowhere` of ``el`` or of an element it lies below."""
        self.el = el
        self.locator = locator
        self._nowhere = shared
        fields = self.fields = ChildFields(el, locator)
        # Without grandchildren the descendants are the children: their first occurrences are known.
        # Otherwise each name asked for is looked up once, below, and remembered.
        if fields._nested:
            self._nested = True
            direct = fields._direct
            self._first: dict[str, etree._Element | None] = (  # type: ignore[assignment]
                dict(islice(fields._first.items(), direct)) if direct else {})
        else:
            self._nested = False
            self._first = fields._first  # type: ignore[assignment]  (read only: nothing is added to it)

    def element(self, name: str) -> etree._Element | None:
        """The first descendant called ``name`` (getElementsByTagName(name).item(0)), or None."""
        first = self._first
        if name in first:
            return first[name]
        if not self._nested:
            return None
        shared = self._nowhere
        if shared is not None:  # (inlined: a reader's misses are many in a large file)
            root, known = shared
            seen = known.get(name, 0)
            if seen is True:
                first[name] = None
                return None
            if seen is not False:
                if not seen and len(known) >= _MAX_NOWHERE:
                    known.clear()
                if seen < _ASKED:
                    known[name] = seen + 1
                elif next(root.iterdescendants("{*}" + name), None) is None:
                    known[name] = True
                    first[name] = None
                    return None
                else:
                    known[name] = False
        # lxml walks the subtree in C for this one name: no Python object per descendant
        found = next(self.el.iterdescendants("{*}" + name), None)
        first[name] = found
        return found

    def string(self, name: str, default: str | None = None) -> str | None:
        """The trimmed text of the first descendant called ``name`` (getElementsByTagName), or ``default``."""
        found = self._first.get(name)  # (inlined: read very often)
        if found is None:
            if not self._nested or name in self._first:
                return default
            found = self.element(name)
            if found is None:
                return default
        if not len(found):  # the common case: a leaf
            text = found.text
            return text.strip(JAVA_TRIMMED) if text else ""
        return text_content(found).strip(JAVA_TRIMMED)

    def boolean(self, name: str, default: bool) -> bool:
        value = self.string(name)
        return default if value is None else java_bool(value)

    def integer(self, name: str, default: int, bits: int = 32) -> int:
        """The element's number (even one the broker would then reject); ``default`` when absent or
        not a number at all."""
        value = self.string(name)
        if value is None:
            return default
        parsed = java_int(value, bits)
        return default if parsed is None else parsed

    def double(self, name: str, default: float) -> float:
        value = self.string(name)
        parsed = java_double(value) if value is not None else None
        return default if parsed is None else parsed


_ENTITY = re.compile(r"&(?:(amp)|(lt)|(gt)|(quot)|(apos)|#([0-9]+)|#x([0-9A-Fa-f]+));")
_ENTITY_TEXT = {1: "&", 2: "<", 3: ">", 4: '"', 5: "'"}


def _unescape(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group(6) or m.group(7):
            code = int(m.group(6)[-8:]) if m.group(6) else int(m.group(7)[-8:], 16)
            if len((m.group(6) or m.group(7)).lstrip("0")) > 7 or code > 0x10FFFF:
                return m.group(0)  # no such character (the XML parser refused it already)
            return chr(code)
        return _ENTITY_TEXT[m.lastindex or 1]
    return _ENTITY.sub(one, text) if "&" in text else text


def first_child_value(el: etree._Element, cdata: bool = False) -> str | None:
    """``el.getChildNodes().item(0).getNodeValue()``: the first child node's text, or None where
    Java gets null (no child at all, or an element first: the broker then fails with a
    NullPointerException). A comment or processing instruction gives its own text. ``cdata``: the
    document has CDATA sections, which lxml joins to the text around them; then the element is
    serialized to see where the first text node ends."""
    text = el.text
    if text:
        if not cdata:
            return text
        raw = etree.tostring(el, encoding="unicode", with_tail=False)
        body = raw[raw.index(">") + 1:]
        if body.startswith("<![CDATA["):
            return body[9:body.index("]]>")]
        end = body.find("<")
        return _unescape(body if end < 0 else body[:end])
    if not len(el):
        return None
    first = el[0]
    if first.tag is etree.Comment or first.tag is etree.ProcessingInstruction:
        return first.text or ""
    return None
