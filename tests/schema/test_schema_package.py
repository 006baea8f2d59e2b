"""The XSD in schemas/ is the one shipped as package data, and it compiles."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from artemis_routing_cli.config.positions import Locator
from artemis_routing_cli.config.schema import (
    SCHEMA_FILES,
    check_schema,
    compiled_schema,
    schema_dir,
    wrap_fragment,
)

REPO = Path(__file__).resolve().parents[2]


def test_repo_schemas_equal_package_data() -> None:
    repo = sorted(p.name for p in (REPO / "schemas").glob("*.xsd"))
    assert repo == sorted(SCHEMA_FILES)
    for name in SCHEMA_FILES:
        assert (REPO / "schemas" / name).read_bytes() == (schema_dir() / name).read_bytes(), name


def test_schema_compiles_once() -> None:
    assert compiled_schema() is compiled_schema()


def test_sections_outside_the_judged_ones_are_ignored() -> None:
    text = wrap_fragment("<bridges><bogus/></bridges>\n<name>x</name>")
    core = etree.fromstring(text.encode())
    assert check_schema(core, Locator("broker.xml", text).locate) == []


def test_xincluded_acceptor_gets_the_brokers_xml_base() -> None:
    # Xerces adds xml:base to the top element of an included file; the broker's schema does not
    # allow it on <acceptor>, so including a lone acceptor stops the broker.
    text = wrap_fragment('<acceptors>\n  <acceptor name="a">tcp://0.0.0.0:61616</acceptor>\n</acceptors>')
    core = etree.fromstring(text.encode())
    locator = Locator("broker.xml", text)
    locator.add_file("acceptor.xml", text)
    locator.mark(core[0][0], "acceptor.xml")
    diags = check_schema(core, locator.locate)
    assert [(d.rule, d.file, d.line, d.message) for d in diags] == [
        ("AR104", "acceptor.xml", 3,
         "<acceptor> cannot be the top element of an XIncluded file: the broker adds xml:base to it, "
         "and its schema does not allow xml:base on <acceptor>"),
    ]


def test_xincluded_section_is_fine() -> None:
    text = wrap_fragment('<acceptors>\n  <acceptor name="a">tcp://0.0.0.0:61616</acceptor>\n</acceptors>')
    core = etree.fromstring(text.encode())
    locator = Locator("broker.xml", text)
    locator.add_file("acceptors.xml", text)
    locator.mark(core[0], "acceptors.xml")
    assert check_schema(core, locator.locate) == []
