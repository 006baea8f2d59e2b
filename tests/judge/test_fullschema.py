"""The whole-file check against the schema inside the installation's artemis-server jar (AR107), in process:
after ${} and XInclude as the broker reads the file, every typo found, positions in the file that holds it,
bounded on hostile input. No JVM: this is the Python half of validate --broker-home."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from artemis_routing_cli.config.brokerhome import read_broker_home
from artemis_routing_cli.config.fullschema_rules import BROKER_SCHEMA_RULES
from artemis_routing_cli.linting import LintSettings, lint_path
from tests.artemis_dist import artemis_home
from tests.rules.helpers import wrap


@pytest.fixture(scope="module")
def settings() -> LintSettings:
    return LintSettings(broker_home=read_broker_home(str(artemis_home("2.40.0"))))


def _ar107(path: Path, settings: LintSettings, **defines: str) -> list:
    if defines:
        settings = LintSettings(properties=defines, broker_home=settings.broker_home)
    return [d for d in lint_path(str(path), settings).raw if d.rule == "AR107"]


def test_the_documented_examples(tmp_path: Path, settings: LintSettings) -> None:
    doc = BROKER_SCHEMA_RULES[0].doc
    fail, ok = re.findall(r"```xml\n(.*?)```", doc, re.S)
    (tmp_path / "fail.xml").write_text(wrap(fail), encoding="utf-8")
    (tmp_path / "ok.xml").write_text(wrap(ok), encoding="utf-8")
    found = _ar107(tmp_path / "fail.xml", settings)
    assert [(d.line, d.column, d.hint) for d in found] == [(2, 1, "did you mean <journal-type>?")]
    assert _ar107(tmp_path / "ok.xml", settings) == []


def test_a_typo_in_an_included_file_is_placed_there(tmp_path: Path, settings: LintSettings) -> None:
    (tmp_path / "settings.xml").write_text(
        '<address-settings xmlns="urn:activemq:core">\n  <address-setting match="#">\n'
        "    <max-siz-bytes>1</max-siz-bytes>\n  </address-setting>\n</address-settings>\n", encoding="utf-8")
    (tmp_path / "broker.xml").write_text(
        '<configuration xmlns="urn:activemq" xmlns:xi="http://www.w3.org/2001/XInclude">\n'
        '<core xmlns="urn:activemq:core">\n<xi:include href="settings.xml"/>\n</core>\n</configuration>\n',
        encoding="utf-8")
    found = _ar107(tmp_path / "broker.xml", settings)
    assert len(found) == 1 and found[0].file.endswith("settings.xml") and (found[0].line, found[0].column) == (3, 5)


def test_values_are_checked_after_substitution(tmp_path: Path, settings: LintSettings) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(wrap("<persistence-enabled>${p}</persistence-enabled>"), encoding="utf-8")
    assert _ar107(path, settings, p="true") == []
    found = _ar107(path, settings, p="maybe")
    assert len(found) == 1 and found[0].line == 2 and found[0].broker == "refuses-to-start"


def test_every_unexpected_element_is_listed_not_only_the_first(tmp_path: Path, settings: LintSettings) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(wrap("<jornal-type>NIO</jornal-type>\n<persistance-enabled>true</persistance-enabled>\n"
                         "<security-enabld>false</security-enabld>"), encoding="utf-8")
    assert [d.line for d in _ar107(path, settings)] == [2, 3, 4]


def test_a_hostile_element_is_bounded(tmp_path: Path, settings: LintSettings) -> None:
    attrs = " ".join(f'a{i}="x"' for i in range(20_000))
    path = tmp_path / "broker.xml"
    path.write_text(wrap(f"<journal-type {attrs}>NIO</journal-type>\n" + "<bogus/>\n" * 3000), encoding="utf-8")
    found = _ar107(path, settings)
    assert 0 < len(found) <= 2_000 + 50
