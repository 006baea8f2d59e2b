"""``arouter validate`` against the floor program (bench/validate_floor.py), as ratios (issue 21).

    python bench/validate_floor_bench.py [--repeat 7] [--callgrind] [--only corpus,gen,sample]
                                          [--sizes 0.4,1.6,6.6] [--distinct]

Cases, each measured as whole processes with the same interpreter:
  corpus   one ``arouter validate`` call over the 179 corpus files (../shared/corpus, read in
           place) vs one floor call over the same files;
  gen-N    a generated broker.xml of 0.4, 1.6 and 6.6 MB (made on the fly, in a temporary folder),
           to show whether cost grows linearly with size;
  sample   samples/broker.xml, one process each.
``--distinct`` makes the generated files with no value repeated between routers (pool passwords,
key and local-target filters): a held-out input on which no per-value memo gains from repetition.
The two programs of a case run alternately (the order flips each repeat), so load from other
work on the machine falls on both. Each repeat gives a ratio arouter/floor, of CPU time (user +
system of the child, from ``os.wait4``) and of wall time; printed: the median ratio and its
spread (min-max over the repeats), with the median times. ``--callgrind`` also counts
instructions once per program and case under valgrind (independent of load; slow).
Bytecode is cached (a temporary PYTHONPYCACHEPREFIX) for both, as an installed package has it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validate_gen import generate_mb  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("AROUTER_BENCH_CORPUS", REPO / ".." / "shared" / "corpus")).resolve()
FLOOR = Path(__file__).resolve().parent / "validate_floor.py"


def arouter_cmd() -> list[str]:
    """The ``arouter`` script beside the interpreter (imports the package on PYTHONPATH), else -m."""
    beside = Path(sys.executable).with_name("arouter")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside), "validate", "-q", "--no-settings"]
    return [sys.executable, "-m", "artemis_routing_cli", "validate", "-q", "--no-settings"]


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system of the child) and exit status of one run."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


def instructions(cmd: list[str], env: dict[str, str], tmp: Path) -> int | None:
    out = tmp / "callgrind.out"
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
                          capture_output=True, text=True, env=env)
    found = re.search(r"Collected : (\d+)", done.stderr)
    return int(found.group(1)) if found else None


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):5.2f}x ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--only", default="corpus,gen,sample")
    ap.add_argument("--sizes", default="0.4,1.6,6.6", help="generated file sizes, MB")
    ap.add_argument("--distinct", action="store_true", help="generated files with no value repeated")
    args = ap.parse_args()
    wanted = set(args.only.split(","))
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
        cases: list[tuple[str, list[str]]] = []
        if "corpus" in wanted:
            corpus = sorted(str(p) for p in CORPUS.rglob("*.xml"))
            if corpus:
                cases.append((f"corpus ({len(corpus)} files, one call)", corpus))
        if "gen" in wanted:
            for mb in (float(x) for x in args.sizes.split(",")):
                path = tmp / f"gen-{mb}{'-distinct' if args.distinct else ''}.xml"
                path.write_text(generate_mb(mb, args.distinct), encoding="utf-8")
                cases.append((f"generated {path.stat().st_size / 1e6:.1f} MB", [str(path)]))
        if "sample" in wanted:
            cases.append(("sample (one process)", [str(REPO / "samples" / "broker.xml")]))
        arouter = arouter_cmd()
        floor = [sys.executable, str(FLOOR)]
        print(f"python {sys.version.split()[0]}; arouter: {' '.join(arouter[:2])}; repeats: {args.repeat}; "
              f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
              f"on {os.cpu_count()} CPUs")
        for label, files in cases:
            programs = {"arouter": arouter + files, "floor": floor + files}
            for cmd in programs.values():
                run(cmd, env)  # warm-up: bytecode cache, file cache
            times: dict[str, list[tuple[float, float, int]]] = {"arouter": [], "floor": []}
            for i in range(args.repeat):
                order = ("arouter", "floor") if i % 2 == 0 else ("floor", "arouter")
                for name in order:
                    times[name].append(run(programs[name], env))
            cpu_ratios = [a[1] / f[1] for a, f in zip(times["arouter"], times["floor"], strict=True)]
            wall_ratios = [a[0] / f[0] for a, f in zip(times["arouter"], times["floor"], strict=True)]
            med = {name: (statistics.median(t[0] for t in ts), statistics.median(t[1] for t in ts), ts[-1][2])
                   for name, ts in times.items()}
            print(f"{label}: CPU ratio {spread(cpu_ratios)}, wall ratio {spread(wall_ratios)}; "
                  f"arouter {med['arouter'][1] * 1000:.0f} ms CPU / {med['arouter'][0] * 1000:.0f} ms wall "
                  f"(exit {med['arouter'][2]}), floor {med['floor'][1] * 1000:.0f} ms CPU / "
                  f"{med['floor'][0] * 1000:.0f} ms wall (exit {med['floor'][2]})", flush=True)
            if args.callgrind and shutil.which("valgrind"):
                counts = {name: instructions(cmd, env, tmp) for name, cmd in programs.items()}
                if counts["arouter"] and counts["floor"]:
                    print(f"{'':4s}callgrind: arouter {counts['arouter']:,} / floor {counts['floor']:,} "
                          f"instructions = {counts['arouter'] / counts['floor']:.2f}x", flush=True)
        print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
