"""The model's view of an element's children, and ``_Reader.string`` (getElementsByTagName)."""

from __future__ import annotations

import pytest
from lxml import etree

from artemis_routing_cli.config import LoadOptions, load_document
from artemis_routing_cli.config.parse import ChildFields, _Reader, nowhere, text_content
from tests.conftest import broker_xml


def _element(tmp_path, inner: str) -> tuple[etree._Element, object]:
    path = tmp_path / "broker.xml"
    path.write_text(broker_xml(f"<connection-routers>{inner}</connection-routers>"), encoding="utf-8")
    doc = load_document(str(path), LoadOptions(environ={}))
    return next(doc.core.iter("{*}connection-router")), doc.locator


def _first_descendant_text(el: etree._Element, name: str) -> str | None:
    found = next(el.iterdescendants("{*}" + name), None)
    return text_content(found).strip() if found is not None else None


ROUTERS = [
    "<connection-router name='r'><key-type> CLIENT_ID </key-type><key-filter>a</key-filter></connection-router>",
    # a descendant before the child of that name wins (the broker's getElementsByTagName)
    "<connection-router name='r'><pool><key-type>inner</key-type></pool><key-type>outer</key-type></connection-router>",
    "<connection-router name='r'><key-type>a<!-- c -->b</key-type><pool><username>u</username></pool>"
    "<username>v</username><policy name='x'><property key='k' value='v'/></policy></connection-router>",
    "<connection-router name='r'><key-type/><key-type>second</key-type><cache><timeout>1</timeout></cache>"
    "</connection-router>",
]


@pytest.mark.parametrize("inner", ROUTERS)
def test_string_is_the_first_descendants_trimmed_text(tmp_path, inner: str) -> None:
    el, locator = _element(tmp_path, inner)
    names = {d.tag.rpartition("}")[2] for d in el.iterdescendants(etree.Element)} | {"absent"}
    for name in sorted(names):
        reader = _Reader(el, locator)  # fresh: the first question builds what later ones use
        assert reader.string(name, "dflt") == (_first_descendant_text(el, name) or
                                               ("dflt" if _first_descendant_text(el, name) is None else ""))


def test_child_fields_count_and_find_children(tmp_path) -> None:
    el, locator = _element(tmp_path, ROUTERS[3])
    fields = ChildFields(el, locator)
    assert fields.count("key-type") == 2 and fields.count("cache") == 1 and fields.count("absent") == 0
    assert fields.repeated
    assert fields.element("key-type") is next(el.iterchildren("{*}key-type"))
    assert fields.element("absent") is None
    assert fields.get("absent") is None and fields.get("absent", "x") == "x"  # type: ignore[comparison-overlap]
    assert fields.get("key-type") == fields["key-type"] and fields["key-type"].text == ""
    assert fields["key-type"].count == 2
    single, _ = _element(tmp_path, ROUTERS[0])
    assert not ChildFields(single, locator).repeated


def _random_router(rng, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(0, 5)):
        name = rng.choice(("key-type", "pool", "username", "cache", "policy"))
        roll = rng.random()
        if roll < 0.15:
            parts.append("<!-- c -->")
        elif roll < 0.45 and depth < 3:
            parts.append(f"<{name}>{_random_router(rng, depth + 1)}</{name}>")
        else:
            parts.append(f"<{name}>v{rng.randint(0, 99)}</{name}>")
    return "".join(parts)


@pytest.mark.parametrize("seed", range(60))
def test_reader_finds_the_first_descendant_in_any_tree(tmp_path, seed: int) -> None:
    import random

    rng = random.Random(seed)
    el, locator = _element(tmp_path, f"<connection-router name='r'>{_random_router(rng)}</connection-router>")
    names = ["key-type", "pool", "username", "cache", "policy", "absent"]
    reader = _Reader(el, locator)  # one reader asked every name, in a random order
    rng.shuffle(names)
    for name in names:
        expected = next(el.iterdescendants("{*}" + name), None)
        assert reader.element(name) is expected, name
        assert _Reader(el, locator).element(name) is expected, name
        fields = ChildFields(el, locator)
        assert fields.count(name) == sum(1 for _ in el.iterchildren("{*}" + name))
        assert fields.element(name) is next(el.iterchildren("{*}" + name), None)
        text = fields.text(name)  # before and after the field itself is read: the same text
        assert text == (fields[name].text if name in fields else None) == fields.text(name)


def _random_children(rng, depth: int = 0) -> str:
    """Children as the common case writes them (each name once, no comment) and as it does not:
    repeated names, comments, processing instructions, names never seen before, other namespaces."""
    parts = []
    for _ in range(rng.randint(0, 6 if depth else 24)):  # a few children, or more than ChildFields reads at once
        name = rng.choice(("key-type", "pool", "username", "cache", "policy", f"new-{rng.randint(0, 10**9)}"))
        roll = rng.random()
        if roll < 0.08:
            parts.append("<!-- c -->")
        elif roll < 0.12:
            parts.append("<?pi x?>")
        elif roll < 0.16:
            parts.append(f"<o:{name} xmlns:o='urn:other'>w</o:{name}>")
        elif roll < 0.4 and depth < 2:
            parts.append(f"<{name}>{_random_children(rng, depth + 1)}</{name}>")
        else:
            parts.append(f"<{name}> v{rng.randint(0, 99)} </{name}>")
    return "".join(parts)


@pytest.mark.parametrize("seed", range(80))
def test_child_fields_equal_a_plain_reading_of_the_children(tmp_path, seed: int) -> None:
    """ChildFields works the common case out in C: on any children it says what a walk over the
    child elements says (names in document order, first element, count, text, children())."""
    import random

    rng = random.Random(seed)
    el, locator = _element(tmp_path, f"<connection-router name='r'>{_random_children(rng)}</connection-router>")
    shared = nowhere(el)
    for node in [el, *el.iterdescendants(etree.Element)]:
        children = [(child.tag.rpartition("}")[2], child) for child in node.iterchildren(etree.Element)]
        names = list(dict.fromkeys(name for name, _ in children))
        for _ in range(2):  # a second reading: every name is known by then
            fields = ChildFields(node, locator)
            assert list(fields) == names and len(fields) == len(names)
            assert list(fields.children()) == children
            assert fields.repeated == (len(names) != len(children))
            for name in names:
                assert fields.element(name) is next(child for n, child in children if n == name)
                assert fields.count(name) == sum(1 for n, _ in children if n == name)
                assert fields[name].text == text_content(fields.element(name)).strip(
                    "".join(chr(c) for c in range(0x21)))
            reader = _Reader(node, locator)
            # told which names occur nowhere below the router: the same answers without searching for those
            told = _Reader(node, locator, shared)
            for name in [*names, "key-type", "username", "cache", "policy", "absent"]:
                expected = next(node.iterdescendants("{*}" + name), None)
                assert reader.element(name) is expected, name
                assert told.element(name) is expected and told.string(name) == reader.string(name), name


def test_readers_learn_the_names_written_nowhere_in_bounded_memory(tmp_path) -> None:
    from artemis_routing_cli.config import nodes

    el, locator = _element(tmp_path, ROUTERS[2])
    shared = nowhere(el)
    for _ in range(2 * nodes._ASKED):  # readers search on their own, then the router's subtree is searched once
        assert _Reader(el, locator, shared).element("absent") is None
        assert _Reader(el, locator, shared).element("username") is next(el.iterdescendants("{*}username"))
    assert shared[1]["absent"] is True and shared[1]["username"] is False
    for n in range(3 * nodes._MAX_NOWHERE):
        assert _Reader(el, locator, shared).element(f"name-{n}") is None
    assert len(shared[1]) <= nodes._MAX_NOWHERE
    assert _Reader(el, locator, shared).element("username") is next(el.iterdescendants("{*}username"))
