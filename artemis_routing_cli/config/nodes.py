"""Reading lxml elements the way the broker's DOM code reads them.

The broker's FileConfigurationParser uses ``getElementsByTagName`` (first matching *descendant*),
``getTextContent().trim()`` (Java's trim: chars <= U+0020 only), and in a few places
``getChildNodes().item(0).getNodeValue()``: the *first child node*, which may be a comment, a
CDATA section or a text node that ends where a comment or CDATA section begins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from itertools import compress, count
from operator import attrgetter

from lxml import etree

from ..javastr import JAVA_TRIMMED, java_parse_boolean, java_parse_double, java_parse_integer, java_trim
from .model import FieldValue
from .positions import Locator

# tag -> local name, for the tags met (a document has few distinct ones; bounded all the same)
_LOCAL_NAMES: dict[str, str] = {}
_MAX_NAMES = 4096
_TAG = attrgetter("tag")
_FEW = 10  # child nodes up to which ChildFields keeps their layout for the next element written alike


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


class _Layout:
    """What a sequence of child nodes' tags says, worked out once per sequence: each node's local
    name (None: a comment, processing instruction or entity reference), the index of each name's
    first element, how many elements have each name."""

    __slots__ = ("names", "first", "counts", "repeated", "plain")

    def __init__(self, tags: tuple[object, ...]) -> None:
        names: list[str | None] = []
        first: dict[str, int] = {}
        counts: dict[str, int] = {}
        for i, tag in enumerate(tags):
            if not isinstance(tag, str):
                names.append(None)
                continue
            name = _LOCAL_NAMES.get(tag)
            if name is None:
                name = _local_name(tag)
            names.append(name)
            if name in counts:
                counts[name] += 1
            else:
                first[name] = i
                counts[name] = 1
        self.names = tuple(names)
        self.first = first
        self.counts = counts
        self.repeated = len(first) != len(names) - names.count(None)
        self.plain = None not in names  # every node an element


# child tags -> their layout: elements written alike share one (a large file has a handful of shapes)
_LAYOUTS: dict[tuple[object, ...], _Layout] = {}
_MAX_LAYOUTS = 512
_FLAT = 1 << 62  # ``_nest`` of an element whose children have no child nodes


def _layout(tags: tuple[object, ...]) -> _Layout:
    layout = _LAYOUTS.get(tags)
    if layout is None:
        if len(_LAYOUTS) >= _MAX_LAYOUTS:
            _LAYOUTS.clear()
        layout = _LAYOUTS[tags] = _Layout(tags)
    return layout


class ChildFields(Mapping[str, FieldValue]):
    """An element's child elements by local name, in document order: for each name the trimmed text
    and position of its first occurrence and how many there are.

    Text and position are read when a name is first looked up: most are never asked for.
    """

    __slots__ = ("_el", "_locator", "_nodes", "_layout", "_nest", "_values", "_found", "_nowhere")

    def __init__(self, el: etree._Element, locator: Locator, shared: Nowhere | None = None) -> None:
        """``shared`` (for a :class:`Reader`): :func:`nowhere` of ``el`` or of an element it lies below."""
        self._el = el
        self._locator = locator
        self._nowhere = shared
        self._found: dict[str, etree._Element | None] | None = None  # a Reader's descendants searched for
        self._values: dict[str, FieldValue] | None = None
        nodes = self._nodes = el[:]  # every child node, comments and PIs too
        tags = tuple(map(_TAG, nodes))
        if len(nodes) > _FEW:  # <core> and the like: a long list of children is seldom written twice
            self._layout = _Layout(tags)
        else:  # laid out as the last element with these tags was
            layout = _LAYOUTS.get(tags)
            self._layout = layout if layout is not None else _layout(tags)
        # No node before ``_nest`` has child nodes: a name first written before it (or at it) is
        # written nowhere in an earlier subtree, so that child is the name's first descendant.
        # Children are counted only up to the first node that has some: lxml counts them one by one,
        # and <core>'s sections can hold tens of thousands.
        self._nest = next(compress(count(), map(len, nodes)), _FLAT)

    def element(self, name: str) -> etree._Element | None:
        """The first child element called ``name`` (any namespace), or None."""
        i = self._layout.first.get(name)
        return None if i is None else self._nodes[i]

    def elements(self, names: tuple[str, ...]) -> list[etree._Element | None]:
        """``[self.element(name) for name in names]`` in one call."""
        first, nodes = self._layout.first, self._nodes
        out: list[etree._Element | None] = []
        for name in names:
            i = first.get(name)
            out.append(None if i is None else nodes[i])
        return out

    def children(self) -> Iterable[tuple[str, etree._Element]]:
        """Every child element with its local name, in document order (repeated names included)."""
        layout = self._layout
        if layout.plain:
            return zip(layout.names, self._nodes)  # noqa: B905 (as long by construction)
        return [(name, node) for name, node in zip(layout.names, self._nodes) if name is not None]  # noqa: B905

    def count(self, name: str) -> int:
        """How many child elements are called ``name`` (0 when none)."""
        return self._layout.counts.get(name, 0)

    @property
    def repeated(self) -> bool:
        """Whether some name occurs more than once among the child elements."""
        return self._layout.repeated

    def _text_at(self, i: int) -> str:
        node = self._nodes[i]
        if i < self._nest:  # a node without child nodes
            text = node.text
            return text.strip(JAVA_TRIMMED) if text else ""
        return _element_text(node).strip(JAVA_TRIMMED)

    def __getitem__(self, name: str) -> FieldValue:
        values = self._values
        if values is None:
            values = self._values = {}
        else:
            value = values.get(name)
            if value is not None:  # the same value whoever reads it first
                return value
        layout = self._layout
        i = layout.first[name]
        value = values[name] = FieldValue(self._text_at(i), self._locator.locate(self._nodes[i]), layout.counts[name])
        return value

    def text(self, name: str) -> str | None:
        """``self[name].text`` (None when there is no such child), without working out its position."""
        values = self._values
        if values is not None:
            value = values.get(name)
            if value is not None:
                return value.text
        i = self._layout.first.get(name)
        return None if i is None else self._text_at(i)

    def get(self, name: str, default: FieldValue | None = None) -> FieldValue | None:  # type: ignore[override]
        return self[name] if name in self._layout.first else default

    def __contains__(self, name: object) -> bool:
        return name in self._layout.first

    def __iter__(self) -> Iterator[str]:
        return iter(self._layout.first)

    def __len__(self) -> int:
        return len(self._layout.first)

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


_NO_NAMES: dict[str, int | bool] = {}


def nowhere(root: etree._Element) -> Nowhere:
    """What the readers of elements below ``root`` share to learn the names written nowhere below it."""
    return root, {}


class Reader(ChildFields):
    """Reads one element's settings as the broker does (getElementsByTagName(..).item(0), trimmed
    with String.trim), remembering where each came from. It is its own :attr:`fields` (the model
    keeps it as the element's child fields): one object per element read."""

    __slots__ = ()

    @property
    def el(self) -> etree._Element:
        return self._el

    @property
    def locator(self) -> Locator:
        return self._locator

    @property
    def fields(self) -> ChildFields:
        return self

    def element(self, name: str) -> etree._Element | None:
        """The first descendant called ``name`` (getElementsByTagName(name).item(0)), or None."""
        i = self._layout.first.get(name)
        if i is not None and i <= self._nest:
            return self._nodes[i]
        if self._nest == _FLAT:
            return None
        found = self._found
        if found is None:
            found = self._found = {}
        elif name in found:
            return found[name]
        shared = self._nowhere
        if shared is not None:  # (inlined: a reader's misses are many in a large file)
            root, known = shared
            seen = known.get(name, 0)
            if seen is True:
                found[name] = None
                return None
            if seen is not False:
                if not seen and len(known) >= _MAX_NOWHERE:
                    known.clear()
                if seen < _ASKED:
                    known[name] = seen + 1
                elif next(root.iterdescendants("{*}" + name), None) is None:
                    known[name] = True
                    found[name] = None
                    return None
                else:
                    known[name] = False
        # lxml walks the subtree in C for this one name: no Python object per descendant
        result = found[name] = next(self._el.iterdescendants("{*}" + name), None)
        return result

    def string(self, name: str, default: str | None = None) -> str | None:
        """The trimmed text of the first descendant called ``name`` (getElementsByTagName), or ``default``."""
        i = self._layout.first.get(name)  # (inlined: read very often)
        nest = self._nest
        if i is not None and i < nest:  # a child without child nodes, no subtree before it
            text = self._nodes[i].text
            return text.strip(JAVA_TRIMMED) if text else ""
        if nest == _FLAT:
            return default
        found = self.element(name)
        if found is None:
            return default
        if not len(found):  # the common case: a leaf
            text = found.text
            return text.strip(JAVA_TRIMMED) if text else ""
        return text_content(found).strip(JAVA_TRIMMED)

    def strings(self, names: tuple[str, ...]) -> list[str | None]:
        """``[self.string(name) for name in names]`` in one call."""
        first, nodes, nest = self._layout.first, self._nodes, self._nest
        known = self._nowhere[1] if self._nowhere is not None else _NO_NAMES
        out: list[str | None] = []
        for name in names:
            i = first.get(name)
            if i is not None and i < nest:
                text = nodes[i].text
                out.append(text.strip(JAVA_TRIMMED) if text else "")
            elif nest == _FLAT or known.get(name) is True:  # no such child; or no such name below the root
                out.append(None)
            else:
                out.append(self.string(name))
        return out

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


# The classes a model's ``fields`` are when the model read the element's children (a Reader keeps
# itself as its fields): ``type(fields) in READ_FIELDS`` tells them without an ABC instance check.
READ_FIELDS = (ChildFields, Reader)


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
