"""Load-test ``arouter serve`` on loopback (run by hand, never from the test suite).

    python bench/serve_bench.py [--seconds 5] [--concurrency 16] [--rate 5000] [--idle 10000]
                                [--loop auto|asyncio|uvloop] [--python-loadgen]

Measures, in one run and on the same machine, for bare servers that accept, read once and close
(the floor any Python listener pays for a connection: asyncio streams with a task per connection
and a bare ``asyncio.Protocol`` on asyncio's loop, and a bare Protocol on uvloop when it is
installed) and for ``arouter serve`` redirecting MQTT 5 (CONNECT) and AMQP (header + Open, no
SASL) clients with a CONSISTENT_HASH CLIENT_ID router, on the event loop ``arouter serve`` uses by
default (``--loop auto``: uvloop when installed) and on asyncio's own loop:

* throughput: ``--concurrency`` clients in a closed loop (connect, hello, wait for the close);
* latency at a fixed offered rate (``--rate`` connections per second, open loop): each
  connection's latency counts from the moment it was *scheduled*, so a listener that falls
  behind shows up in p99 (no coordinated omission); the achieved rate is reported too;
* server CPU per connection (user + system time of the server process over the closed-loop run,
  divided by the connections it served): the cost that does not depend on what else runs;
* idle connections: ``--idle`` clients that send half an MQTT CONNECT and wait; the listener's
  resident memory before and after, and one redirect while they are held.

Every server runs in its own process and the load generator in another one. The load generator
is ``bench/loadgen/loadgen.c`` (one epoll loop, a few microseconds per connection), compiled with
gcc at bench time, so on a 2-core machine it leaves the other core to the server; without gcc,
or with ``--python-loadgen``, an asyncio generator in Python does the same (and competes with the
server for CPU: its own scheduling delays show up as latency; it runs on the default loop too).
``--loop`` picks the loop of the first ``arouter serve`` rows as ``arouter serve --loop`` does
(``--uvloop`` is ``--loop uvloop``); the asyncio rows follow unless that is asyncio already. The
idle-connection step runs against the first server. RLIMIT_NOFILE is raised to the hard limit
everywhere.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from router_shapes import NODE_IDS, broker_xml  # noqa: E402

from artemis_routing_cli.errors import UsageError  # noqa: E402
from artemis_routing_cli.protocols.amqp import AMQP_HEADER, Open, encode_open  # noqa: E402
from artemis_routing_cli.protocols.mqtt import MqttClient  # noqa: E402
from artemis_routing_cli.serve.loops import LOOPS, choose_loop, uvloop_version  # noqa: E402

BROKER_XML = broker_xml("hash")  # CONSISTENT_HASH on CLIENT_ID over t1-t3 (router_shapes.py)

WARMUP_SECONDS = 0.5


def raise_nofile() -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def run_loop(main: Callable[[], object], loop_name: str) -> object:
    """asyncio.run on ``loop_name`` ("asyncio" or "uvloop"), as ``arouter serve --loop`` runs."""
    return choose_loop(loop_name).run(main())  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (from /proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_listening(port: int) -> None:
    deadline = time.monotonic() + 120  # a server process starting on a busy machine
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


# -- servers (child processes) ---------------------------------------------------------------------
def run_arouter(port: int, loop_name: str, config: str, local_target: str | None = None) -> None:
    raise_nofile()
    from artemis_routing_cli.config import load
    from artemis_routing_cli.routing.targets import state_from_options
    from artemis_routing_cli.serve.log import BackgroundWriter, ServeLog
    from artemis_routing_cli.serve.server import ServeOptions, run

    options = ServeOptions(listen=[f"127.0.0.1:{port}"], routers=["bench"], monitor=False,
                           state=state_from_options(NODE_IDS), local_target=local_target,
                           handshake_timeout=300.0, max_connections=100_000)
    with open(os.devnull, "w") as sink:  # the route log is written (to /dev/null) as `arouter serve` writes it
        log = ServeLog("text", writer=BackgroundWriter(sink))
        run_loop(lambda: run(load(config), options, log), loop_name)


def run_bare(port: int, loop_name: str) -> None:
    """accept, read once, close - with asyncio streams (a task per connection)."""
    raise_nofile()

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)
        writer.close()

    async def main() -> None:
        server = await asyncio.start_server(on_client, "127.0.0.1", port, backlog=1024)
        async with server:
            await server.serve_forever()

    run_loop(main, loop_name)


class _ReadOnceClose(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.transport.close()


def run_bare_protocol(port: int, loop_name: str) -> None:
    """accept, read once, close - with a bare asyncio.Protocol (what serve's listeners build on)."""
    raise_nofile()

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(_ReadOnceClose, "127.0.0.1", port, backlog=1024)
        async with server:
            await server.serve_forever()

    run_loop(main, loop_name)


def build_loadgen(tmp: str) -> str | None:
    """Compile bench/loadgen/loadgen.c; None without a C compiler."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        return None
    out = os.path.join(tmp, "loadgen")
    source = Path(__file__).resolve().parent / "loadgen" / "loadgen.c"
    subprocess.run([cc, "-O2", "-o", out, str(source)], check=True)
    return out


def write_payloads(tmp: str, name: str, hello: Callable[[int], bytes], count: int = 1000) -> str:
    """``count`` hellos (distinct keys) for the C generator: 4-byte big-endian length, then the bytes."""
    path = os.path.join(tmp, f"{name}.bin")
    with open(path, "wb") as f:
        for i in range(count):
            payload = hello(i)
            f.write(len(payload).to_bytes(4, "big") + payload)
    return path


def c_generator(binary: str, payloads: str, job: dict) -> dict:
    amount = job["rate"] if job["kind"] == "open" else job["concurrency"]
    run = subprocess.run([binary, str(job["port"]), payloads, job["kind"], str(amount), str(job["seconds"]),
                          str(WARMUP_SECONDS)], capture_output=True, text=True, check=True)
    result: dict = json.loads(run.stdout)
    if job["kind"] == "open":
        result["offered"] = job["rate"]
    return result


# -- load generator (its own process) ----------------------------------------------------------------
def amqp_hello(i: int) -> bytes:
    return AMQP_HEADER + encode_open(Open(container_id=f"bench-{i}"))


def mqtt_hello(i: int) -> bytes:
    return MqttClient().connect(f"bench-{i}")


HELLOS = {"mqtt": mqtt_hello, "amqp": amqp_hello}


class OneShot(asyncio.Protocol):
    """Send the hello, ignore the answer, finish when the server closes."""

    def __init__(self, payload: bytes, done: asyncio.Future[None]) -> None:
        self.payload = payload
        self.done = done

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.write(self.payload)  # type: ignore[attr-defined]

    def data_received(self, data: bytes) -> None:
        pass

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


async def one(loop: asyncio.AbstractEventLoop, port: int, payload: bytes) -> None:
    done: asyncio.Future[None] = loop.create_future()
    await loop.create_connection(lambda: OneShot(payload, done), "127.0.0.1", port)
    await done


def summary(latencies: list[float], seconds: float, errors: int) -> dict[str, float]:
    if len(latencies) < 100:
        return {"rate": len(latencies) / seconds, "p50": 0.0, "p99": 0.0, "max": 0.0, "n": len(latencies),
                "errors": errors}
    q = statistics.quantiles(latencies, n=100)
    return {"rate": len(latencies) / seconds, "p50": q[49] * 1000, "p99": q[98] * 1000,
            "max": max(latencies) * 1000, "n": len(latencies), "errors": errors}


async def closed_loop(port: int, hello: Callable[[int], bytes], seconds: float, concurrency: int) -> dict:
    loop = asyncio.get_running_loop()
    payloads = [hello(i) for i in range(1000)]
    latencies: list[float] = []
    errors = 0
    counter = 0
    measure_from = time.perf_counter() + WARMUP_SECONDS
    stop = measure_from + seconds

    async def worker() -> None:
        nonlocal counter, errors
        while (now := time.perf_counter()) < stop:
            counter += 1
            try:
                await one(loop, port, payloads[counter % 1000])
            except OSError:
                errors += 1
                continue
            if now >= measure_from:
                latencies.append(time.perf_counter() - now)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    result = summary(latencies, seconds, errors)
    result["total"] = counter - errors
    return result


async def open_loop(port: int, hello: Callable[[int], bytes], seconds: float, rate: float) -> dict:
    """Start connections on a fixed schedule; latency counts from each scheduled start."""
    loop = asyncio.get_running_loop()
    payloads = [hello(i) for i in range(1000)]
    latencies: list[float] = []
    errors = 0
    tasks: set[asyncio.Task[None]] = set()
    begin = time.perf_counter() + 0.05
    measure_from = begin + WARMUP_SECONDS
    total = int((WARMUP_SECONDS + seconds) * rate)

    async def timed(i: int, scheduled: float) -> None:
        nonlocal errors
        try:
            await one(loop, port, payloads[i % 1000])
        except OSError:
            errors += 1
            return
        if scheduled >= measure_from:
            latencies.append(time.perf_counter() - scheduled)

    i = 0
    while i < total:
        now = time.perf_counter()
        while i < total and begin + i / rate <= now:
            task = asyncio.create_task(timed(i, begin + i / rate))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            i += 1
        if i < total:
            await asyncio.sleep(max(begin + i / rate - time.perf_counter(), 0))
    ended = time.perf_counter()
    if tasks:
        await asyncio.gather(*tasks)
    measured = [x for x in latencies]
    result = summary(measured, ended - measure_from, errors)
    result["offered"] = rate
    return result


async def hold_idle(port: int, count: int, server_pid: int) -> dict:
    before = rss_kib(server_pid)
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
    after = rss_kib(server_pid)
    started = time.perf_counter()
    await one(asyncio.get_running_loop(), port, mqtt_hello(1))  # the listener still answers
    latency = time.perf_counter() - started
    for writer in writers:
        writer.close()
    return {"held": len(writers), "before": before, "after": after, "latency": latency}


def generator(job: dict, results: multiprocessing.Queue) -> None:  # the Python load generator
    raise_nofile()
    kind = job["kind"]
    if kind == "closed":
        main = lambda: closed_loop(job["port"], HELLOS[job["hello"]], job["seconds"], job["concurrency"])  # noqa: E731
    elif kind == "open":
        main = lambda: open_loop(job["port"], HELLOS[job["hello"]], job["seconds"], job["rate"])  # noqa: E731
    else:
        main = lambda: hold_idle(job["port"], job["count"], job["server_pid"])  # noqa: E731
    results.put(run_loop(main, job["loop"]))


def in_generator(ctx: multiprocessing.context.SpawnContext, job: dict) -> dict:
    results = ctx.Queue()
    proc = ctx.Process(target=generator, args=(job, results))
    proc.start()
    result = results.get()
    proc.join(30)
    return result  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=16, help="closed-loop clients (throughput)")
    parser.add_argument("--rate", type=float, default=5000.0, help="offered connections/s (latency, open loop)")
    parser.add_argument("--idle", type=int, default=10_000)
    parser.add_argument("--loop", choices=LOOPS, default="auto",
                        help="event loop of the first arouter serve rows, as arouter serve --loop (default auto)")
    parser.add_argument("--uvloop", action="store_const", const="uvloop", dest="loop", help="same as --loop uvloop")
    parser.add_argument("--python-loadgen", action="store_true", help="the asyncio load generator, not the C one")
    args = parser.parse_args()
    hard = raise_nofile()
    try:
        serve_loop = choose_loop(args.loop)
    except UsageError as exc:  # --loop uvloop without uvloop
        raise SystemExit(f"serve_bench: {exc}") from None
    tmp = tempfile.mkdtemp(prefix="arouter-bench-")
    loadgen = None if args.python_loadgen else build_loadgen(tmp)
    generator_name = "C (bench/loadgen/loadgen.c, epoll)" if loadgen else "Python asyncio"
    uvloop = uvloop_version()
    print(f"RLIMIT_NOFILE {hard}; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}; uvloop "
          f"{uvloop or 'not installed'}; arouter serve rows on {serve_loop.name} ({serve_loop.reason})"
          f"{' and on asyncio' if serve_loop.name != 'asyncio' else ''}")
    print(f"load generator: {generator_name}, separate process; closed loop with {args.concurrency} clients, "
          f"open loop at {args.rate:g}/s; {args.seconds:g}s each after {WARMUP_SECONDS}s warm-up")
    config = os.path.join(tmp, "broker.xml")
    Path(config).write_text(BROKER_XML, encoding="utf-8")
    payloads = {name: write_payloads(tmp, name, hello) for name, hello in HELLOS.items()}

    ctx = multiprocessing.get_context("spawn")
    # (name, server function, its event loop, its arguments after port and loop, the hellos of its rows)
    servers: list[tuple[str, Callable[..., None], str, tuple[str, ...], tuple[str, ...]]] = [
        ("bare asyncio streams: read+close", run_bare, "asyncio", (), ("mqtt",)),
        ("bare asyncio Protocol: read+close", run_bare_protocol, "asyncio", (), ("mqtt",)),
    ]
    if uvloop is not None:
        servers.append(("bare uvloop Protocol: read+close", run_bare_protocol, "uvloop", (), ("mqtt",)))
    for loop_name in [serve_loop.name] + (["asyncio"] if serve_loop.name != "asyncio" else []):
        servers.append(("arouter serve", run_arouter, loop_name, (config,), ("mqtt", "amqp")))
    ports = [free_port() for _ in servers]
    procs = [ctx.Process(target=target, args=(port, loop_name, *extra), daemon=True)
             for port, (_, target, loop_name, extra, _) in zip(ports, servers, strict=True)]
    for proc in procs:
        proc.start()
    for port in ports:
        wait_listening(port)

    def generate(job: dict) -> dict:
        job = {**job, "seconds": args.seconds, "loop": serve_loop.name}
        if loadgen is not None and job["kind"] in ("open", "closed"):
            return c_generator(loadgen, payloads[job["hello"]], job)
        return in_generator(ctx, job)

    names = {"mqtt": "MQTT 5 redirect", "amqp": "AMQP redirect"}
    try:
        print(f"{'':42} {'closed-loop':>12} {'server CPU':>11} | {'open loop: achieved':>20} {'p50':>8} "
              f"{'p99':>8} {'max':>8} errors")
        base = None
        for port, proc, (name, target, loop_name, _, hellos) in zip(ports, procs, servers, strict=True):
            for hello in hellos:
                row = f"{name} {names[hello]} [{loop_name}]" if target is run_arouter else name
                pid = proc.pid
                assert pid is not None
                cpu_before = cpu_seconds(pid)
                closed = generate({"kind": "closed", "port": port, "hello": hello, "concurrency": args.concurrency})
                cpu_us = (cpu_seconds(pid) - cpu_before) * 1e6 / max(closed["total"], 1)
                opened = generate({"kind": "open", "port": port, "hello": hello, "rate": args.rate})
                base = base or closed
                overhead = "" if closed is base else f"  ({closed['rate'] / base['rate']:.0%} of bare streams)"
                print(f"{row:42} {closed['rate']:10.0f}/s {cpu_us:6.0f} us/conn | {opened['rate']:18.0f}/s "
                      f"{opened['p50']:6.2f}ms "
                      f"{opened['p99']:6.2f}ms {opened['max']:6.1f}ms {closed['errors'] + opened['errors']}{overhead}")
        # the idle connections: against the first arouter server (arouter serve's default loop)
        port, proc = next((port, proc) for port, proc, server in zip(ports, procs, servers, strict=True)
                          if server[1] is run_arouter)
        idle = generate({"kind": "idle", "port": port, "count": args.idle, "server_pid": proc.pid})
        each = (idle["after"] - idle["before"]) * 1024 // max(idle["held"], 1)
        print(f"idle connections held ({serve_loop.name}): {idle['held']}; listener RSS {idle['before'] // 1024} MiB "
              f"-> {idle['after'] // 1024} MiB ({each} bytes each); a redirect meanwhile took "
              f"{idle['latency'] * 1000:.1f} ms")
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.join(10)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
