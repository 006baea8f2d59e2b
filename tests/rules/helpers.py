"""Helpers for the rule-family tests: wrap a <core> fragment, lint it, pick findings."""

from __future__ import annotations

import re
from pathlib import Path

from artemis_routing_cli.diagnostics import Diagnostic
from artemis_routing_cli.linting import LintSettings, lint_path

REPO = Path(__file__).resolve().parents[2]
CORPUS = (REPO / ".." / "shared" / "corpus" / "artemis-examples").resolve()
MIRROR = Path("/work/.mirror/apache+activemq-artemis/repo")


def wrap(fragment: str) -> str:
    """The fragment's first line is line 2 of the file (line 1 opens <configuration> and <core>)."""
    return ('<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">\n'
            f"{fragment}\n</core></configuration>\n")


def is_whole_file(fragment: str) -> bool:
    """An example that is a whole broker.xml (it starts with the XML declaration) is not wrapped."""
    return fragment.lstrip("\ufeff").startswith("<?xml")


PROPERTIES_MARK = "# broker.properties"
JSON_MARK = "# broker.json"
CR_MARK = "# cr.yaml"
_XML_PROPERTY = re.compile(r"<!-- broker\.properties: (.*?) -->")


def lint_fragment(tmp_path: Path, fragment: str, settings: LintSettings | None = None) -> list[Diagnostic]:
    """A ``# broker.properties`` example is that file beside an empty broker.xml; a ``# broker.json``
    one is the JSON form given with --properties; ``<!-- broker.properties: LINE -->`` comments in an
    XML example are the lines of a broker.properties beside it."""
    path = tmp_path / "broker.xml"
    if fragment.startswith(PROPERTIES_MARK):
        (tmp_path / "broker.properties").write_text(fragment, encoding="utf-8")
        fragment = ""
    elif fragment.startswith(CR_MARK):  # an operator CR: broker 0's view, over an empty broker.xml
        from dataclasses import replace

        from artemis_routing_cli.config.properties import PropertiesOptions

        cr_path = tmp_path / "cr.yaml"
        cr_path.write_text(fragment, encoding="utf-8")
        settings = replace(settings or LintSettings(), broker_properties=PropertiesOptions(cr=str(cr_path), ordinal=0))
        fragment = ""
    elif fragment.startswith(JSON_MARK):
        from dataclasses import replace

        from artemis_routing_cli.config.properties import PropertiesOptions

        json_path = tmp_path / "broker.json"
        json_path.write_text(fragment[len(JSON_MARK) + 1:], encoding="utf-8")
        settings = replace(settings or LintSettings(), broker_properties=PropertiesOptions(paths=(str(json_path),)))
        fragment = ""
    else:
        lines = _XML_PROPERTY.findall(fragment)
        if lines:
            (tmp_path / "broker.properties").write_text("\n".join([PROPERTIES_MARK, *lines]) + "\n",
                                                        encoding="utf-8")
    if is_whole_file(fragment):  # written in the encoding it declares
        m = re.search(r'encoding="([^"]+)"', fragment)
        path.write_bytes(fragment.encode(m.group(1) if m else "utf-8"))
    else:
        path.write_text(wrap(fragment), encoding="utf-8")
    return lint_path(str(path), settings).diagnostics


def only(diags: list[Diagnostic], *rules: str) -> list[Diagnostic]:
    return [d for d in diags if d.rule in rules]


def rules_of(diags: list[Diagnostic]) -> set[str]:
    return {d.rule for d in diags}
