"""Bench (by hand): `arouter fleet --keys` over N keys on 8 pods, against one pod's `simulate --keys-file`.

An operator-style CR of 8 pods (CONSISTENT_HASH_MODULO, MODULO=8, local-target-filter
NULL|${STATEFUL_SET_ORDINAL}). Each run is the whole process (start-up, loading and judging every pod's
config, routing every key on every pod, counting homes, writing JSON); wall time and the process's peak
RSS are printed. The anchor, in the same run: `simulate --cr CR --ordinal 0 --keys-file` over the same
keys (one pod, its records written to /dev/null). The fleet routes every key 8 times: 8x the anchor is
what eight simulate runs would take.
Run: python bench/fleet_bench.py [N ...]      (default N: 1000000 10000000)
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from analyze_bench import make_keys  # noqa: E402

# Runs one command and reports its own peak RSS and CPU time (a fresh parent has no other child to mix in):
# on a shared machine wall time says more about the neighbours than about arouter.
_MEASURE = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
            "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print('RSS', u.ru_maxrss, 'CPU', u.ru_utime + u.ru_stime, file=sys.stderr); sys.exit(code)")


def run(args: list[str], parse: bool = True) -> tuple[float, float, float, dict]:
    """Wall time, CPU time (s), the command's own peak RSS (MiB) and its JSON output."""
    import os
    import subprocess

    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _MEASURE, sys.executable, "-m", "artemis_routing_cli", *args],
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    fields = proc.stderr.rsplit("RSS ", 1)[1].split()
    return wall, float(fields[2]), int(fields[0]) / 1024, json.loads(proc.stdout) if parse else {}

PODS = 8
CR = f"""apiVersion: broker.amq.io/v1beta1
kind: ActiveMQArtemis
metadata:
  name: bench
spec:
  deploymentPlan:
    size: {PODS}
  brokerProperties:
    - connectionRouters.shard.keyType=CLIENT_ID
    - connectionRouters.shard.localTargetFilter=NULL|${{STATEFUL_SET_ORDINAL}}
    - connectionRouters.shard.policyConfiguration=CONSISTENT_HASH_MODULO
    - connectionRouters.shard.policyConfiguration.properties.MODULO={PODS}
"""


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [1_000_000, 10_000_000]
    with tempfile.TemporaryDirectory() as tmp:
        cr = Path(tmp, "cr.yaml")
        cr.write_text(CR, encoding="utf-8")
        for n in sizes:
            keys = Path(tmp, f"keys-{n}.txt")
            make_keys(keys, n)
            start = time.perf_counter()
            anchor_wall, anchor_cpu, anchor_rss, _ = run(["simulate", "--cr", str(cr), "--ordinal", "0", "--keys-file",
                                                          str(keys), "-o", "/dev/null"], parse=False)
            wall, cpu, rss, doc = run(["fleet", "--cr", str(cr), "--keys", str(keys), "-f", "json"])
            keys_doc = doc["routers"][0]["keys"]
            assert keys_doc["count"] + keys_doc["null_several"] == n and keys_doc["no_home"] == 0
            print(f"{n:>11,} keys x {PODS} pods: fleet {wall:6.1f} s wall, {cpu:6.1f} s CPU, {rss:5.0f} MiB | "
                  f"one pod's simulate {anchor_wall:6.1f} s wall, {anchor_cpu:6.1f} s CPU, {anchor_rss:5.0f} MiB | "
                  f"fleet / anchor CPU {cpu / anchor_cpu:.2f}x (8 simulate runs: 8x) | skew {keys_doc['skew']:.4f} | "
                  f"{time.perf_counter() - start:.0f} s")
            print(json.dumps({"n": n, "fleet_s": wall, "fleet_cpu": cpu, "fleet_mib": rss, "anchor_s": anchor_wall,
                              "anchor_cpu": anchor_cpu, "anchor_mib": anchor_rss}))
            keys.unlink()


if __name__ == "__main__":
    main()
