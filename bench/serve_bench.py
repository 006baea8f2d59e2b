"""Load-test ``arouter serve`` on loopback (run by hand, never from the test suite).

    python bench/serve_bench.py [--seconds 5] [--concurrency 64] [--idle 10000]

Measures, in one run and on the same machine:

* redirects per second and p50/p99 latency (connect -> answer -> close) for AMQP (header + Open,
  no SASL) and MQTT 5 (CONNECT), against ``arouter serve`` with a CONSISTENT_HASH CLIENT_ID router;
* the same client loop against a bare asyncio server that accepts, reads once and closes - the
  floor any Python listener pays for a connection;
* how many idle connections the listener holds (clients that sent one byte and wait), and the
  listener's resident memory before and after.

Each server runs in its own process; RLIMIT_NOFILE is raised to the hard limit everywhere.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import resource
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from artemis_routing_cli.protocols.amqp import AMQP_HEADER, Open, encode_open  # noqa: E402
from artemis_routing_cli.protocols.mqtt import MqttClient  # noqa: E402

BROKER_XML = """<?xml version="1.0" encoding="UTF-8"?>
<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">
  <connectors>
    <connector name="t1">tcp://10.0.0.1:61616</connector>
    <connector name="t2">tcp://10.0.0.2:61616</connector>
    <connector name="t3">tcp://10.0.0.3:61616</connector>
  </connectors>
  <connection-routers><connection-router name="bench">
    <key-type>CLIENT_ID</key-type><policy name="CONSISTENT_HASH"/>
    <pool><static-connectors><connector-ref>t1</connector-ref><connector-ref>t2</connector-ref>
      <connector-ref>t3</connector-ref></static-connectors></pool>
  </connection-router></connection-routers>
</core></configuration>
"""


def raise_nofile() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# -- servers (child processes) ---------------------------------------------------------------------
def run_arouter(config: str, port: int) -> None:
    raise_nofile()
    from artemis_routing_cli.config import load
    from artemis_routing_cli.routing.targets import state_from_options
    from artemis_routing_cli.serve.log import ServeLog
    from artemis_routing_cli.serve.server import ServeOptions, run

    options = ServeOptions(listen=[f"127.0.0.1:{port}"], routers=["bench"], monitor=False,
                           state=state_from_options(["t1=node-1", "t2=node-2", "t3=node-3"]),
                           handshake_timeout=300.0, max_connections=100_000)
    with open(os.devnull, "w") as sink:
        asyncio.run(run(load(config), options, ServeLog("text", stream=sink)))


def run_bare(port: int) -> None:
    raise_nofile()

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)
        writer.close()

    async def main() -> None:
        server = await asyncio.start_server(on_client, "127.0.0.1", port, backlog=1024)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def wait_listening(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


# -- clients -----------------------------------------------------------------------------------------
def amqp_hello(i: int) -> bytes:
    return AMQP_HEADER + encode_open(Open(container_id=f"bench-{i}"))


def mqtt_hello(i: int) -> bytes:
    return MqttClient().connect(f"bench-{i}")


async def one(port: int, payload: bytes) -> float:
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(payload)
    await writer.drain()
    while await reader.read(65536):
        pass
    writer.close()
    return time.perf_counter() - started


async def load(port: int, hello, seconds: float, concurrency: int) -> tuple[int, list[float], int]:
    latencies: list[float] = []
    errors = 0
    stop = time.perf_counter() + seconds
    counter = 0

    async def worker() -> None:
        nonlocal counter, errors
        while time.perf_counter() < stop:
            counter += 1
            try:
                latencies.append(await one(port, hello(counter % 1000)))
            except OSError:
                errors += 1

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return int(len(latencies) / (time.perf_counter() - started)), latencies, errors


def report(name: str, rate: int, latencies: list[float], errors: int) -> None:
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 100 else [0.0] * 99
    print(f"{name:34} {rate:8d}/s   p50 {q[49] * 1000:7.2f} ms   p99 {q[98] * 1000:7.2f} ms   "
          f"errors {errors}")


async def hold_idle(port: int, count: int) -> list[asyncio.StreamWriter]:
    writers = []
    for start in range(0, count, 500):
        batch = await asyncio.gather(*(asyncio.open_connection("127.0.0.1", port)
                                       for _ in range(min(500, count - start))), return_exceptions=True)
        for item in batch:
            if isinstance(item, BaseException):
                continue
            _, writer = item
            writer.write(b"\x10")  # half an MQTT CONNECT: the listener must keep waiting
            writers.append(writer)
    await asyncio.sleep(1.0)  # let the listener accept and park them all before measuring
    return writers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--idle", type=int, default=10_000)
    args = parser.parse_args()
    hard = raise_nofile()
    print(f"RLIMIT_NOFILE {hard}; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}")
    tmp = tempfile.mkdtemp(prefix="arouter-bench-")
    config = os.path.join(tmp, "broker.xml")
    Path(config).write_text(BROKER_XML, encoding="utf-8")

    ctx = multiprocessing.get_context("spawn")
    serve_port, bare_port = free_port(), free_port()
    serve_proc = ctx.Process(target=run_arouter, args=(config, serve_port), daemon=True)
    bare_proc = ctx.Process(target=run_bare, args=(bare_port,), daemon=True)
    serve_proc.start()
    bare_proc.start()
    wait_listening(serve_port)
    wait_listening(bare_port)
    try:
        for name, port, hello in (("bare asyncio accept+close (MQTT bytes)", bare_port, mqtt_hello),
                                  ("arouter serve MQTT 5 redirect", serve_port, mqtt_hello),
                                  ("arouter serve AMQP redirect", serve_port, amqp_hello)):
            rate, latencies, errors = asyncio.run(load(port, hello, args.seconds, args.concurrency))
            report(name, rate, latencies, errors)

        async def idle() -> None:
            before = rss_kib(serve_proc.pid)
            writers = await hold_idle(serve_port, args.idle)
            after = rss_kib(serve_proc.pid)
            # the listener still answers while holding them
            latency = await one(serve_port, mqtt_hello(1))
            print(f"idle connections held: {len(writers)}; listener RSS {before // 1024} MiB -> "
                  f"{after // 1024} MiB ({(after - before) * 1024 // max(len(writers), 1)} bytes each); "
                  f"a redirect meanwhile took {latency * 1000:.1f} ms")
            for writer in writers:
                writer.close()

        asyncio.run(idle())
    finally:
        serve_proc.terminate()
        bare_proc.terminate()
        serve_proc.join(10)
        bare_proc.join(10)


if __name__ == "__main__":
    main()
