"""System calls per redirect of ``arouter serve`` and of the bare Protocol, counted by ``strace -c``
(run by hand, never from the test suite; issue 21). Like instructions under callgrind, a count that
what else runs on the machine does not move.

    python bench/serve_syscall_bench.py [--kinds bare,half-close,serve] [--protocols mqtt,amqp]
                                        [--loop uvloop] [--seconds 4] [--warmup 2] [--before TREE]
                                        [--keys 1000] [--show 12]

Each server (the kinds of ``serve_ratio_bench.py``: the bare Protocol, the same with the half-close
discipline, ``arouter serve`` with its route log written to /dev/null, and with ``--before TREE``
``arouter serve`` from another source tree) runs in its own process; after ``--warmup`` seconds of
load from the C generator (16 clients, closed loop), ``strace -f -c`` attaches to every thread of
it for ``--seconds`` of load, and its counts are divided by the connections completed meanwhile.
strace slows every system call down, so fewer connections complete than without it; a timer-driven
thread (the log writer, every 50 ms) then weighs more per connection than at full speed. Printed per
protocol and kind: the calls per connection, in all and per system call (the ``--show`` most
frequent), and ``errors`` (calls that failed: EAGAIN reads and the like).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serve_bench import HELLOS, build_loadgen, free_port, wait_listening, write_payloads  # noqa: E402
from serve_callgrind_bench import load, serve_answers, server_code  # noqa: E402

HERE = Path(__file__).resolve().parent

_ROW = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(\d+)?\s*(\w+)\s*$")


def parse_strace(text: str) -> dict[str, tuple[int, int]]:
    """strace -c's table: system call -> (calls, errors)."""
    counts: dict[str, tuple[int, int]] = {}
    for line in text.splitlines():
        found = _ROW.match(line)
        if found and found.group(3) != "total":
            counts[found.group(3)] = (int(found.group(1)), int(found.group(2) or 0))
    return counts


def measure(tmp: str, loadgen: str, tree: str, kind: str, protocol: str, loop_name: str, config: str,
            answers: dict[bytes, bytes], seconds: float, warmup: float,
            keys: int) -> tuple[int, dict[str, tuple[int, int]]]:
    """(connections completed, strace's counts) of one server under load."""
    port = free_port()
    payloads = write_payloads(tmp, protocol, HELLOS[protocol], keys)
    proc = subprocess.Popen([sys.executable, "-c", server_code(tree, kind, port, loop_name, config, answers)],
                            env=dict(os.environ, PYTHONPATH=tree))
    try:
        wait_listening(port)
        load(loadgen, port, payloads, warmup)
        out = os.path.join(tmp, f"strace.{kind}.{protocol}")
        tracer = subprocess.Popen(["strace", "-f", "-c", "-o", out, "-p", str(proc.pid)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # strace attaches to every thread
        result = load(loadgen, port, payloads, seconds)
        tracer.send_signal(signal.SIGINT)
        tracer.wait(30)
    finally:
        proc.terminate()
        proc.wait()
    return result["total"] - result["errors"], parse_strace(Path(out).read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default="bare,half-close,serve")
    parser.add_argument("--protocols", default="mqtt,amqp")
    parser.add_argument("--loop", default="uvloop")
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--before", metavar="TREE", help="also arouter serve from this source tree")
    parser.add_argument("--keys", type=int, default=1000, help="distinct client ids the generator cycles through")
    parser.add_argument("--show", type=int, default=12, help="system calls shown per server")
    args = parser.parse_args()
    if shutil.which("strace") is None:
        raise SystemExit("serve_syscall_bench: needs strace")
    tmp = tempfile.mkdtemp(prefix="arouter-strace-")
    try:
        loadgen = build_loadgen(tmp)
        if loadgen is None:
            raise SystemExit("serve_syscall_bench: needs gcc (or cc) for bench/loadgen/loadgen.c")
        config, answers = serve_answers(tmp)  # serve's own answers, for the bare Protocol
        kinds = args.kinds.split(",") + (["before"] if args.before else [])
        print(f"strace -f -c, {args.loop}; {args.warmup:g} s warm-up, {args.seconds:g} s counted; system calls "
              f"per connection (every thread of the server); {args.keys} client ids")
        for protocol in args.protocols.split(","):
            for kind in kinds:
                tree = os.path.abspath(args.before) if kind == "before" else str(HERE.parent)
                done, counts = measure(tmp, loadgen, tree, kind, protocol, args.loop, config, answers,
                                       args.seconds, args.warmup, args.keys)
                done = max(done, 1)
                total = sum(calls for calls, _ in counts.values())
                errors = sum(errs for _, errs in counts.values())
                rows = sorted(counts.items(), key=lambda item: -item[1][0])[:args.show]
                shown = ", ".join(f"{name} {calls / done:.2f}" + (f" ({errs / done:.2f} err)" if errs else "")
                                  for name, (calls, errs) in rows)
                print(f"  {protocol:5} {kind:10} {total / done:6.2f} calls ({errors / done:.2f} failed) over "
                      f"{done} connections: {shown}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
