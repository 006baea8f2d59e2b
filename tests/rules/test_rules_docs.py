"""docs/rules.md is generated: it must equal the generator's output and anchor every rule."""

from __future__ import annotations

import subprocess
import sys

from artemis_routing_cli.rules import all_rules
from artemis_routing_cli.rules.docs import render

from .helpers import REPO

DOC = REPO / "docs" / "rules.md"


def test_docs_rules_md_is_up_to_date() -> None:
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/rules.md is stale: run `python -m artemis_routing_cli.rules.docs > docs/rules.md`")


def test_every_rule_has_its_anchor_and_examples() -> None:
    text = render()
    for meta in all_rules().values():
        assert f'<a id="{meta.id.lower()}"></a>' in text
        assert f"### {meta.id} `{meta.name}`" in text
        if meta.fail:
            assert meta.fail.strip("\n") in text


def test_module_entry_point_prints_the_same(tmp_path) -> None:
    out = subprocess.run([sys.executable, "-m", "artemis_routing_cli.rules.docs"], capture_output=True,
                         text=True, check=True, cwd=REPO)
    assert out.stdout == render()
