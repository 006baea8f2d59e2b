"""Bench (by hand): `arouter simulate --keys-file` against the JVM doing the same work (issue 21).

Random mixed-unicode keys (accents, CJK, emoji, dotted I) through a 5-target CONSISTENT_HASH router,
one JSON line per key written to a file, at each size asked for (default 1 M, 10 M and 100 M keys):
  * `arouter simulate --keys-file K -o OUT` as a user runs it (a process; bytecode cached in a
    temporary PYTHONPYCACHEPREFIX, as an installed package has it),
  * bench/java/BatchRoute.java (compiled with javac at bench time) doing the same arithmetic and I/O.
Runs are interleaved (arouter, JVM, JVM, arouter, ...); each reports wall time, CPU time (user +
system) and peak resident memory (the child's own ru_maxrss, from wait4). Printed per size: median
and spread (min-max) of each, and the arouter / JVM ratios (median of the pairs). The outputs are
compared once per size (SHA-256, byte for byte).

The keys are generated into a temporary file and deleted after each size, as is every output once
hashed (100 M keys: 1.4 GB of keys, 15 GB of JSON lines; check `df -h` first).
Run: python bench/batch_bench.py [--sizes 1000000,10000000,100000000] [--repeats 3]
     [--big-repeats 1] [--tree PATH] [--no-jvm]  (--tree: the arouter source tree to run, by default
     this one; e.g. an older checkout)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent
NODES = {f"c{i}": f"{i:08x}-5a5a-11ee-8c99-0242ac12000{i}" for i in range(1, 6)}
PIECES = ["a", "b", "Z", "0", "7", "-", "\u00e9", "\u4e2d", "\U0001F600", "client", "user.", "\u0130"]
# Keys made one by one (Python): the rest of a large file repeats them with a block number after each.
BASE_KEYS = 1_000_000
# Sizes from here up run --big-repeats times (minutes per run).
BIG = 50_000_000


def make_keys(path: Path, n: int) -> None:
    """``n`` distinct keys, one per line: BASE_KEYS random ones, then the same with ``~1``, ``~2``... after
    each (bytes.join, so 100 M keys take seconds, not minutes)."""
    rng = random.Random(42)
    base = [("".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 6))) + str(rng.randrange(10**6)))
            .encode("utf-8") for _ in range(min(n, BASE_KEYS))]
    with path.open("wb") as f:
        block = 0
        while n > 0:
            keys = base[:n]
            end = b"\n" if block == 0 else f"~{block}\n".encode()
            f.write(end.join(keys) + end)
            n -= len(keys)
            block += 1


def config_xml() -> str:
    conns = "".join(f'<connector name="{c}">tcp://{c}:61616</connector>' for c in NODES)
    refs = "".join(f"<connector-ref>{c}</connector-ref>" for c in NODES)
    return (f'<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><connectors>{conns}'
            '</connectors><connection-routers><connection-router name="bench"><key-type>CLIENT_ID'
            f'</key-type><policy name="CONSISTENT_HASH"/><pool><static-connectors>{refs}</static-connectors>'
            "</pool></connection-router></connection-routers></core></configuration>")


@dataclass(frozen=True)
class Run:
    wall: float  # seconds
    cpu: float  # user + system seconds
    rss: int  # peak resident bytes
    ok: bool


def measure(args: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Run:
    """Run ``args`` to the end: wall time, and the child's own CPU time and peak memory (wait4)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print(f"  {' '.join(args[:4])}...: exit {code}: {err.decode(errors='replace').strip()[:300]}")
    rss = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    return Run(wall, usage.ru_utime + usage.ru_stime, rss, code == 0)


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


class Tools:
    def __init__(self, work: Path, tree: Path, *, jvm: bool = True) -> None:
        self.work = work
        self.cfg = work / "broker.xml"
        self.cfg.write_text(config_xml(), encoding="utf-8")
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        # `python -m` puts the working directory first on sys.path: run in the tree, and name it
        self.tree = tree
        self.env["PYTHONPATH"] = str(tree)
        self.java = jvm and shutil.which("javac") is not None and shutil.which("java") is not None
        if self.java:
            subprocess.run(["javac", "-d", str(work), str(ROOT / "java" / "BatchRoute.java")], check=True)
        warm = work / "warm.txt"
        warm.write_text("a\n", encoding="utf-8")
        self.arouter(warm, work / "warm.jsonl")  # the bytecode cache

    def arouter(self, keys: Path, out: Path) -> Run:
        nodes = [a for c, n in NODES.items() for a in ("--node-id", f"{c}={n}")]
        return measure([sys.executable, "-m", "artemis_routing_cli", "simulate", "-c", str(self.cfg),
                        "--keys-file", str(keys), "-o", str(out), *nodes], self.env, self.tree)

    def jvm(self, keys: Path, out: Path) -> Run:
        return measure(["java", "-cp", str(self.work), "BatchRoute", str(keys), str(out),
                        *[f"{c}={n}" for c, n in NODES.items()]])


def spread(values: list[float], fmt: Callable[[float], str]) -> str:
    med = statistics.median(values)
    return fmt(med) if len(values) == 1 else f"{fmt(med)} ({fmt(min(values))}-{fmt(max(values))})"


def bench_size(tools: Tools, n: int, repeats: int) -> None:
    keys = tools.work / "keys.txt"
    # in a process of its own: a child's peak memory counts its parent's at the fork (Linux keeps
    # ru_maxrss across exec), so this process stays small
    subprocess.run([sys.executable, __file__, "--make-keys", str(keys), str(n)], check=True)
    print(f"{n:,} keys ({keys.stat().st_size / 1e6:,.0f} MB), {repeats} interleaved repeat(s):", flush=True)
    runs: dict[str, list[Run]] = {"arouter": [], "jvm": []}
    digests: dict[str, str] = {}
    names = ["arouter", "jvm"] if tools.java else ["arouter"]
    for rep in range(repeats):
        for name in names if rep % 2 == 0 else names[::-1]:
            out = tools.work / f"{name}.jsonl"
            run = tools.arouter(keys, out) if name == "arouter" else tools.jvm(keys, out)
            runs[name].append(run)
            if run.ok and name not in digests:
                digests[name] = sha256(out)
            out.unlink(missing_ok=True)
            print(f"  {name}: {run.wall:.2f} s wall, {run.cpu:.2f} s CPU, {run.rss / 2**20:.0f} MiB peak", flush=True)
    keys.unlink()
    for name in names:
        r = runs[name]
        print(f"  {name:8s} wall {spread([x.wall for x in r], lambda v: f'{v:.2f} s')}, "
              f"CPU {spread([x.cpu for x in r], lambda v: f'{v:.2f} s')}, "
              f"peak RSS {spread([x.rss / 2**20 for x in r], lambda v: f'{v:.0f} MiB')}, "
              f"{n / statistics.median(x.wall for x in r):,.0f} keys/s")
    if tools.java and all(x.ok for x in runs["arouter"] + runs["jvm"]):
        pairs = list(zip(runs["arouter"], runs["jvm"], strict=True))
        print(f"  arouter / JVM: wall {spread([a.wall / j.wall for a, j in pairs], lambda v: f'{v:.2f}x')}, "
              f"CPU {spread([a.cpu / j.cpu for a, j in pairs], lambda v: f'{v:.2f}x')}; "
              f"same output byte for byte: {digests.get('arouter') == digests.get('jvm')}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,10000000,100000000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--big-repeats", type=int, default=1, help=f"repeats from {BIG:,} keys up")
    parser.add_argument("--tree", type=Path, default=ROOT.parent,
                        help="arouter source tree to run (PYTHONPATH; default: the one this bench is in)")
    parser.add_argument("--no-jvm", action="store_true", help="arouter alone")
    parser.add_argument("--make-keys", nargs=2, metavar=("PATH", "N"), help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.make_keys:
        make_keys(Path(opts.make_keys[0]), int(opts.make_keys[1]))
        return
    with tempfile.TemporaryDirectory(prefix="batch-bench-", dir=os.environ.get("BENCH_TMP")) as tmp:
        tools = Tools(Path(tmp), opts.tree, jvm=not opts.no_jvm)
        if not tools.java and not opts.no_jvm:
            print("no JDK (javac, java): arouter alone")
        for n in (int(s) for s in opts.sizes.split(",")):
            bench_size(tools, n, opts.big_repeats if n >= BIG else opts.repeats)


if __name__ == "__main__":
    main()
