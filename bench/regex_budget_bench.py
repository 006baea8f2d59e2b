"""How long a catastrophic filter set through management holds up other clients of ``arouter serve``
(run by hand, never from the test suite).

    python bench/regex_budget_bench.py [--tree PATH] [--victims 300] [--rounds 3]

Starts ``arouter serve`` (from ``--tree``, default this checkout: run it once on the old tree and once
on the new one to compare) with an MQTT CLIENT_ID router and its management endpoint, then for each
hostile case sets the filter with ``setLocalTargetFilter`` / ``setTargetKeyFilter`` and runs two
clients at once, on loopback, from this process:

* an *attacker* that connects again and again with the key that makes the filter backtrack (each
  evaluation runs out of serve's 5 ms budget and its connection is closed);
* a *victim* that connects with an ordinary key, one connection after the other, and times each
  from connect to the redirect (or close).

The anchor is the same victim with no attacker, in the same run, against the same server. Printed:
the victim's median, p99 and maximum latency per case, and the maximum over the anchor's maximum
(the overshoot ratio). Nothing here asserts; the numbers go to bench/README.md.

    python bench/regex_budget_bench.py --hold OLD_TREE NEW_TREE [--evaluations 40]

measures what the victim waits for more directly and is far less sensitive to the machine's load:
how long one routing decision holds the event loop (``serve.decide.route_within_budget`` on the
router above, the filter set as management sets it), wall-clock and CPU time, max and median over
``--evaluations`` decisions per case, for two trees in alternation in the same run (each in its own
process), so both see the same load. The budget is 5 ms of wall-clock time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from artemis_routing_cli.protocols.mqtt import MqttClient  # noqa: E402

BROKER_XML = """<?xml version="1.0" encoding="UTF-8"?>
<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">
  <connectors>
    <connector name="t1">tcp://10.0.0.1:61617</connector>
    <connector name="t2">tcp://10.0.0.2:61618</connector>
  </connectors>
  <acceptors><acceptor name="a">tcp://127.0.0.1:61616?router=bench;protocols=MQTT</acceptor></acceptors>
  <connection-routers>
    <connection-router name="bench">
      <key-type>CLIENT_ID</key-type>
      <local-target-filter>LOCAL.*</local-target-filter>
      <policy name="CONSISTENT_HASH"/>
      <pool><static-connectors><connector-ref>t1</connector-ref><connector-ref>t2</connector-ref>
      </static-connectors></pool>
    </connection-router>
  </connection-routers>
</core></configuration>
"""
MBEAN = 'org.apache.activemq.artemis:broker="localhost",component=connection-routers,name="bench"'
EMOJI = "\U0001F600"  # a key beyond the BMP runs on the UTF-16 matcher, not the regex module
CASES = [  # (name, operation, pattern, attacking key)
    ("(a|a)+b, BMP key (regex module)", "setLocalTargetFilter", "(a|a)+b", "a" * 5000),
    ("(a|a)+b, key beyond BMP (UTF-16 matcher)", "setLocalTargetFilter", "(a|a)+b", "a" * 5000 + EMOJI),
    (r"(.*)\1x, key beyond BMP (back-reference steps)", "setLocalTargetFilter", r"(.*)\1x", EMOJI + "a" * 5000),
    (r"key-filter (.*)\1x then local-target-filter", "setTargetKeyFilter", r"(.*)\1x", EMOJI + "a" * 5000),
    (r"[\p{L}&&[^b]]+b, key beyond BMP (class runs)", "setLocalTargetFilter", r"[\p{L}&&[^b]]+b",
     EMOJI + "a" * 20000),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_listening(port: int) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


def post(port: int, request: dict) -> dict:
    body = json.dumps(request).encode()
    head = (f"POST /console/jolokia HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return json.loads(data.partition(b"\r\n\r\n")[2])


async def one(port: int, hello: bytes) -> float:
    start = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(hello)
    await writer.drain()
    await reader.read(65536)  # the CONNACK that redirects, or the close
    writer.close()
    return time.perf_counter() - start


async def victim(port: int, count: int, stop: asyncio.Event) -> list[float]:
    hello = MqttClient().connect("FOO1")
    times = [await one(port, hello) for _ in range(count)]
    stop.set()
    return times


async def attacker(port: int, key: str, stop: asyncio.Event) -> int:
    hello = MqttClient().connect(key)
    sent = 0
    while not stop.is_set():
        await one(port, hello)
        sent += 1
    return sent


async def run_case(port: int, key: str | None, victims: int) -> tuple[list[float], int]:
    stop = asyncio.Event()
    jobs = [victim(port, victims, stop)] + ([attacker(port, key, stop)] if key is not None else [])
    results = await asyncio.gather(*jobs)
    return results[0], (results[1] if key is not None else 0)


def stats(times: list[float]) -> tuple[float, float, float]:
    ordered = sorted(times)
    return (statistics.median(ordered) * 1000, ordered[int(0.99 * (len(ordered) - 1))] * 1000, ordered[-1] * 1000)


HOLD_CHILD = r"""
import json, sys, time
from artemis_routing_cli.config import load
from artemis_routing_cli.routing.keys import Connection
try:
    from artemis_routing_cli.jregex.javaregex import compile_java
except ImportError:  # a tree from before the Java regex engine moved to jregex/
    from artemis_routing_cli.routing.javaregex import compile_java
from artemis_routing_cli.routing.selection import select_routers
from artemis_routing_cli.routing.targets import state_from_options
from artemis_routing_cli.serve.decide import MatchBudgetExceeded, route_within_budget
config, operation, pattern, key, count = sys.argv[1:6]
(router,) = select_routers(load(config), state_from_options(["t1=node-1", "t2=node-2"]), "bench", 0)
import gc
gc.freeze()  # as serve does once it has started: the loaded model is not walked by every collection
compiled = compile_java(pattern)
if hasattr(compiled, "prepare"):
    compiled.prepare()  # as setLocalTargetFilter/setTargetKeyFilter do on the new tree
if operation == "setLocalTargetFilter":
    router.local_target_filter = compiled
else:
    router.key_filter = pattern
conn = Connection(key, None, None, "/127.0.0.1:5000", (), False)
walls, cpus = [], []
for _ in range(int(count)):
    wall, cpu = time.perf_counter(), time.thread_time()
    try:
        route_within_budget(router, conn)
    except MatchBudgetExceeded:
        pass
    walls.append(time.perf_counter() - wall)
    cpus.append(time.thread_time() - cpu)
print(json.dumps({"walls": walls, "cpus": cpus}))
"""


def hold(trees: list[str], evaluations: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp, "broker.xml")
        config.write_text(BROKER_XML)
        print(f"hold of one routing decision, {evaluations} decisions per case and tree, trees alternating")
        print(f"{'case':52} {'tree':>5} {'wall max':>9} {'wall med':>9} {'cpu max':>8} {'cpu med':>8}  (ms)")
        for name, operation, pattern, key in CASES:
            rows: dict[str, dict[str, list[float]]] = {t: {"walls": [], "cpus": []} for t in trees}
            for _ in range(4):  # alternate the trees so that both see the same load
                for tree in trees:
                    out = subprocess.run([sys.executable, "-c", HOLD_CHILD, str(config), operation, pattern, key,
                                          str(max(1, evaluations // 4))], env={**os.environ, "PYTHONPATH": tree},
                                         cwd=tmp, capture_output=True, text=True, check=True).stdout  # not this tree
                    got = json.loads(out)
                    rows[tree]["walls"] += got["walls"]
                    rows[tree]["cpus"] += got["cpus"]
            for label, tree in zip(("old", "new"), trees, strict=False):
                w, c = rows[tree]["walls"], rows[tree]["cpus"]
                print(f"{name:52} {label:>5} {max(w) * 1000:9.1f} {statistics.median(w) * 1000:9.1f} "
                      f"{max(c) * 1000:8.1f} {statistics.median(c) * 1000:8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--victims", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hold", nargs=2, metavar=("OLD_TREE", "NEW_TREE"))
    parser.add_argument("--evaluations", type=int, default=40)
    args = parser.parse_args()
    if args.hold:
        hold(list(args.hold), args.evaluations)
        return
    port, mport = free_port(), free_port()
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp, "broker.xml")
        config.write_text(BROKER_XML)
        env = {**os.environ, "PYTHONPATH": args.tree}
        server = subprocess.Popen([sys.executable, "-m", "artemis_routing_cli", "serve", "-c", str(config),
                                   "--listen", f"127.0.0.1:{port}", "-r", "bench", "--no-monitor",
                                   "--node-id", "t1=node-1", "--node-id", "t2=node-2",
                                   "--management", f"127.0.0.1:{mport}", "--loop", "asyncio"],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_listening(port)
            wait_listening(mport)
            print(f"tree {args.tree}; {args.victims} victim connections per case, best of {args.rounds} rounds")
            anchors = [stats(asyncio.run(run_case(port, None, args.victims))[0]) for _ in range(args.rounds)]
            anchor_max = min(a[2] for a in anchors)
            anchor = min(anchors, key=lambda a: a[2])
            print(f"{'case':52} {'median ms':>9} {'p99 ms':>8} {'max ms':>8} {'max/anchor':>10} {'attacks':>7}")
            print(f"{'anchor: no attacker':52} {anchor[0]:9.2f} {anchor[1]:8.2f} {anchor[2]:8.2f} {1:10.1f} {0:7}")
            for name, operation, pattern, key in CASES:
                for other in ("setLocalTargetFilter", "setTargetKeyFilter"):
                    post(mport, {"type": "exec", "mbean": MBEAN, "operation": other,
                                 "arguments": ["LOCAL.*" if other == "setLocalTargetFilter" else ""]})
                answer = post(mport, {"type": "exec", "mbean": MBEAN, "operation": operation, "arguments": [pattern]})
                assert answer.get("status") == 200, answer
                rounds = [asyncio.run(run_case(port, key, args.victims)) for _ in range(args.rounds)]
                best = min(rounds, key=lambda r: max(r[0]))
                med, p99, worst = stats(best[0])
                print(f"{name:52} {med:9.2f} {p99:8.2f} {worst:8.2f} {worst / anchor_max:10.1f} {best[1]:7}")
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
