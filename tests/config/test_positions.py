"""Positions: what the Locator hands out (found on first read) equals the position itself."""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError

import pytest
from lxml import etree

from artemis_routing_cli.config import LoadOptions, load_document
from artemis_routing_cli.config.positions import Pos
from tests.conftest import broker_xml

CORE = """    <connectors>
      <connector name="a">tcp://a:61616</connector>
    </connectors>
    <diverts><divert name="d"><address>x</address><forwarding-address>y</forwarding-address></divert></diverts>
    <!-- a comment -->"""


def _doc(tmp_path):
    path = tmp_path / "broker.xml"
    path.write_text(broker_xml(CORE), encoding="utf-8")
    return load_document(str(path), LoadOptions(environ={}))


def test_located_positions_are_line_and_column_of_the_tag(tmp_path) -> None:
    doc = _doc(tmp_path)
    by_tag = {el.tag.rpartition("}")[2] if isinstance(el.tag, str) else "comment": el for el in doc.core.iter()}
    file = str(tmp_path / "broker.xml")
    assert doc.locator.locate(by_tag["connector"]) == Pos(file, 5, 7)
    assert doc.locator.locate(by_tag["divert"]) == Pos(file, 7, 14)  # "<divert", not the "<diverts" before it
    assert doc.locator.locate(by_tag["address"]) == Pos(file, 7, 31)
    assert doc.locator.locate(by_tag["comment"]) == Pos(file, 8, 5)


def test_a_located_position_behaves_as_a_plain_one(tmp_path) -> None:
    doc = _doc(tmp_path)
    el = next(doc.core.iter("{*}connector"))
    lazy, plain = doc.locator.locate(el), Pos(str(tmp_path / "broker.xml"), 5, 7)
    assert hash(lazy) == hash(plain) and lazy == plain and {lazy: 1}[plain] == 1
    assert repr(lazy) == repr(plain) == f"Pos(file={plain.file!r}, line=5, column=7)"
    assert str(lazy) == f"{plain.file}:5:7"
    assert (lazy.file, lazy.line, lazy.column) == (plain.file, 5, 7)


@pytest.mark.parametrize("make", [lambda p: p, lambda p: copy.copy(p), lambda p: copy.deepcopy(p),
                                  lambda p: pickle.loads(pickle.dumps(p))])
def test_copies_and_pickles_keep_the_place(tmp_path, make) -> None:
    doc = _doc(tmp_path)
    pos = make(doc.locator.locate(next(doc.core.iter("{*}divert"))))
    assert pos == Pos(str(tmp_path / "broker.xml"), 7, 14)


def test_positions_are_immutable_and_match_by_fields() -> None:
    pos = Pos("f.xml", 3, 4)
    with pytest.raises(FrozenInstanceError):
        pos.line = 5  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del pos.file  # type: ignore[misc]
    match pos:
        case Pos(file, line, column):
            assert (file, line, column) == ("f.xml", 3, 4)
    assert pos != ("f.xml", 3, 4) and pos != Pos("f.xml", 3, 5)


def test_siblings_on_one_line_each_get_their_own_column(tmp_path) -> None:
    path = tmp_path / "broker.xml"
    line = ('    <diverts><divert name="d1"><address>a</address></divert>'
            '<divert name="d2"><address>b</address></divert></diverts>')
    path.write_text(broker_xml(line), encoding="utf-8")
    doc = load_document(str(path), LoadOptions(environ={}))
    d1, d2 = [el for el in doc.core.iter() if isinstance(el.tag, str) and el.tag.endswith("}divert")]
    text = path.read_text(encoding="utf-8").splitlines()[doc.locator.locate(d1).line - 1]
    # <divert> after <diverts> on the same line: not the column of <diverts>
    assert doc.locator.locate(d1).column == text.index('<divert name="d1"') + 1
    assert doc.locator.locate(d2).column == text.index('<divert name="d2"') + 1
    a, b = [el for el in doc.core.iter() if isinstance(el.tag, str) and el.tag.endswith("}address")]
    assert doc.locator.locate(b).column == text.index("<address>b") + 1


@pytest.mark.parametrize("breaker", ["\u2028", "\u2029", "\x85", "\r"])
def test_only_a_line_feed_ends_a_line(tmp_path, breaker) -> None:
    """libxml2 numbers lines by LF alone: a U+2028, U+0085 or lone CR in a comment (XML allows them)
    moves no later position, lines or columns."""
    core = f"    <!-- a{breaker}b{breaker}c -->\n" + CORE
    path = tmp_path / "broker.xml"
    path.write_text(broker_xml(core), encoding="utf-8", newline="")
    doc = load_document(str(path), LoadOptions(environ={}))
    by_tag = {el.tag.rpartition("}")[2]: el for el in doc.core.iter(etree.Element)}
    file = str(path)
    assert doc.locator.locate(by_tag["connector"]) == Pos(file, 6, 7)
    assert doc.locator.locate(by_tag["divert"]) == Pos(file, 8, 14)
    assert doc.locator.locate(by_tag["address"]) == Pos(file, 8, 31)


def test_crlf_lines_keep_their_columns(tmp_path) -> None:
    path = tmp_path / "broker.xml"
    path.write_bytes(broker_xml(CORE).replace("\n", "\r\n").encode("utf-8"))
    doc = load_document(str(path), LoadOptions(environ={}))
    divert = next(doc.core.iter("{*}divert"))
    assert doc.locator.locate(divert) == Pos(str(path), 7, 14)
