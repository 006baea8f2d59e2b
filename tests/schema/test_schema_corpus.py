"""Every real broker.xml of the Artemis examples passes the broker's XSD, so it must pass ours."""

from __future__ import annotations

from pathlib import Path

import pytest

from artemis_routing_cli.config.schema_ids import JUDGED_SECTIONS
from tests.schema.schema_support import CORPUS, check_text, load_core

FILES = sorted(CORPUS.resolve().glob("artemis-examples/**/*.xml")) if CORPUS.exists() else []
needs_corpus = pytest.mark.skipif(not FILES, reason="../shared/corpus is not present")


def _id(path: Path) -> str:
    return str(path.relative_to(CORPUS.resolve() / "artemis-examples"))


@needs_corpus
def test_corpus_is_complete() -> None:
    assert len(FILES) == 179


@needs_corpus
@pytest.mark.parametrize("path", FILES, ids=[_id(p) for p in FILES])
def test_corpus_file_has_no_schema_problems(path: Path) -> None:
    diags = check_text(path.read_text(encoding="utf-8"), name=_id(path))
    assert [(d.rule, d.line, d.message) for d in diags] == []


@needs_corpus
def test_corpus_exercises_the_judged_sections() -> None:
    counts = dict.fromkeys(JUDGED_SECTIONS, 0)
    for path in FILES:
        core, _ = load_core(path.read_text(encoding="utf-8"))
        for child in core:
            if isinstance(child.tag, str) and child.tag.split("}")[-1] in counts:
                counts[child.tag.split("}")[-1]] += 1
    # numbers from ../shared/corpus/README.md
    assert counts["cluster-connections"] == 57
    assert counts["connection-routers"] == 5
    assert counts["diverts"] == 2
