"""The loader's second ``${}`` pass still sees tokens that only appear once the XML is parsed."""

from __future__ import annotations

import pytest

from artemis_routing_cli.config import LoadOptions, load_text
from tests.conftest import broker_xml


@pytest.mark.parametrize("written", [
    "&#36;{who:dflt}",  # a character reference makes the "$"
    "$&#123;who:dflt}",  # ... or the "{"
    "<![CDATA[$]]>{who:dflt}",  # a CDATA section ends right before the "{"
])
def test_tokens_made_by_the_parser_are_substituted(written: str) -> None:
    config = load_text(broker_xml(f"<name>{written}</name>"), LoadOptions(environ={}))
    assert config.name == "dflt"
    assert [p.name for p in config.properties] == ["who"]


def test_a_file_without_tokens_loads_unchanged() -> None:
    config = load_text(broker_xml("<name>plain &amp; simple</name>"), LoadOptions(environ={}))
    assert config.name == "plain & simple" and config.properties == ()
