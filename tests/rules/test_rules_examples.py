"""Every documented example is a test: each rule fires on its `fail` fragment, not on its `ok` one."""

from __future__ import annotations

import re

import pytest

from artemis_routing_cli.diagnostics import CATEGORIES, Severity
from artemis_routing_cli.rules import all_rules, families

from .helpers import is_whole_file, lint_fragment, only

FAMILY_RULES = [meta for mod in families() for meta in mod.RULES]
IDS = [m.id for m in FAMILY_RULES]
RANGES = {"2": "reference", "3": None, "4": "security", "5": None, "6": None, "7": None}


def test_every_family_rule_is_registered_once() -> None:
    assert len(IDS) == len(set(IDS))
    registered = all_rules()
    for meta in FAMILY_RULES:
        assert registered[meta.id] is meta


def test_the_required_rule_ids_exist() -> None:
    required = {f"AR2{n:02d}" for n in range(1, 9)} | {f"AR3{n:02d}" for n in range(1, 17)}
    required |= {"AR401", "AR402", "AR403"} | {f"AR50{n}" for n in range(1, 7)}
    required |= {"AR601", "AR602", "AR701", "AR702"}
    assert required <= set(IDS)


@pytest.mark.parametrize("meta", FAMILY_RULES, ids=IDS)
def test_metadata_shape(meta) -> None:
    assert re.fullmatch(r"AR[2-7]\d\d", meta.id)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", meta.name)
    assert meta.category in CATEGORIES and meta.category != "schema"
    expected = RANGES[meta.id[2]]
    if expected is not None:
        assert meta.category == expected
    assert isinstance(meta.severity, Severity)
    assert "\n" not in meta.summary and meta.summary.strip()
    assert meta.doc.strip() and meta.fail.strip() and meta.ok.strip()


def test_names_are_unique() -> None:
    names = [m.name for m in all_rules().values()]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("meta", FAMILY_RULES, ids=IDS)
def test_fail_fragment_fires_its_rule(tmp_path, meta) -> None:
    hits = only(lint_fragment(tmp_path, meta.fail), meta.id)
    assert hits, f"{meta.id} did not fire on its documented FAIL example"
    for d in hits:
        assert "\n" not in d.message
        assert d.line >= (1 if is_whole_file(meta.fail) else 2)  # points into the fragment, not at the wrapper


@pytest.mark.parametrize("meta", FAMILY_RULES, ids=IDS)
def test_ok_fragment_is_quiet(tmp_path, meta) -> None:
    assert only(lint_fragment(tmp_path, meta.ok), meta.id) == []


@pytest.mark.parametrize("meta", FAMILY_RULES, ids=IDS)
def test_documented_examples_pass_the_schema(tmp_path, meta) -> None:
    for fragment in (meta.fail, meta.ok):
        diags = lint_fragment(tmp_path, fragment)
        assert [d for d in diags if d.rule.startswith(("AR0", "AR1"))] == []
