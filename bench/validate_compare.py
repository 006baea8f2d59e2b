"""Byte-for-byte check that ``arouter validate`` says the same before and after a change.

    python bench/validate_compare.py OUTDIR                 # record every output into OUTDIR
    python bench/validate_compare.py OUTDIR --against BASE  # record, then compare with BASE

For every format (text, json, sarif, junit, github) it records stdout, stderr and the exit code
of ``python -m artemis_routing_cli validate`` on the sample, on generated files of 0.4, 1.6 and
6.6 MB (and of 1.6 and 6.6 MB with no value repeated, as ``--distinct`` makes them), and on the
179 corpus files (../shared/corpus or $AROUTER_BENCH_CORPUS, read in place, one call). Run it with
``PYTHONPATH`` set to the checkout being measured. Exit 1 when anything differs from BASE.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validate_gen import generate_mb  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("AROUTER_BENCH_CORPUS", REPO / ".." / "shared" / "corpus")).resolve()
FORMATS = ("text", "json", "sarif", "junit", "github")


def inputs(tmp: Path) -> dict[str, list[str]]:
    sets = {"sample": [str(REPO / "samples" / "broker.xml")]}
    for mb in (0.4, 1.6, 6.6):
        path = tmp / f"gen-{mb}.xml"
        path.write_text(generate_mb(mb), encoding="utf-8")
        sets[f"gen-{mb}"] = [str(path)]
    for mb in (1.6, 6.6):  # no value repeated between routers: per-value memos and fast paths miss
        path = tmp / f"gen-{mb}-distinct.xml"
        path.write_text(generate_mb(mb, distinct=True), encoding="utf-8")
        sets[f"gen-{mb}-distinct"] = [str(path)]
    corpus = sorted(str(p) for p in CORPUS.rglob("*.xml"))
    if corpus:
        sets["corpus"] = corpus
    return sets


def _neutral(data: bytes, tmp: str) -> bytes:
    """Output with the checkout's and the temporary folder's paths (which differ per run) as REPO and TMP."""
    return data.replace(tmp.encode(), b"TMP").replace(str(REPO).encode(), b"REPO")


def record(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, NO_COLOR="1", AROUTER_NO_SETTINGS="1")
    with tempfile.TemporaryDirectory() as tmp:
        for name, files in inputs(Path(tmp)).items():
            for fmt in FORMATS:
                run = subprocess.run([sys.executable, "-m", "artemis_routing_cli", "validate", "--no-settings",
                                      "-f", fmt, *files], capture_output=True, env=env, cwd=tmp)
                stem = f"{name}.{fmt}"
                # the temporary folder's name differs per run: shown as TMP
                (out / f"{stem}.out").write_bytes(_neutral(run.stdout, tmp))
                (out / f"{stem}.err").write_bytes(_neutral(run.stderr, tmp))
                (out / f"{stem}.rc").write_text(f"{run.returncode}\n")
                print(f"{stem}: exit {run.returncode}, {len(run.stdout):,} bytes", flush=True)


def compare(out: Path, base: Path) -> int:
    names = sorted({p.name for p in out.iterdir()} | {p.name for p in base.iterdir()})
    differ = [n for n in names if not (out / n).is_file() or not (base / n).is_file()
              or (out / n).read_bytes() != (base / n).read_bytes()]
    for name in differ:
        print(f"DIFFERS: {name}")
    print(f"{len(names) - len(differ)} of {len(names)} outputs identical")
    return 1 if differ else 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--against", type=Path)
    args = ap.parse_args()
    record(args.out)
    if args.against:
        sys.exit(compare(args.out, args.against))


if __name__ == "__main__":
    main()
