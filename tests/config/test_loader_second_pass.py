"""The loader's second ``${}`` pass still sees tokens that only appear once the XML is parsed."""

from __future__ import annotations

import pytest

from artemis_routing_cli.config import LoadOptions, load_text
from tests.conftest import broker_xml


@pytest.mark.parametrize("written", [
    "&#36;{who:dflt}",  # a character reference makes the "$"
    "$&#123;who:dflt}",  # ... or the "{"
    "<![CDATA[${who:dflt}]]>",  # a whole token inside one CDATA section
])
def test_tokens_made_by_the_parser_are_substituted(written: str) -> None:
    config = load_text(broker_xml(f"<name>{written}</name>"), LoadOptions(environ={}))
    assert config.name == "dflt"
    assert [p.name for p in config.properties] == ["who"]


@pytest.mark.parametrize("written", ["<![CDATA[$]]>{who:dflt}", "$<![CDATA[{who:dflt}]]>"])
def test_a_token_split_by_a_cdata_section_stays(written: str) -> None:
    """The broker's DOM keeps a CDATA section as a node of its own and its second pass replaces
    ``${..}`` node by node (JDK's Xerces, checked with a JVM): a token cut by the section's edge
    is never replaced."""
    config = load_text(broker_xml(f"<name>{written}</name>"), LoadOptions(environ={}))
    assert config.name == "${who:dflt}"
    assert config.properties == ()


def test_a_file_without_tokens_loads_unchanged() -> None:
    config = load_text(broker_xml("<name>plain &amp; simple</name>"), LoadOptions(environ={}))
    assert config.name == "plain & simple" and config.properties == ()
