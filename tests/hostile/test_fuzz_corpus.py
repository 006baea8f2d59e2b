"""Seeded mutations of the real broker.xml corpus: exit 0/1/2, no crash, within 1 GiB and a hard deadline each.

The longer run of the same fuzzer, with its results, is ``bench/hostile_fuzz_bench.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .fuzzing import Worker, corpus_files, mutate

FILES = corpus_files()
DOCUMENTS = 30
SEED = 20261124
DEADLINE = 30.0  # seconds per document: a generous cap, not a speed target (see bench/)


@pytest.mark.skipif(not FILES, reason="../shared/corpus is absent")
def test_mutated_corpus_documents_never_crash_hang_or_exceed_memory(tmp_path: Path) -> None:
    worker = Worker(DEADLINE)
    failures = []
    try:
        for n in range(DOCUMENTS):
            source = FILES[(SEED + n * 7919) % len(FILES)]
            doc = tmp_path / f"d{n}" / "broker.xml"
            doc.parent.mkdir()
            doc.write_bytes(mutate(SEED + n, source.read_bytes()))
            outcome = worker.check(doc, f"{source.name} seed {SEED + n}")
            if outcome.code not in (0, 1, 2):
                failures.append(f"{outcome.name}: {outcome.problem}")
    finally:
        worker.close()
    assert failures == []
