"""``arouter serve``'s CPU per redirect against a bare Protocol on the same loop, and the offered-rate
test (run by hand, never from the test suite; issue 21).

    python bench/serve_ratio_bench.py [--repeats 5] [--seconds 3] [--rate 5000] [--open-seconds 5]
                                      [--protocols mqtt,amqp] [--loops uvloop,asyncio] [--before TREE]
                                      [--shapes hash|all|SHAPE,...]

The anchor: a bare ``asyncio.Protocol`` that reads one hello (an MQTT CONNECT, or the AMQP header and
Open) until it is whole and writes a fixed answer - the very bytes ``arouter serve`` answers that
hello with, read from the serve process at the start of the run - then closes. It does nothing
else: no decoding, no key, no routing, no log line, no metrics, no deadline.

Server processes stay up for the whole run, each on uvloop and on asyncio's own loop: the bare
Protocol; the same with serve's socket discipline after the answer (``half-close``: FIN, read until
the client closes, then close - what keeps a pipelining client from losing its answer to a reset),
which shows what that discipline costs by itself; ``arouter serve`` (the route log written to
/dev/null as ``arouter serve`` writes it); with ``--before TREE`` also ``arouter serve`` from another
source tree (``git archive OLD | tar -x -C TREE``), so a before/after comes from one run.
The load generator is ``bench/loadgen/loadgen.c`` (C, one epoll loop: a few microseconds per
connection), in its own process.

``--shapes``: the routers ``arouter serve`` runs, one server process each (``bench/router_shapes.py``:
each policy with and without a cache, a key-filter, local-target-filters, a SOURCE_IP key, the
operator's sharding pattern; the default is ``hash``, CONSISTENT_HASH over three targets). Each
shape is measured next to its own run of the bare Protocol, and its ratio is taken against that one.

Each repeat runs, in an order that alternates from repeat to repeat, for each protocol and loop:
the bare Protocol and serve in a closed loop (16 clients: connect, hello, read until the server
closes), ``--seconds`` each. CPU per redirect is the server process's user + system time over
the run (``/proc/PID/stat``; the user part in brackets) divided by the connections it completed;
the ratio serve / bare is taken within the repeat, so a busy machine moves both sides alike. Then,
once per repeat, the open loop: ``--rate`` connections/s on a fixed schedule for
``--open-seconds`` against serve on the loop ``arouter serve`` picks by default (``--loop auto``)
and on asyncio's own loop (an install without uvloop); latency from each *scheduled* start, so a
listener that falls behind shows in p99.

Printed: every repeat's numbers, then median and spread (min-max) of each ratio and of p99. The
load average before and after is printed too: latency depends on what else runs on the machine,
the CPU ratios much less.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import shutil
import socket
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from router_shapes import SHAPES, broker_xml, local_target, shape_names  # noqa: E402
from serve_bench import (  # noqa: E402
    HELLOS,
    build_loadgen,
    c_generator,
    free_port,
    raise_nofile,
    run_arouter,
    run_loop,
    wait_listening,
    write_payloads,
)

from artemis_routing_cli.serve.loops import choose_loop, uvloop_version  # noqa: E402


def _hello_length(data: bytes) -> int | None:
    """The length of the hello at the head of ``data`` (MQTT CONNECT, or AMQP header + one frame);
    None while too little is there to tell."""
    if data[:1] == b"A":  # AMQP: 8-byte header, then one frame whose size is its first 4 bytes
        if len(data) < 12:
            return None
        return 8 + int.from_bytes(data[8:12], "big")
    # MQTT: fixed header byte, then the remaining length (variable byte integer)
    length = 0
    shift = 0
    for i in range(1, min(len(data), 5)):
        byte = data[i]
        length |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return 1 + i + length
        shift += 7
    return None


class BareAnswer(asyncio.Protocol):
    """Read one hello until it is whole, write the fixed answer for its protocol, close."""

    answers: dict[bytes, bytes] = {}  # first byte of the hello -> the answer
    half_close = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer + data if self.buffer else data
        need = _hello_length(buffer)
        if need is None or len(buffer) < need:
            self.buffer = buffer
            return
        self.buffer = b""
        self.transport.write(self.answers[buffer[:1]])  # type: ignore[attr-defined]
        if self.half_close:
            self.transport.write_eof()  # type: ignore[attr-defined]
        else:
            self.transport.close()

    def eof_received(self) -> bool:
        return False  # the transport closes


class BareHalfClose(BareAnswer):
    """The same, with serve's socket discipline after the answer: half-close (FIN), read until the
    client closes, then close - what keeps an answer from being lost to a reset (bench/README.md)."""

    half_close = True


def run_bare_answer(port: int, loop_name: str, answers: dict[bytes, bytes], half_close: bool = False) -> None:
    raise_nofile()
    BareAnswer.answers = answers
    protocol = BareHalfClose if half_close else BareAnswer

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(protocol, "127.0.0.1", port, backlog=1024)
        async with server:
            await server.serve_forever()

    run_loop(main, loop_name)


def run_serve_from(port: int, loop_name: str, config: str, tree: str, local_target: str | None = None) -> None:
    """``arouter serve`` as the source tree ``tree`` has it (another checkout, for a before/after in
    one run): a child Python with that tree first on its path, started as this script's servers are."""
    code = ("import sys; sys.path[:0] = [sys.argv[1], sys.argv[1] + '/bench']; from serve_bench import run_arouter; "
            "run_arouter(int(sys.argv[2]), sys.argv[3], *sys.argv[4:])")  # config[, --local-target]
    os.execv(sys.executable, [sys.executable, "-c", code, tree, str(port), loop_name, config]
             + ([local_target] if local_target else []))


def read_answer(port: int, hello: bytes) -> bytes:
    """What the server at ``port`` answers ``hello`` with, read until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(hello)
        chunks = []
        while data := sock.recv(65536):
            chunks.append(data)
    return b"".join(chunks)


def cpu_split(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def spread(values: list[float], fmt: str) -> str:
    return f"{format(statistics.median(values), fmt)} ({format(min(values), fmt)}-{format(max(values), fmt)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0, help="each closed-loop measurement")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rate", type=float, default=5000.0, help="offered connections/s (open loop)")
    parser.add_argument("--open-seconds", type=float, default=5.0, help="0: no open-loop test")
    parser.add_argument("--keys", type=int, default=1000,
                        help="distinct client ids the generator cycles through (1000 is below routing.fnv.MEMO_SIZE, "
                             "4096: their hashes are remembered; above it every hash is worked out afresh)")
    parser.add_argument("--protocols", default="mqtt,amqp")
    parser.add_argument("--loops", default="uvloop,asyncio")
    parser.add_argument("--shapes", default="hash",
                        help="the routers serve runs, each its own process (bench/router_shapes.py): comma-separated "
                             "names, or all")
    parser.add_argument("--before", metavar="TREE", help="also measure arouter serve from this source tree "
                                                          "(e.g. `git archive` of an older commit), interleaved")
    args = parser.parse_args()
    protocols = args.protocols.split(",")
    loops = args.loops.split(",")
    shapes = shape_names(args.shapes)
    if uvloop_version() is None:
        loops = [name for name in loops if name != "uvloop"]
    default_loop = choose_loop("auto")
    raise_nofile()
    tmp = tempfile.mkdtemp(prefix="arouter-ratio-")
    loadgen = build_loadgen(tmp)
    if loadgen is None:
        raise SystemExit("serve_ratio_bench: needs gcc (or cc) for bench/loadgen/loadgen.c")
    configs = {}  # shape -> its broker.xml
    for shape in shapes:
        configs[shape] = os.path.join(tmp, f"broker-{shape}.xml")
        Path(configs[shape]).write_text(broker_xml(shape), encoding="utf-8")
    payloads = {name: write_payloads(tmp, name, HELLOS[name], args.keys) for name in protocols}
    print(f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}; uvloop {uvloop_version() or 'not installed'}; "
          f"arouter serve's default loop here: {default_loop.name} ({default_loop.reason})")
    print(f"load generator: bench/loadgen/loadgen.c; closed loop {args.concurrency} clients x {args.seconds:g}s; "
          f"open loop {args.rate:g}/s x {args.open_seconds:g}s; {args.repeats} repeats, interleaved; "
          f"{args.keys} distinct client ids, cycled")
    for shape in shapes:
        print(f"  router {shape}: {SHAPES[shape].about}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    ctx = multiprocessing.get_context("spawn")
    procs: list[multiprocessing.process.BaseProcess] = []
    port: dict[tuple[str, str], int] = {}  # (kind, loop) -> port; kinds: bare, half-close, serve[:SHAPE], before..
    pid: dict[tuple[str, str], int] = {}

    def start(kind: str, loop_name: str, target: Callable[..., None], *extra: object) -> None:
        port[kind, loop_name] = free_port()
        proc = ctx.Process(target=target, args=(port[kind, loop_name], loop_name, *extra), daemon=True)
        proc.start()
        procs.append(proc)
        pid[kind, loop_name] = proc.pid  # type: ignore[assignment]

    def named(kind: str, shape: str) -> str:
        return kind if shapes == ["hash"] else f"{kind}:{shape}"

    try:
        first = named("serve", shapes[0])
        for loop_name in loops:
            for shape in shapes:  # one at a time: a dozen interpreters starting at once on a busy machine are slow
                start(named("serve", shape), loop_name, run_arouter, configs[shape], local_target(shape))
                wait_listening(port[named("serve", shape), loop_name])
        answers = {HELLOS[name](0)[:1]: read_answer(port[first, loops[0]], HELLOS[name](0)) for name in protocols}
        for head, answer in answers.items():
            print(f"fixed answer to a hello starting {head!r}: {len(answer)} bytes (serve's own answer)")
        for loop_name in loops:
            if args.before:
                for shape in shapes:
                    start(named("before", shape), loop_name, run_serve_from, configs[shape],
                          os.path.abspath(args.before), local_target(shape))
                    wait_listening(port[named("before", shape), loop_name])
            start("bare", loop_name, run_bare_answer, answers, False)
            start("half-close", loop_name, run_bare_answer, answers, True)
        for where in port.values():
            wait_listening(where)

        def closed(kind: str, loop_name: str, protocol: str) -> tuple[float, float, float]:
            """(µs of server CPU per connection, connections/s, of the CPU µs in user space) of one
            closed-loop run."""
            before = cpu_split(pid[kind, loop_name])
            result = c_generator(loadgen, payloads[protocol], {"kind": "closed", "port": port[kind, loop_name],
                                                               "concurrency": args.concurrency,
                                                               "seconds": args.seconds})
            after = cpu_split(pid[kind, loop_name])
            done = max(result["total"] - result["errors"], 1)
            user, system = ((a - b) * 1e6 / done for a, b in zip(after, before, strict=True))
            return user + system, result["rate"], user

        # each shape is measured with the bare Protocol next to it (its own anchor), the order alternating
        groups = [("bare",) + (("half-close",) if i == 0 else ()) + ((named("before", shape),) if args.before else ())
                  + (named("serve", shape),) for i, shape in enumerate(shapes)]
        kinds = [kind for group in groups for kind in group[1:]]
        ratios: dict[tuple[str, str, str], list[float]] = {}  # (kind, protocol, loop): kind's CPU / bare's
        cpus: dict[tuple[str, str, str], list[float]] = {}
        p99s: dict[str, list[float]] = {}
        open_loops = [default_loop.name] + (["asyncio"] if default_loop.name != "asyncio" and "asyncio" in loops
                                            else [])
        if args.open_seconds <= 0:
            open_loops = []
        for rep in range(args.repeats):
            print(f"-- repeat {rep + 1}/{args.repeats} (load average {os.getloadavg()[0]:.2f})")
            for protocol in protocols:
                for loop_name in loops:
                    for group in groups if rep % 2 == 0 else groups[::-1]:
                        order = group if rep % 2 == 0 else group[::-1]
                        got = {kind: closed(kind, loop_name, protocol) for kind in order}
                        shown = []
                        for kind in group:
                            cpu, rate, user = got[kind]
                            cpus.setdefault((kind, protocol, loop_name), []).append(cpu)
                            ratio = cpu / got["bare"][0]
                            ratios.setdefault((kind, protocol, loop_name), []).append(ratio)
                            times = "" if kind == "bare" else f" {ratio:.2f}x"
                            shown.append(f"{kind} {cpu:5.1f} us (user {user:5.1f}) {rate:5.0f}/s{times}")
                        print(f"   {protocol:5} {loop_name:8} " + " | ".join(shown), flush=True)
            for loop_name in open_loops:
                for kind in (first, named("before", shapes[0])) if args.before else (first,):
                    result = c_generator(loadgen, payloads["mqtt" if "mqtt" in protocols else protocols[0]],
                                         {"kind": "open", "port": port[kind, loop_name], "rate": args.rate,
                                          "seconds": args.open_seconds})
                    p99s.setdefault(f"{kind} [{loop_name}]", []).append(result["p99"])
                    print(f"   open loop {args.rate:g}/s, {kind} [{loop_name}]: achieved {result['rate']:.0f}/s, "
                          f"p50 {result['p50']:.2f} ms, p99 {result['p99']:.2f} ms, max {result['max']:.1f} ms, "
                          f"errors {result['errors']}")
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print("== summary: median (min-max) over the repeats; CPU per connection, then / the bare Protocol's "
              "measured next to it")
        for protocol in protocols:
            for loop_name in loops:
                print(f"   {protocol:5} {loop_name:8} bare {spread(cpus['bare', protocol, loop_name], '.1f')} us")
                for kind in kinds:
                    print(f"   {protocol:5} {loop_name:8} {kind:24} {spread(cpus[kind, protocol, loop_name], '.1f')} us"
                          f" = {spread(ratios[kind, protocol, loop_name], '.2f')}x")
        for loop_name, values in p99s.items():
            met = sum(1 for v in values if v < 10)
            print(f"   open loop {args.rate:g}/s {loop_name}: p99 {spread(values, '.2f')} ms; "
                  f"< 10 ms in {met} of {len(values)}")
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.join(10)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
