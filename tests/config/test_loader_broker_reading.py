"""What the loader records about the ways the broker reads broker.xml differently: ``${}`` with an
empty name, Java's trim in tokens, byte-order marks and encodings, relative XInclude hrefs."""

from __future__ import annotations

from pathlib import Path

from artemis_routing_cli.config import LoadOptions, load, load_text
from artemis_routing_cli.config.substitution import Lookup, substitute
from tests.conftest import broker_xml


def _lookup(**props: str) -> Lookup:
    return Lookup(properties=props, environ={})


def test_empty_property_names_are_invalid() -> None:
    for token in ("${}", "${ }", "${:x}", "${\t:x}"):
        text, reps = substitute(f"a{token}b", _lookup())
        assert text == "ab" and [r.source for r in reps] == ["invalid"], token


def test_token_parts_are_trimmed_like_java() -> None:
    text, reps = substitute("${ p : d }", _lookup(p="v"))
    assert text == "v" and reps[0].name == "p"
    text, reps = substitute("${\u00a0p}", _lookup(p="v"))  # U+00A0 is part of the name for String.trim
    assert text == "" and reps[0].name == "\u00a0p" and reps[0].source == "empty"


def test_invalid_tokens_reach_the_model() -> None:
    cfg = load_text(broker_xml("<!-- ${} --><name>x</name>"), LoadOptions(environ={}))
    assert [(p.token, p.source) for p in cfg.properties] == [("${}", "invalid")]


def test_encoding_facts(tmp_path: Path) -> None:
    p = tmp_path / "b.xml"
    p.write_bytes(b"\xef\xbb\xbf" + broker_xml("<name>x</name>").encode())
    cfg = load(str(p))
    assert cfg.name == "x" and cfg.encoding.bom == "UTF-8" and cfg.encoding.declared == "UTF-8"
    p.write_bytes(broker_xml("<name>caf\u00e9</name>").replace("UTF-8", "ISO-8859-1").encode("latin-1"))
    cfg = load(str(p))
    assert cfg.name == "caf\u00e9"  # arouter decodes as declared (what is meant) and AR707 warns
    assert (cfg.encoding.bom, cfg.encoding.declared, cfg.encoding.ascii_only) == (None, "ISO-8859-1", False)


def test_relative_includes_are_recorded(tmp_path: Path) -> None:
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "names.xml").write_text('<name xmlns="urn:activemq:core">inc</name>', encoding="utf-8")
    main = tmp_path / "etc" / "broker.xml"
    main.write_text(broker_xml('<xi:include href="names.xml"/>', extra_ns=' xmlns:xi="http://www.w3.org/2001/XInclude"'),
                    encoding="utf-8")
    cfg = load(str(main))
    assert cfg.name == "inc"  # read next to broker.xml
    [inc] = cfg.relative_includes
    assert inc.href == "names.xml" and inc.resolved.endswith("names.xml") and inc.pos.line == 4
