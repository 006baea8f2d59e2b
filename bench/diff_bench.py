"""Bench (by hand): `arouter diff` over N keys, local (--keys-file) and on Spark (--keys).

Two configs with one CONSISTENT_HASH router over 5 static targets; the new one drops a target
(its keys move: 39 % of them with these node ids, one ring point per target). Each run is the
whole `arouter diff` process (start-up, loading and validating both configs, routing every key
through both routers, counting, writing JSON); wall time and the process's peak RSS are printed,
and the local and Spark matrices are checked equal. A baseline: one `simulate --keys-file` over
the same keys (one router, one config, records written); a diff routes every key twice.
Run: python bench/diff_bench.py [N ...] [--spark]      (default N: 1000000 10000000)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from analyze_bench import make_keys  # noqa: E402

NODES = {f"c{i}": f"{i:08x}-5a5a-11ee-8c99-0242ac12000{i}" for i in range(1, 6)}


def config(targets: list[str]) -> str:
    conns = "".join(f'<connector name="{c}">tcp://{c}:61616</connector>' for c in NODES)
    refs = "".join(f"<connector-ref>{c}</connector-ref>" for c in targets)
    return (f'<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><connectors>{conns}'
            '</connectors><connection-routers><connection-router name="bench"><key-type>CLIENT_ID</key-type>'
            f'<policy name="CONSISTENT_HASH"/><pool><static-connectors>{refs}</static-connectors></pool>'
            "</connection-router></connection-routers></core></configuration>")


# Runs one command and reports its own peak RSS: a fresh parent has no other child to mix in.
_MEASURE = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
            "print('RSS', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(code)")


def run(args: list[str], parse: bool = True) -> tuple[float, float, dict]:
    """Wall time, the command's own peak RSS (MB) and its JSON output."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _MEASURE, sys.executable, "-m", "artemis_routing_cli", *args],
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    rss = int(proc.stderr.rsplit("RSS ", 1)[1].split()[0]) / 1024
    return wall, rss, json.loads(proc.stdout) if parse else {}


def main() -> None:
    spark = "--spark" in sys.argv
    sizes = [int(a) for a in sys.argv[1:] if a != "--spark"] or [1_000_000, 10_000_000]
    ids = [f"--node-id={c}={n}" for c, n in NODES.items()]
    with tempfile.TemporaryDirectory() as tmp:
        old, new = Path(tmp, "old.xml"), Path(tmp, "new.xml")
        old.write_text(config(list(NODES)))
        new.write_text(config([c for c in NODES if c != "c3"]))
        for n in sizes:
            keys = Path(tmp, f"keys-{n}.txt")
            make_keys(keys, n)
            base = ["diff", str(old), str(new), "-r", "bench", "-f", "json", *ids]
            wall, rss, doc = run([*base, "--keys-file", str(keys)])
            r = doc["routers"][0]
            print(f"local  {n:>11,} keys: {wall:7.2f} s ({n / wall:,.0f} keys/s), peak RSS {rss:,.0f} MB; "
                  f"moved {r['moved']:,} ({r['churn'] * 100:.2f}%)", flush=True)
            swall, _, _ = run(["simulate", "-c", str(old), "-r", "bench", "--keys-file", str(keys), "-o",
                               str(Path(tmp, "out.jsonl")), *ids], parse=False)
            print(f"  baseline: one simulate --keys-file over the same keys (old config): {swall:7.2f} s", flush=True)
            if spark:
                swall, srss, sdoc = run([*base, "--keys", str(keys)])
                same = sdoc["routers"][0]["matrix"] == r["matrix"]
                print(f"spark  {n:>11,} keys: {swall:7.2f} s ({n / swall:,.0f} keys/s), driver peak RSS "
                      f"{srss:,.0f} MB; same matrix as local: {same}", flush=True)
                if not same:
                    raise SystemExit("the Spark matrix differs from the local one")
            keys.unlink()


if __name__ == "__main__":
    main()
