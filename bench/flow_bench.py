"""Message-flow speed: filter evaluations per second, and `simulate --address` on 5,000 diverts.

Run by hand:  python bench/flow_bench.py [--diverts 5000] [--evals 200000]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TYPICAL = "color = 'red' AND weight > 2.5 AND region IN ('eu', 'us') AND AMQPriority >= 4"


def diverts_config(n: int) -> str:
    """n diverts on n addresses, in chains of 10 (in0 -> in1 -> ... -> in9 -> out9), every one filtered,
    every third exclusive; plus a composite fan-out at the end of each chain."""
    parts = ['<?xml version="1.0"?>', '<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">',
             "<diverts>"]
    for i in range(n):
        dst = f"in{i + 1}" if i % 10 != 9 else f"out{i}, audit{i}, archive"
        parts.append(f'<divert name="d{i}"><address>in{i}</address><forwarding-address>{dst}</forwarding-address>'
                     f"<filter string=\"n &gt;= {i % 7} AND color = 'red'\"/>"
                     f"<exclusive>{'true' if i % 3 == 0 else 'false'}</exclusive></divert>")
    parts.append("</diverts></core></configuration>")
    return "\n".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--diverts", type=int, default=5000)
    ap.add_argument("--evals", type=int, default=200_000)
    args = ap.parse_args()

    from artemis_routing_cli.messages import Message, parse_filter
    from artemis_routing_cli.messages.values import JLong

    f = parse_filter(TYPICAL)
    msg = Message(address="orders", properties={"color": "red", "weight": 3.0, "region": "eu", "n": JLong(5)},
                  headers={"priority": 7})
    assert f.evaluate(msg) is True
    t0 = time.perf_counter()
    for _ in range(args.evals):
        f.evaluate(msg)
    dt = time.perf_counter() - t0
    print(f"filter: {TYPICAL!r}")
    print(f"  {args.evals / dt:,.0f} evaluations/s ({dt / args.evals * 1e6:.2f} µs each)")
    parse_filter.cache_clear()
    t0 = time.perf_counter()
    for i in range(2000):
        parse_filter(TYPICAL + f" AND x <> {i}")
    print(f"  parse (uncached): {(time.perf_counter() - t0) / 2000 * 1e6:.0f} µs each")

    arouter = shutil.which("arouter") or sys.exit("arouter not installed (pip install -e .)")
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "diverts.xml"
        cfg.write_text(diverts_config(args.diverts), encoding="utf-8")
        cmd = [arouter, "simulate", "-c", str(cfg), "--address", "in0", "-p", "n=9L", "-p", "color='red'", "-f", "json"]
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            run = subprocess.run(cmd, capture_output=True, text=True)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        assert run.returncode == 0, run.stderr
        print(f"simulate --address on {args.diverts:,} diverts: {best * 1000:.0f} ms wall (best of 3, whole process)")
        from artemis_routing_cli.config import load
        from artemis_routing_cli.messages.flow import simulate_message

        config = load(str(cfg))
        m = Message(address="in0", properties={"n": JLong(9), "color": "red"})
        t0 = time.perf_counter()
        result = simulate_message(config, "in0", m)
        dt = time.perf_counter() - t0
        print(f"  in-process simulate_message: {dt * 1000:.1f} ms, {len(result.deliveries)} deliveries, "
              f"{len(result.decisions)} divert decisions")


if __name__ == "__main__":
    main()
