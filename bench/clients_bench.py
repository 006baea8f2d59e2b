"""Real clients against ``arouter serve`` (run by hand, never from the test suite).

    python bench/clients_bench.py [--count 50] [--rounds 3] [--loop auto|asyncio|uvloop]
                                  [--synthetic-seconds 10] [--concurrency 16]

For each real client - rhea and MQTT.js (Node, tests/js: ``cd tests/js && npm ci``), paho-mqtt
and python-qpid-proton (opening links at once, as applications do) - ``--count`` connections in a
row, ``--rounds`` times: how many got their redirect, and redirects per second (each client
connects, gets its answer and closes before the next starts, so this is the client's own pace).
Then the same while the synthetic load of ``serve_bench.py`` (the C load generator, a closed loop
of ``--concurrency`` MQTT 5 clients) runs against the same server: the real clients' redirects
beside the synthetic redirects/s, and whether every real one still got its answer. One
``arouter serve`` child process (``serve_bench.run_arouter``: CONSISTENT_HASH on CLIENT_ID,
3 targets).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import serve_bench  # noqa: E402  (bench/ is not a package)

from artemis_routing_cli.serve.loops import choose_loop  # noqa: E402

JS = Path(__file__).resolve().parents[1] / "tests" / "js"
REDIRECT = "amqp:connection:redirect"


def node_clients(port: int, count: int) -> dict[str, Callable[[], int]]:
    """The Node clients: each runs ``count`` connections in a row and returns how many were redirected."""
    if not (JS / "node_modules" / "rhea").is_dir() or not (JS / "node_modules" / "mqtt").is_dir():
        print("rhea / MQTT.js not installed (cd tests/js && npm ci): skipped")
        return {}

    def run(script: str, *extra: str) -> list[dict]:
        done = subprocess.run(["node", str(JS / script), "127.0.0.1", str(port), str(count), *extra],
                              capture_output=True, text=True, check=True, timeout=600)
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    return {
        "rhea (AMQP, links at once)": lambda: sum(o.get("condition") == REDIRECT for o in run("rhea_redirects.js")),
        "MQTT.js (MQTT 5)": lambda: sum(o.get("connack") == 0x9C and bool(o.get("serverReference"))
                                        for o in run("mqtt_redirects.js", "5", "mqttjs")),
    }


def python_clients(port: int, count: int) -> dict[str, Callable[[], int]]:
    clients: dict[str, Callable[[], int]] = {}
    try:
        from tests.serve.test_mqtt import mqtt5_connect, server_reference
    except ImportError:
        print("paho-mqtt not installed: skipped")
    else:
        def paho() -> int:
            answers = [mqtt5_connect(port, f"paho-{i}") for i in range(count)]
            return sum(rc.value == 0x9C and bool(server_reference(props)) for rc, props in answers)
        clients["paho-mqtt (MQTT 5)"] = paho
    try:
        from tests.serve.test_amqp import connect_with_links
    except ImportError:
        print("python-qpid-proton not installed: skipped")
    else:
        def proton() -> int:
            conditions = [connect_with_links(port, f"proton-{i}") for i in range(count)]
            return sum(c is not None and c.name == REDIRECT for c in conditions)
        clients["python-qpid-proton (AMQP, links at once)"] = proton
    return clients


def measure(clients: dict[str, Callable[[], int]], count: int, rounds: int) -> list[tuple[str, int, int, float]]:
    rows = []
    for name, client in clients.items():
        for _ in range(rounds):
            started = time.perf_counter()
            redirected = client()
            rows.append((name, redirected, count, count / (time.perf_counter() - started)))
    return rows


def show(title: str, rows: list[tuple[str, int, int, float]]) -> None:
    print(f"\n{title}\n| client | redirected | redirects/s |\n|---|---|---|")
    for name, redirected, count, rate in rows:
        print(f"| {name} | {redirected}/{count} | {rate:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--loop", choices=("auto", "asyncio", "uvloop"), default="auto")
    parser.add_argument("--synthetic-seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    serve_bench.raise_nofile()
    loop_name = choose_loop(args.loop).name
    tmp = tempfile.mkdtemp(prefix="arouter-clients-bench-")
    config = os.path.join(tmp, "broker.xml")
    Path(config).write_text(serve_bench.BROKER_XML, encoding="utf-8")
    port = serve_bench.free_port()
    server = multiprocessing.get_context("spawn").Process(target=serve_bench.run_arouter,
                                                          args=(port, loop_name, config), daemon=True)
    server.start()
    serve_bench.wait_listening(port)
    print(f"arouter serve on {loop_name}; {os.cpu_count()} CPUs; {args.count} connections in a row, "
          f"{args.rounds} rounds per client")
    clients = {**node_clients(port, args.count), **python_clients(port, args.count)}
    try:
        show("alone", measure(clients, args.count, args.rounds))
        loadgen = serve_bench.build_loadgen(tmp)
        if loadgen is None:
            print("no C compiler: no synthetic load")
            return
        payloads = serve_bench.write_payloads(tmp, "mqtt", serve_bench.mqtt_hello)
        job = {"port": port, "kind": "closed", "concurrency": args.concurrency, "seconds": args.synthetic_seconds}
        synthetic: dict = {}
        thread = threading.Thread(target=lambda: synthetic.update(serve_bench.c_generator(loadgen, payloads, job)))
        thread.start()
        rows = []
        while thread.is_alive():  # real clients for as long as the synthetic load runs
            rows += measure(clients, args.count, 1)
        thread.join()
        show(f"beside the synthetic load (C generator, closed loop, {args.concurrency} MQTT 5 clients, "
             f"{args.synthetic_seconds:g}s)", rows)
        print(f"\nsynthetic: {json.dumps(synthetic)}")
    finally:
        server.terminate()
        server.join(10)


if __name__ == "__main__":
    main()
