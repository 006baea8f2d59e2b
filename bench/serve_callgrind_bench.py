"""Instructions per redirect of ``arouter serve`` and of the bare Protocol under callgrind, with real
sockets (run by hand, never from the test suite; issue 21). Independent of what else runs on the
machine, where ``serve_ratio_bench.py``'s CPU times are not.

    python bench/serve_callgrind_bench.py [--kinds serve,bare,half-close] [--protocols mqtt,amqp]
                                          [--loop uvloop] [--seconds 8] [--warmup 12] [--before TREE]
                                          [--keys 1000] [--keep DIR]

Each server runs alone inside ``valgrind --tool=callgrind`` (the process's user-space instructions,
every thread; the kernel's work is not counted), the C load generator outside it (16 clients in a
closed loop, as serve_ratio_bench). After ``--warmup`` seconds of load (long enough under valgrind
for each of the generator's 1,000 hellos to have come once), the counts are zeroed
(``callgrind_control -z``), ``--seconds`` of load run, and the counts are dumped: instructions over
the connections completed. ``--keys``: distinct client ids the generator cycles through (the default
1,000 is below ``routing.fnv.MEMO_SIZE``, 4,096: after the warm-up every key's hash is remembered; more
than that, e.g. 5,000, and every hash is worked out afresh); ``--keep DIR``: the measured dumps are copied
there (``callgrind_annotate DIR/cg.serve.mqtt``). Valgrind runs the server ~50x slower, so a
timer-driven thread (the log writer) weighs more per connection here than at full speed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serve_bench import BROKER_XML, HELLOS, build_loadgen, free_port, write_payloads  # noqa: E402

HERE = Path(__file__).resolve().parent


def server_code(tree: str, kind: str, port: int, loop_name: str, config: str, answers: dict[bytes, bytes]) -> str:
    head = f"import sys; sys.path[:0] = [{tree!r}, {tree + '/bench'!r}]; "
    if kind in ("serve", "before"):
        return head + f"from serve_bench import run_arouter; run_arouter({port}, {loop_name!r}, {config!r})"
    return head + (f"from serve_ratio_bench import run_bare_answer; "
                   f"run_bare_answer({port}, {loop_name!r}, {answers!r}, {kind == 'half-close'})")


def listening(port: int, proc: subprocess.Popen[bytes], limit: float = 600) -> None:
    import socket

    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("the server under valgrind exited")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"nothing listens on {port}")


def load(loadgen: str, port: int, payloads: str, seconds: float) -> dict:
    run = subprocess.run([loadgen, str(port), payloads, "closed", "16", str(seconds), "0"], capture_output=True,
                         text=True, check=True)
    return json.loads(run.stdout)


def measure(tmp: str, loadgen: str, tree: str, kind: str, protocol: str, loop_name: str, config: str,
            answers: dict[bytes, bytes], seconds: float, warmup: float, keys: int = 1000,
            keep: str | None = None) -> float:
    """Instructions per completed connection."""
    port = free_port()
    out = os.path.join(tmp, f"cg.{kind}.{protocol}")
    payloads = write_payloads(tmp, protocol, HELLOS[protocol], keys)
    proc = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c",
                             server_code(tree, kind, port, loop_name, config, answers)],
                            env=dict(os.environ, PYTHONPATH=tree), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        listening(port, proc)
        load(loadgen, port, payloads, warmup)
        subprocess.run(["callgrind_control", "-z", str(proc.pid)], check=True, capture_output=True)
        result = load(loadgen, port, payloads, seconds)
        subprocess.run(["callgrind_control", "-d", "measured", str(proc.pid)], check=True, capture_output=True)
    finally:
        proc.terminate()
        proc.wait()
    for name in os.listdir(tmp):
        if name.startswith(os.path.basename(out)):
            text = Path(tmp, name).read_text(errors="replace")
            if "Trigger: dump measured" in text[:2000]:
                if keep is not None:
                    os.makedirs(keep, exist_ok=True)
                    shutil.copy(os.path.join(tmp, name), os.path.join(keep, os.path.basename(out)))
                found = re.search(r"^summary: (\d+)", text, re.M)
                if found:
                    return int(found.group(1)) / max(result["total"] - result["errors"], 1)
    raise SystemExit("no callgrind dump for the measured run")


def serve_answers(tmp: str) -> tuple[str, dict[bytes, bytes]]:
    """The bench's broker.xml (written into ``tmp``) and serve's answer to each hello (MQTT 5, AMQP),
    keyed by the hello's first byte: the fixed answers the bare Protocol gives. Read from a serve
    process started and stopped here (asyncio's loop, outside any tracer)."""
    from serve_bench import wait_listening
    from serve_ratio_bench import read_answer

    config = os.path.join(tmp, "broker.xml")
    Path(config).write_text(BROKER_XML, encoding="utf-8")
    port = free_port()
    serve = subprocess.Popen([sys.executable, "-c", server_code(str(HERE.parent), "serve", port, "asyncio",
                                                                config, {})],
                             env=dict(os.environ, PYTHONPATH=str(HERE.parent)))
    try:
        wait_listening(port)
        answers = {HELLOS[p](0)[:1]: read_answer(port, HELLOS[p](0)) for p in ("mqtt", "amqp")}
    finally:
        serve.terminate()
        serve.wait()
    return config, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default="serve,bare,half-close")
    parser.add_argument("--protocols", default="mqtt,amqp")
    parser.add_argument("--loop", default="uvloop")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--warmup", type=float, default=12.0)
    parser.add_argument("--before", metavar="TREE", help="also arouter serve from this source tree")
    parser.add_argument("--keys", type=int, default=1000, help="distinct client ids the generator cycles through")
    parser.add_argument("--keep", metavar="DIR", help="copy the measured callgrind dumps into DIR")
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("serve_callgrind_bench: needs valgrind (callgrind, callgrind_control)")
    tmp = tempfile.mkdtemp(prefix="arouter-callgrind-")
    try:
        loadgen = build_loadgen(tmp)
        if loadgen is None:
            raise SystemExit("serve_callgrind_bench: needs gcc (or cc) for bench/loadgen/loadgen.c")
        # the bare Protocol's fixed answers: serve's own, read from serve (outside valgrind) first
        config, answers = serve_answers(tmp)
        kinds = args.kinds.split(",") + (["before"] if args.before else [])
        print(f"callgrind, {args.loop}; {args.warmup:g} s warm-up, {args.seconds:g} s measured; instructions per "
              f"connection (user space, every thread of the server); {args.keys} client ids")
        for protocol in args.protocols.split(","):
            got = {}
            for kind in kinds:
                tree = os.path.abspath(args.before) if kind == "before" else str(HERE.parent)
                got[kind] = measure(tmp, loadgen, tree, kind, protocol, args.loop, config, answers, args.seconds,
                                    args.warmup, args.keys, args.keep)
            bare = got.get("bare")
            shown = [f"{kind} {value / 1000:.1f}k" + (f" ({value / bare:.2f}x bare)" if bare and kind != "bare"
                                                      else "") for kind, value in got.items()]
            print(f"  {protocol:5} " + "; ".join(shown), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
