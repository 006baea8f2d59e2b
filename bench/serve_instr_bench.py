"""Instructions per redirect of ``arouter serve``'s Python work, without sockets, under callgrind (run
by hand; issue 21). Repeatable to a few instructions, where CPU times move with the machine's load.

    python bench/serve_instr_bench.py [--protocols mqtt,amqp] [--kinds serve,bare] [--keys 1000]
                                      [--before TREE] [--keep DIR] [--shapes hash|all|SHAPE,...]

Each connection is driven as ``serve_path_bench.py`` drives it (the listener of ``serve_ratio_bench.py``:
CONSISTENT_HASH on CLIENT_ID, three targets, the route log through the background writer to /dev/null;
``connection_made`` with a stand-in transport, ``data_received`` with the hello, ``eof_received``,
``connection_lost``; ``--shapes``: other routers, ``bench/router_shapes.py``). A child process inside
``valgrind --tool=callgrind`` does the set-up and a warm-up of 2,000 connections, zeroes the counts (a
client request, through a helper built from ``valgrind/callgrind.h``), drives 5,000 more connections and
dumps the counts: instructions over connections (the log writer's work on the lines included: its queue
is written out from the main thread before the counts are zeroed and again before they are dumped; its
thread does not wake meanwhile). ``bare``: the bare Protocol of ``serve_ratio_bench.py``, driven the same
way. ``--keep DIR``: the dumps are copied there (``callgrind_annotate DIR/cg.serve.mqtt``).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from router_shapes import shape_names

HERE = Path(__file__).resolve().parent

WARMUP = 2000
N = 5000

#: the client requests the child makes (valgrind/callgrind.h): zero the counts, then dump them
HELPER_C = """#include <valgrind/callgrind.h>
void cg_zero(void) { CALLGRIND_ZERO_STATS; }
void cg_dump(void) { CALLGRIND_DUMP_STATS_AT("measured"); }
"""


def build_helper(tmp: str) -> str:
    source = os.path.join(tmp, "cg_requests.c")
    Path(source).write_text(HELPER_C, encoding="utf-8")
    lib = os.path.join(tmp, "cg_requests.so")
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise SystemExit("serve_instr_bench: needs gcc (or cc) and valgrind/callgrind.h")
    subprocess.run([compiler, "-O1", "-shared", "-fPIC", "-o", lib, source], check=True)
    return lib


def drive(tree: str, kind: str, protocol: str, keys: int, helper: str) -> None:
    """The child: set up, warm up, zero the counts, ``N`` connections of ``kind``, dump the counts."""
    sys.path[:0] = [tree, str(HERE)]
    import asyncio

    # the package first, from ``tree``: serve_bench puts this tree on sys.path when imported
    import artemis_routing_cli.serve.decide

    assert artemis_routing_cli.serve.decide.__file__.startswith(tree), artemis_routing_cli.serve.decide.__file__

    from serve_path_bench import StandInTransport, bench_server
    from serve_ratio_bench import BareAnswer

    from artemis_routing_cli.config import load
    from artemis_routing_cli.serve import proxy_gate
    from artemis_routing_cli.serve.log import BackgroundWriter, ServeLog
    from artemis_routing_cli.serve.server import Server

    requests = ctypes.CDLL(helper) if helper else None
    hellos, config, options = bench_server(protocol, keys, "arouter-instr-", kind.partition(":")[2] or "hash")
    sink = open(os.devnull, "w")  # noqa: SIM115 - open for the writer thread's whole life
    # the writer thread never wakes on its own while counting: its queue is written out from here before
    # the counts are zeroed and before they are dumped, so that every measured line is written once
    writer = BackgroundWriter(sink, interval=3600.0)
    log = ServeLog("text", writer=writer)

    async def main() -> None:
        server = Server(load(config), options, log)
        await server.start()
        listener = next(iter(server._listeners.values()))
        new_protocol = proxy_gate.protocol_factory(listener) if kind != "bare" else BareAnswer
        transport = StandInTransport()

        def one(i: int) -> None:
            conn = new_protocol()
            transport.out.clear()
            transport.closed = False
            conn.connection_made(transport)  # type: ignore[arg-type]
            conn.data_received(hellos[i % keys])  # type: ignore[attr-defined]
            conn.eof_received()  # type: ignore[attr-defined]
            conn.connection_lost(None)

        for i in range(WARMUP):
            one(i)
        writer._drain()
        if requests is not None:
            requests.cg_zero()
        for i in range(N):
            one(WARMUP + i)
        writer._drain()
        if requests is not None:
            requests.cg_dump()
        await server.stop()

    try:
        asyncio.run(main())
    finally:
        log.close()
        shutil.rmtree(os.path.dirname(config), ignore_errors=True)


def measure(tmp: str, helper: str, tree: str, kind: str, protocol: str, keys: int, keep: str | None,
            shown_as: str) -> float:
    """Instructions per connection."""
    # once outside valgrind first: what the tree's modules compile to is cached before anything is counted
    subprocess.run([sys.executable, __file__, "--child", tree, kind, protocol, str(keys), ""], check=True,
                   stdout=subprocess.DEVNULL)
    out = os.path.join(tmp, f"cg.{shown_as}.{protocol}")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
                    "--child", tree, kind, protocol, str(keys), helper],
                   env=dict(os.environ, PYTHONHASHSEED="0"), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    for name in sorted(os.listdir(tmp)):
        path = os.path.join(tmp, name)
        if name.startswith(os.path.basename(out)) and "Trigger: Client Request: measured" in \
                Path(path).read_text(errors="replace")[:3000]:
            if keep is not None:
                os.makedirs(keep, exist_ok=True)
                shutil.copy(path, os.path.join(keep, os.path.basename(out)))
            found = re.search(r"^(?:summary|totals): (\d+)", Path(path).read_text(errors="replace"), re.M)
            assert found, path
            return int(found.group(1)) / N
    raise SystemExit(f"no measured dump for {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocols", default="mqtt,amqp")
    parser.add_argument("--kinds", default="serve,bare")
    parser.add_argument("--shapes", default="hash",
                        help="the router shapes serve runs (router_shapes.py), comma-separated, or all")
    parser.add_argument("--keys", type=int, default=1000, help="distinct client ids cycled through")
    parser.add_argument("--before", metavar="TREE", help="also arouter serve from this source tree")
    parser.add_argument("--keep", metavar="DIR", help="copy the measured callgrind dumps into DIR")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        tree, kind, protocol, keys, helper = args.child
        drive(tree, kind, protocol, int(keys), helper)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("serve_instr_bench: needs valgrind")
    shapes = shape_names(args.shapes)
    runs = []  # (shown as, kind, tree)
    for kind in args.kinds.split(","):
        if kind != "serve":
            runs.append((kind, kind, str(HERE.parent)))
            continue
        for shape in shapes:
            shown = "serve" if shapes == ["hash"] else f"serve:{shape}"
            if args.before:
                runs.append((shown.replace("serve", "before"), f"serve:{shape}", os.path.abspath(args.before)))
            runs.append((shown, f"serve:{shape}", str(HERE.parent)))
    print(f"callgrind, in process (stand-in transport); instructions per connection over {N:,} connections "
          f"after {WARMUP:,} of warm-up; {args.keys} client ids")
    tmp = tempfile.mkdtemp(prefix="arouter-instr-")
    try:
        helper = build_helper(tmp)
        for protocol in args.protocols.split(","):
            for shown_as, kind, tree in runs:
                count = measure(tmp, helper, tree, kind, protocol, args.keys, args.keep, shown_as)
                print(f"  {protocol:5} {shown_as:24} {count:9,.0f}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
