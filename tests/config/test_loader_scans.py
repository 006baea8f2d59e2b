"""The loader's quick looks at the text agree with the plain reading they stand for.

``decode`` drops the declaration's ``encoding=`` by matching at the start only (as the anchored
pattern's ``sub`` did, trying every position); ``_find_core`` finds the first ``<core>`` in
document order child by child; ``read_regular`` reads a file in one call where it can; the
"is there a CDATA section / a ``${`` / a ``&#``" looks ask for a rare character first.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lxml import etree

from artemis_routing_cli.config import loader
from artemis_routing_cli.config.loader import LoadOptions, decode, load_document
from artemis_routing_cli.errors import ConfigError
from artemis_routing_cli.safeio import read_regular

CORE = "urn:activemq:core"

DECLARATIONS = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<a/>',
    "  \n<?xml version='1.0'   encoding = 'utf-8' standalone='yes'?><a/>",
    '<?xml version="1.0"?><a x="encoding=\'utf-8\'"/>',
    "<a/>",
    '<a/><?xml-stylesheet encoding="utf-8"?>',
    '\n\n<?xml encoding="UTF-8"?><a>encoding="x"</a>',
    "",
]


@pytest.mark.parametrize("text", DECLARATIONS + ['<?xml version="1.0"\r\n   encoding="UTF-8"\n?>\n<a/>'])
def test_decode_blanks_the_encoding_out(text: str) -> None:
    """The declaration's ``encoding=`` (and the space before it) becomes as many spaces, its line ends
    kept: what the anchored pattern matches, nothing else; every other character where it was."""
    decoded = decode(text.encode("utf-8"), "f.xml")
    m = loader._XML_DECL.match(text)
    assert len(decoded) == len(text)
    if m is None:
        assert decoded == text
    else:
        gone = text[m.end(1):m.end()]
        assert decoded == text[:m.end(1)] + "".join(c if c in "\r\n" else " " for c in gone) + text[m.end():]
        assert "encoding" not in decoded[:m.end()]


@pytest.mark.parametrize("layout", ["one line", "declaration on two lines", "CRLF"])
def test_positions_after_an_encoding_declaration_are_the_files(tmp_path: Path, layout: str) -> None:
    """An element on the declaration's line, or below a declaration written over two lines, is placed
    where it is in the file (dropping ``encoding=`` moved columns, and a line end with it every line)."""
    decl = {"one line": '<?xml version="1.0" encoding="UTF-8"?>',
            "declaration on two lines": '<?xml version="1.0"\n   encoding="UTF-8"?>',
            "CRLF": '<?xml version="1.0"\r\n encoding="UTF-8"?>'}[layout]
    text = (decl + '<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">\n'
            '  <connection-routers><connection-router name="r1"/></connection-routers></core></configuration>\n')
    path = tmp_path / "broker.xml"
    path.write_bytes(text.encode("utf-8"))
    doc = load_document(str(path), LoadOptions(environ={}))
    lines = text.replace("\r\n", "\n").split("\n")
    for tag in ("core", "connection-router"):
        el = next(doc.root.iter(f"{{{CORE}}}{tag}"))
        pos = doc.locator.locate(el)
        line = next(i for i, t in enumerate(lines, 1) if f"<{tag} " in t)
        assert (pos.line, pos.column) == (line, lines[line - 1].index(f"<{tag} ") + 1)


def _core_by_walk(root: etree._Element) -> etree._Element | None:
    return next(root.iter(f"{{{CORE}}}core"), None)


TREES = [
    f'<configuration xmlns="urn:activemq"><core xmlns="{CORE}"/></configuration>',
    f'<core xmlns="{CORE}"><core/></core>',
    f'<configuration><!-- c --><?pi x?><a><b><core xmlns="{CORE}" id="nested"/></b></a>'
    f'<core xmlns="{CORE}" id="child"/></configuration>',
    f'<configuration><a/><b><c/></b><core xmlns="{CORE}" id="second"/></configuration>',
    f'<configuration><a><core id="other-namespace"/></a><core xmlns="{CORE}" id="ok"/></configuration>',
    f'<configuration><a><b/></a><c><core xmlns="{CORE}" id="deep"/></c></configuration>',
]


@pytest.mark.parametrize("xml", TREES)
def test_find_core_is_the_first_core_in_document_order(xml: str) -> None:
    root = etree.fromstring(xml)
    assert loader._find_core(root, "f.xml") is _core_by_walk(root)


def test_no_core_is_refused_as_before() -> None:
    root = etree.fromstring("<configuration><a><b/></a></configuration>")
    with pytest.raises(ConfigError, match="not a broker.xml"):
        loader._find_core(root, "f.xml")


@pytest.mark.parametrize("size", [0, 1, 4095, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 7])
def test_read_regular_reads_every_byte(tmp_path: Path, size: int) -> None:
    data = os.urandom(size)
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    assert read_regular(str(path), limit=size + 10) == data


def test_read_regular_still_refuses_a_file_over_its_limit(tmp_path: Path) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(b"x" * 100)
    with pytest.raises(ConfigError):
        read_regular(str(path), limit=99, error=ConfigError)


@pytest.mark.parametrize(("body", "cdata", "second_pass"), [
    ("<name>plain</name>", False, False),
    ("<name>a [bracket] and a # and a $ alone</name>", False, False),
    ("<name><![CDATA[x]]></name>", True, True),
    ("<name>&#36;{x}</name>", False, True),
    ("<name>&#x41;</name>", False, True),
])
def test_what_the_text_holds_decides_as_before(tmp_path: Path, body: str, cdata: bool, second_pass: bool) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(f'<configuration xmlns="urn:activemq"><core xmlns="{CORE}">{body}</core></configuration>')
    doc = load_document(str(path), LoadOptions(environ={}))
    assert doc.has_cdata is cdata
    # without a second pass the verbatim text is the parsed text itself
    assert (doc.locator.verbatim_text is None) is second_pass


def test_entity_declarations_are_still_found(tmp_path: Path) -> None:
    path = tmp_path / "broker.xml"
    path.write_text('<!DOCTYPE c [<!entity x "y">]><configuration/>')
    with pytest.raises(ConfigError, match="declares XML entities"):
        load_document(str(path), LoadOptions(environ={}))


@pytest.mark.parametrize("text", [" \n\t ", "\u3000\n"])
def test_blank_files_are_empty(tmp_path: Path, text: str) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match="file is empty"):
        load_document(str(path), LoadOptions(environ={}))


@pytest.mark.parametrize("text", ["no token", "a $ alone", "${x}", "a $ and ${y:d}", "$${z}"])
def test_substitution_looks_for_a_dollar_first(text: str) -> None:
    from artemis_routing_cli.config.substitution import Lookup, substitute

    out, reps = substitute(text, Lookup(properties={"x": "X"}, environ={}))
    if "${" not in text:
        assert (out, reps) == (text, [])
    else:
        assert reps and "${" not in out


@pytest.mark.parametrize("text", ["", "$", "{", "${", "x$y{z", "a$$${b", "$ {", "$\n{", "é${", "\U0001f600${x}", "}{$"])
def test_has_opening_is_the_plain_search(text: str) -> None:
    from artemis_routing_cli.config.substitution import has_opening

    assert has_opening(text) is ("${" in text)
    assert has_opening(text * 3) is ("${" in text * 3)


@pytest.mark.parametrize("uri", ["http://www.w3.org/2001/XInclude", "http://www.w3.org/2001/&#88;Include",
                                 "http://www.w3.org/2001/&#x58;Include", "&#104;ttp://www.w3.org/2001/XInclude"])
def test_an_include_is_expanded_however_its_namespace_is_written(tmp_path: Path, uri: str) -> None:
    """The include is looked for where XInclude's namespace may be written: an "X" in the text, or
    a character reference that may stand for one (the loader skips the walk otherwise)."""
    (tmp_path / "routers.xml").write_text('<connection-routers xmlns="urn:activemq:core"><connection-router '
                                          'name="inc"/></connection-routers>', encoding="utf-8")
    main = tmp_path / "broker.xml"
    main.write_text(f'<configuration xmlns="urn:activemq" xmlns:xi="{uri}"><core xmlns="urn:activemq:core">'
                    '<xi:include href="routers.xml"/></core></configuration>', encoding="utf-8")
    doc = load_document(str(main), LoadOptions(environ={}))
    assert [el.get("name") for el in doc.core.iter(f"{{{CORE}}}connection-router")] == ["inc"]
    assert doc.included


def test_a_text_without_an_x_or_a_reference_has_no_include(tmp_path: Path) -> None:
    main = tmp_path / "broker.xml"
    main.write_text('<configuration xmlns="urn:activemq" xmlns:xi="urn:not-xinclude"><core xmlns="urn:activemq:core">'
                    '<xi:include href="routers.xml"/></core></configuration>', encoding="utf-8")
    doc = load_document(str(main), LoadOptions(environ={}))
    assert not doc.included and next(doc.core.iter("{urn:not-xinclude}include")) is not None


BYTES_OR_TEXT = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">'
    '<name>n</name></core></configuration>',
    "<?xml version='1.0' encoding='utf8'?><configuration><core/></configuration>",
    '<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"/></configuration>',
    '<?xml version="1.0" encoding="UTF-8"?>\n<configuration><core><a></b></core></configuration>',  # malformed
    '<?xml version="1.0" encoding="UTF-8"?>\n<configuration>\n  <core>\n <x a="1" a="2"/></core></configuration>',
    '<?xml version="1.0"\n encoding="UTF-8"?><configuration><core><!-- c --><?pi x?>t&amp;&#65;</core></configuration>',
]


@pytest.mark.parametrize("text", BYTES_OR_TEXT)
def test_a_plain_utf8_file_parsed_from_its_bytes_is_the_text_parsed(text: str) -> None:
    """A plain (ASCII, UTF-8 or undeclared) file nothing substitutes is parsed from its bytes: the tree,
    or the error and its place, are those of the text with its declaration's encoding blanked out."""
    data = text.encode("utf-8")
    assert loader._plain_utf8(data)

    def outcome(raw: bytes | None) -> object:
        try:
            tree = loader.parse_text(loader.blank_encoding(text), "f.xml", raw)
        except ConfigError as err:
            return (str(err), err.line, err.column)
        return [(el.tag, el.text, el.tail, el.sourceline, dict(el.attrib)) for el in tree.iter()]

    assert outcome(data) == outcome(None)


@pytest.mark.parametrize("data", [b'<?xml version="1.0" encoding="ISO-8859-1"?><a/>',
                                  '<a>é</a>'.encode(), b"\xef\xbb\xbf<a/>",
                                  '<?xml version="1.0" encoding="UTF-16"?><a/>'.encode("utf-16")])
def test_other_files_are_parsed_from_their_text(data: bytes) -> None:
    assert not loader._plain_utf8(data)


@pytest.mark.parametrize("declaration", ['<?xml version="1.0" encoding="UTF-8"?>\n', ""])
def test_a_forbidden_character_in_a_plain_file_is_placed(tmp_path: Path, declaration: str) -> None:
    path = tmp_path / "broker.xml"
    path.write_bytes((declaration + "<configuration>\n  <core>a\x01b</core></configuration>").encode())
    with pytest.raises(ConfigError, match="U\\+0001 is not allowed") as err:
        load_document(str(path), LoadOptions(environ={}))
    assert (err.value.line, err.value.column) == (2 + bool(declaration), 10)
