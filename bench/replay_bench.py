"""Bench (by hand): `arouter replay` over N broker log lines, wall time and peak RSS.

The log is made here, in the broker's default pattern, from the real 2.40.0 recording's line shapes
(tests/data/replay): per decision on router by-cid (CLIENT_ID, cache, CONSISTENT_HASH over self and
dead) the KeyResolver line, the cache's answer, the policy's choice and the AMQ221085 route line, with
keys client-0 .. client-999999 (so later decisions are cache hits the log shows), and one line of
noise in five (a start-up line, a monitor WARN with a two-frame stack trace). Each run is the whole
`arouter replay -f json` process. The anchor in the same run: `python -c` reading the same file line by
line with the same bound (the floor any line-oriented reader pays); the ratio is replay / anchor.
Run: python bench/replay_bench.py [N ...]      (default N: 10000000)
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "tests" / "data" / "replay" / "broker.xml"
SELF = "d36dffcb-f29b-11f1-ade9-02fc00000001"
PREFIX = "org.apache.activemq.artemis.core.server"
TARGET = ("ActiveMQTarget [connector=TransportConfiguration(name=self, factory=org-apache-activemq-artemis-core-"
          f"remoting-impl-netty-NettyConnectorFactory)?port=61780&host=127-0-0-1, nodeID={SELF}]")
_MEASURE = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)"
            ".returncode; print('RSS', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
            "sys.exit(code)")
_ANCHOR = ("import sys\nn = 0\nwith open(sys.argv[1], 'rb') as f:\n    while True:\n        line = f.readline(262145)\n"
           "        if not line:\n            break\n        n += len(line.decode('utf-8', 'replace'))\nprint(n)\n")


def make_log(path: Path, lines: int, seed: int = 35) -> int:
    rnd = random.Random(seed)
    decisions = 0
    seen: set[int] = set()
    written = 0
    second = 0
    with path.open("w", encoding="utf-8") as f:
        while written < lines:
            second += 1
            clock = f"{second // 3600 % 24:02d}:{second // 60 % 60:02d}:{second % 60:02d}"
            stamp = f"2026-12-08 {clock},{second % 1000:03d}"
            key = rnd.randrange(1_000_000)
            cached = key in seen
            seen.add(key)
            conn = (f"org.apache.activemq.artemis.core.remoting.impl.netty.NettyServerConnection@{decisions:08x}"
                    f"[ID={decisions:08x}, local= /127.0.0.1:61781, "
                    f"remote=/10.{key % 250}.{key // 250 % 250}.1:{40000 + key % 20000}]")
            out = [f"{stamp} DEBUG [{PREFIX}.routing.KeyResolver] keyValue for CLIENT_ID: client-{key}\n"]
            if cached:
                out += [f"{stamp} DEBUG [{PREFIX}.routing.ConnectionRouter] The cache returns target [{SELF}] for "
                        f"CLIENT_ID[client-{key}]\n",
                        f"{stamp} DEBUG [{PREFIX}.routing.ConnectionRouter] The target [{SELF}] is ready for "
                        f"CLIENT_ID[client-{key}]\n"]
            else:
                out += [f"{stamp} DEBUG [{PREFIX}.routing.ConnectionRouter] The cache returns target [null] for "
                        f"CLIENT_ID[client-{key}]\n",
                        f"{stamp} DEBUG [{PREFIX}.routing.ConnectionRouter] The policy selects [{TARGET}] from "
                        f"[{TARGET}] for CLIENT_ID[client-{key}]\n"]
            out.append(f"{stamp} INFO  [{PREFIX}] AMQ221085: Route {conn} to {TARGET}\n")
            if decisions % 5 == 0:
                out += [f"{stamp} WARN  [{PREFIX}.routing.targets.TargetMonitor] Error monitoring ActiveMQTarget "
                        "[connector=TransportConfiguration(name=dead, factory=org-apache-activemq-artemis-core-"
                        "remoting-impl-netty-NettyConnectorFactory)?port=61789&host=127-0-0-1, nodeID=null]\n",
                        "org.apache.activemq.artemis.api.core.ActiveMQNotConnectedException: AMQ219007: Cannot "
                        "connect to server(s). Tried with all available servers.\n",
                        "\tat org.apache.activemq.artemis.core.client.impl.ServerLocatorImpl.createSessionFactory"
                        "(ServerLocatorImpl.java:703) ~[artemis-core-client-2.40.0.jar:2.40.0]\n"]
            f.writelines(out)
            written += len(out)
            decisions += 1
    return decisions


def timed(args: list[str]) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _MEASURE, *args], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    rss = next(int(x.split()[1]) for x in done.stderr.splitlines() if x.startswith("RSS"))
    return wall, rss, done.stderr


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [10_000_000]
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="arouter-replay-bench-") as tmp:
            log = Path(tmp) / "artemis.log"
            decisions = make_log(log, n)
            size = log.stat().st_size
            out = Path(tmp) / "replay.json"
            anchor, anchor_rss, _ = timed([sys.executable, "-c", _ANCHOR, str(log)])
            wall, rss, err = timed([sys.executable, "-m", "artemis_routing_cli", "replay", "-c", str(CONFIG),
                                    "-f", "json", "-o", str(out), str(log)])
            doc = json.loads(out.read_text())
            print(f"{n:,} lines ({size / 2**20:,.0f} MiB, {decisions:,} decisions): replay {wall:.1f} s "
                  f"({n / wall:,.0f} lines/s), peak RSS {rss / 1024:,.0f} MiB; anchor (bounded line read) "
                  f"{anchor:.1f} s, {anchor_rss / 1024:,.0f} MiB; ratio {wall / anchor:.1f}x; "
                  f"verdicts {doc['counts']}, bad {doc['bad_lines']['count']}")
            if doc["decisions"] != decisions:
                print(f"  decisions differ: {doc['decisions']} vs {decisions}; {err[-500:]}")


if __name__ == "__main__":
    main()
