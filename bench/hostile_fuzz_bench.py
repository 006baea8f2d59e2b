"""A long run of the hostile-input fuzzer of tests/hostile/fuzzing.py over the broker.xml corpus.

Run by hand:  python bench/hostile_fuzz_bench.py [--documents 2000 --seed 1 --deadline 30]
Each document is a seeded mutation (1-3 of: byte flips, duplicated slices, deep nesting, encoding
declarations, odd ${...} forms, huge numbers, control characters, attribute floods, XIncludes of
devices/secrets/itself, DOCTYPEs and entities, everything on one line) of a corpus file, validated
in a worker process held to RLIMIT_AS = 1 GiB and the deadline. Prints documents, exit codes,
failures (crash, out of memory, over the deadline, a planted secret in a finding), the slowest
and the largest documents.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.hostile.fuzzing import Outcome, Worker, corpus_files, mutate  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--deadline", type=float, default=30.0)
    args = parser.parse_args()
    files = corpus_files()
    if not files:
        print("no corpus (../shared/corpus or AROUTER_CORPUS)", file=sys.stderr)
        return 2
    worker = Worker(args.deadline)
    outcomes: list[Outcome] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for n in range(args.documents):
                seed = args.seed * 1_000_003 + n
                source = files[seed % len(files)]
                doc = Path(tmp) / f"d{n}" / "broker.xml"
                doc.parent.mkdir()
                doc.write_bytes(mutate(seed, source.read_bytes()))
                outcomes.append(worker.check(doc, f"{source.relative_to(source.parents[2])} seed {seed}"))
                doc.unlink()
        finally:
            worker.close()
    elapsed = time.perf_counter() - started
    codes = Counter("fail" if o.code is None else str(o.code) for o in outcomes)
    print(f"documents: {len(outcomes)} in {elapsed:.0f} s (deadline {args.deadline:g} s, RLIMIT_AS 1 GiB)")
    print("exit codes: " + ", ".join(f"{k}: {v}" for k, v in sorted(codes.items())))
    for o in outcomes:
        if o.code is None:
            print(f"FAIL {o.name}: {o.problem}")
    print("slowest:")
    for o in sorted(outcomes, key=lambda o: -o.seconds)[:5]:
        print(f"  {o.seconds:7.2f} s  {o.size:>11,} bytes  exit {o.code}  {o.name}")
    print("largest:")
    for o in sorted(outcomes, key=lambda o: -o.size)[:5]:
        print(f"  {o.size:>11,} bytes  {o.seconds:7.2f} s  exit {o.code}  {o.name}")
    return 1 if codes.get("fail") else 0


if __name__ == "__main__":
    sys.exit(main())
