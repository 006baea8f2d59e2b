"""Helpers for the schema tests: a stand-in loader until the real one exists."""

from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from artemis_routing_cli.config.positions import Locator, Pos
from artemis_routing_cli.config.schema import check_schema, wrap_fragment
from artemis_routing_cli.diagnostics import Diagnostic

CORE = "{urn:activemq:core}core"
CORPUS = Path(__file__).resolve().parents[2] / "../shared/corpus"
_TOKEN = re.compile(r"\$\{([^}]*)\}")


def substitute(text: str) -> str:
    """``${name:default}`` -> default, ``${name}`` -> '' (no system properties in tests)."""

    def value(match: re.Match[str]) -> str:
        _, sep, default = match.group(1).partition(":")
        return default.strip() if sep else ""

    return _TOKEN.sub(value, text)


def load_core(text: str, name: str = "broker.xml") -> tuple[etree._Element, Locator]:
    text = substitute(text)
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    root = etree.fromstring(text.encode("utf-8"), parser)
    core = root if root.tag == CORE else root.find(CORE)
    assert core is not None, f"no <core> in {name}"
    return core, Locator(name, text)


def check_text(text: str, name: str = "broker.xml") -> list[Diagnostic]:
    core, locator = load_core(text, name)
    return check_schema(core, locator.locate)


def check_fragment(fragment: str) -> list[Diagnostic]:
    """Validate section fragments wrapped in ``<core>``; line 1 is the ``<core>`` line."""
    return check_text(wrap_fragment(fragment))


def brief(diags: list[Diagnostic]) -> list[tuple[str, int, int, str]]:
    return [(d.rule, d.line, d.column, d.message) for d in diags]


def at(line: int, column: int) -> Pos:
    return Pos("broker.xml", line, column)
