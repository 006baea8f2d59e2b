"""The Python work of one ``arouter serve`` redirect, without sockets (run by hand; issue 21).

    python bench/serve_path_bench.py [--protocols mqtt,amqp] [--rounds 7] [--before TREE]

A listener of ``arouter serve`` is built as ``serve_ratio_bench.py`` builds it (CONSISTENT_HASH on
CLIENT_ID, three targets, the route log through the background writer to /dev/null), and each
connection's protocol object is driven by hand: ``connection_made`` with a stand-in transport (a
double: it records writes and answers ``peername``), ``data_received`` with the client's hello,
``eof_received``, ``connection_lost`` - every callback the event loop makes for a redirect, and
nothing of the loop itself. The anchor in the same process: the bare Protocol of
``serve_ratio_bench.py`` driven the same way. CPU time (``time.process_time``), best of
``--rounds`` rounds of 20,000 connections each (one child process per round), so what else runs
on the machine moves it less than a socket benchmark. With ``--before TREE`` the same is measured
on ``arouter serve`` from another source tree (``git archive OLD | tar -x -C TREE``), its rounds
interleaved with this tree's.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

N = 20_000


class StandInTransport:
    """A double of the socket's transport: records what is written, closes when asked."""

    def __init__(self) -> None:
        self.out: list[bytes] = []
        self.closed = False

    def get_extra_info(self, name: str, default: object = None) -> object:
        return ("127.0.0.1", 40000) if name == "peername" else default

    def write(self, data: bytes) -> None:
        self.out.append(data)

    def is_closing(self) -> bool:
        return self.closed

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def bench_server(protocol: str, keys: int, prefix: str, shape: str = "hash") -> tuple[list[bytes], str, object]:
    """The hellos (``keys`` client ids), a broker.xml whose router is ``shape`` (router_shapes.py)
    written to a new temporary folder and the serve options the in-process serve benches run (the
    bare Protocol answers the first hello's byte)."""
    from router_shapes import NODE_IDS, broker_xml, local_target
    from serve_bench import HELLOS
    from serve_ratio_bench import BareAnswer

    from artemis_routing_cli.routing.targets import state_from_options
    from artemis_routing_cli.serve.server import ServeOptions

    hellos = [HELLOS[protocol](i) for i in range(keys)]
    BareAnswer.answers = {hellos[0][:1]: b"x" * 22}
    config = os.path.join(tempfile.mkdtemp(prefix=prefix), "broker.xml")
    Path(config).write_text(broker_xml(shape), encoding="utf-8")
    options = ServeOptions(listen=["127.0.0.1:0"], routers=["bench"], monitor=False,
                           state=state_from_options(NODE_IDS), local_target=local_target(shape),
                           handshake_timeout=300.0, max_connections=100_000)
    return hellos, config, options


def measure(protocol: str, rounds: int) -> list[tuple[float, float]]:
    """(µs per serve connection, µs per bare-Protocol connection) of each round, on this path's tree."""
    from serve_ratio_bench import BareAnswer

    from artemis_routing_cli.config import load
    from artemis_routing_cli.serve import proxy_gate
    from artemis_routing_cli.serve.log import BackgroundWriter, ServeLog
    from artemis_routing_cli.serve.server import Server

    hellos, config, options = bench_server(protocol, 1000, "arouter-path-")
    sink = open(os.devnull, "w")  # noqa: SIM115 - open for the writer thread's whole life
    log = ServeLog("text", writer=BackgroundWriter(sink))

    async def main() -> list[tuple[float, float]]:
        server = Server(load(config), options, log)
        await server.start()
        listener = next(iter(server._listeners.values()))
        # what the listener's server calls per socket (older trees: new_protocol for each)
        new_protocol = (proxy_gate.protocol_factory(listener) if hasattr(proxy_gate, "protocol_factory")
                        else functools.partial(proxy_gate.new_protocol, listener))

        def serve_one(i: int) -> None:
            conn = new_protocol()
            transport = StandInTransport()
            conn.connection_made(transport)  # type: ignore[arg-type]
            conn.data_received(hellos[i % 1000])  # type: ignore[attr-defined]
            conn.eof_received()  # type: ignore[attr-defined]
            conn.connection_lost(None)

        def bare_one(i: int) -> None:
            conn = BareAnswer()
            transport = StandInTransport()
            conn.connection_made(transport)  # type: ignore[arg-type]
            conn.data_received(hellos[i % 1000])
            conn.eof_received()
            conn.connection_lost(None)

        for i in range(N // 10):  # warm up
            serve_one(i)
            bare_one(i)
        results = []
        for _ in range(rounds):
            got = []
            for one in (serve_one, bare_one):
                started = time.process_time()
                for i in range(N):
                    one(i)
                got.append((time.process_time() - started) * 1e6 / N)
            results.append((got[0], got[1]))
        await server.stop()
        return results

    try:
        return asyncio.run(main())
    finally:
        log.close()


def child(tree: str, protocol: str, rounds: int) -> None:
    sys.path[:0] = [tree, str(HERE)]
    # the package first, from ``tree``: serve_bench puts this tree on sys.path when imported, but the
    # package's modules are then found through the package already imported
    import artemis_routing_cli.serve.decide

    assert artemis_routing_cli.serve.decide.__file__.startswith(tree), artemis_routing_cli.serve.decide.__file__
    for serve_us, bare_us in measure(protocol, rounds):
        print(f"{serve_us} {bare_us}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocols", default="mqtt,amqp")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--before", metavar="TREE")
    parser.add_argument("--child", nargs=2, metavar=("TREE", "PROTOCOL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.rounds)
        return
    trees = {"this tree": str(HERE.parent)}
    if args.before:
        trees = {"before": os.path.abspath(args.before), **trees}
    print(f"Python {sys.version.split()[0]}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"best of {args.rounds} rounds of {N:,} connections; CPU time")
    for protocol in args.protocols.split(","):
        rows: dict[str, list[tuple[float, ...]]] = {name: [] for name in trees}
        for _ in range(args.rounds):  # one round per child process, the trees in turn
            for name, tree in trees.items():
                run = subprocess.run([sys.executable, __file__, "--rounds", "1", "--child", tree, protocol],
                                     capture_output=True, text=True, check=True)
                rows[name] += [tuple(map(float, line.split())) for line in run.stdout.splitlines()]
        for name, got in rows.items():
            serve_us = min(r[0] for r in got)
            bare_us = min(r[1] for r in got)
            print(f"{protocol:5} {name:10} serve {serve_us:6.2f} us per redirect; bare Protocol {bare_us:5.2f} us "
                  f"({serve_us / bare_us:.1f}x)")

if __name__ == "__main__":
    main()
