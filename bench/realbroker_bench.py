"""``arouter serve`` against the real Artemis broker redirecting the same clients, and ``arouter validate``
against the real broker's start-to-verdict time (run by hand, never from the test suite; issue 31).

    python bench/realbroker_bench.py [--seconds 5] [--repeats 3] [--concurrency 16]

Starts the realbroker tests' cluster (tests/realbroker/cluster.py: Artemis 2.40.0 from the distribution,
three brokers on 127.0.0.1-3), reads the node ids with ``arouter probe --save`` and starts ``arouter serve``
on broker 0's broker.xml, router ``ch`` (CONSISTENT_HASH by CLIENT_ID), ``--no-monitor``, the default loop.

Redirects: the C load generator (bench/loadgen) runs a closed loop of ``--concurrency`` MQTT 5 clients
(CONNECT with one of 1,000 client ids, read the CONNACK 0x9C + Server Reference until the server closes)
against broker 0's ``ch`` acceptor and against serve, ``--seconds`` each, alternating. CPU per redirect:
the server process's user + system time over the run (``/proc/PID/stat``) divided by the connections it
completed, after one warm-up run each (the JVM's JIT); the broker logs at INFO (AMQ221085 per redirect), as
it does by default; for the broker, the CPU it spends idle over as many seconds (its pools' checks, measured just
before) is subtracted. AMQP is left out: after its redirect Close the broker keeps the socket until the
client's Close or 60 s (serve ends its side at once), and the generator reads until the server closes.

Verdicts: wall time of ``arouter validate`` (a process, as users run it) against the broker's start to
its verdict (``bin/artemis run`` to AMQ221007 for a config that deploys, to the process's end for one it
refuses), same configs, one instance without web console.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from serve_bench import build_loadgen, c_generator, write_payloads  # noqa: E402

from tests.cli.test_deploy_verdict import REFUSED, router, write  # noqa: E402
from tests.realbroker.brokerxml import ROUTER_PORTS  # noqa: E402
from tests.realbroker.cluster import probe_save, start_cluster  # noqa: E402
from tests.realbroker.instances import ACTIVE, create, launch, wait_logged  # noqa: E402
from tests.realbroker.serving import start_serve  # noqa: E402
from tests.realbroker.test_serve_equals_broker import mqtt5_connect_packet  # noqa: E402


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def closed_loop(loadgen: str, payloads: str, port: int, pid: int, seconds: float, concurrency: int) -> tuple:
    before = cpu_seconds(pid)
    result = c_generator(loadgen, payloads, {"kind": "closed", "port": port, "concurrency": concurrency,
                                             "seconds": seconds})
    used = cpu_seconds(pid) - before
    return result, used


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="realbroker-bench-"))
    loadgen = build_loadgen(str(work))
    if loadgen is None:
        raise SystemExit("realbroker_bench: needs gcc (or cc) for bench/loadgen/loadgen.c")
    payloads = write_payloads(str(work), "mqtt5", lambda i: mqtt5_connect_packet(f"bench-{i}"))
    print(f"{os.cpu_count()} CPUs; load {os.getloadavg()[0]:.2f}; closed loop {args.concurrency} MQTT 5 clients "
          f"x {args.seconds:g}s, {args.repeats} repeats")
    cluster = start_cluster(work / "cluster", router_debug=False)  # INFO only, as a broker runs by default
    try:
        targets = work / "targets.json"
        probe_save(cluster, targets)
        served = start_serve(cluster.config(0), "ch", work, "--targets", str(targets), "--no-monitor", "-D",
                             "ordinal=0")
        try:
            broker_pid = cluster.brokers[0].proc.pid
            broker_port = cluster.layout.port(ROUTER_PORTS["ch"])
            for port, pid in ((broker_port, broker_pid), (served.port, served.proc.pid)):  # JIT and caches warm
                closed_loop(loadgen, payloads, port, pid, args.seconds, args.concurrency)
            rows = []
            for repeat in range(args.repeats):
                idle_before = cpu_seconds(broker_pid)
                time.sleep(args.seconds)  # the broker's idle CPU over as long as a run: its pools' checks
                idle = cpu_seconds(broker_pid) - idle_before
                runs = {}
                order = ["broker", "serve"] if repeat % 2 == 0 else ["serve", "broker"]
                for kind in order:
                    port, pid = (broker_port, broker_pid) if kind == "broker" else (served.port, served.proc.pid)
                    result, used = closed_loop(loadgen, payloads, port, pid, args.seconds, args.concurrency)
                    if kind == "broker":
                        used = max(used - idle, 0.0)
                    done = result["total"]
                    runs[kind] = (result["rate"], used / max(done, 1) * 1e6, result.get("errors", 0))
                rows.append(runs)
                print(f"repeat {repeat}: broker {runs['broker'][0]:7.0f}/s {runs['broker'][1]:7.1f} us CPU "
                      f"(errors {runs['broker'][2]}); serve {runs['serve'][0]:7.0f}/s {runs['serve'][1]:7.1f} us CPU "
                      f"(errors {runs['serve'][2]}); rate serve/broker {runs['serve'][0] / runs['broker'][0]:.2f}x, "
                      f"CPU serve/broker {runs['serve'][1] / runs['broker'][1]:.2f}x")
            rate = statistics.median(r["serve"][0] / r["broker"][0] for r in rows)
            cpu = statistics.median(r["serve"][1] / r["broker"][1] for r in rows)
            print(f"median: redirects/s serve/broker {rate:.2f}x; CPU per redirect serve/broker {cpu:.2f}x")
        finally:
            served.stop()
    finally:
        cluster.stop()

    instance = create(work / "verdicts", "127.0.0.1", None)
    cases = {"deploys (FIRST_ELEMENT router)": router(), "refuses (modulo-missing)": REFUSED["modulo-missing"][0]}
    for name, fragment in cases.items():
        path = write(instance / "etc", fragment)
        ours, theirs = [], []
        for _ in range(args.repeats):
            start = time.monotonic()
            subprocess.run([sys.executable, "-m", "artemis_routing_cli", "validate", str(path)], cwd=ROOT,
                           capture_output=True, check=False)
            ours.append(time.monotonic() - start)
            start = time.monotonic()
            run = launch(instance)
            try:
                wait_logged(run, ACTIVE)
                theirs.append(time.monotonic() - start)
            finally:
                run.stop()
        print(f"verdict, {name}: validate {statistics.median(ours):.2f}s, broker {statistics.median(theirs):.2f}s, "
              f"ratio validate/broker {statistics.median(ours) / statistics.median(theirs):.3f}x")


if __name__ == "__main__":
    main()
