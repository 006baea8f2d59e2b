"""``analyze_bench.py scale``: analyze at 10 M / 100 M keys beside simulate --keys-file and numpy.

See analyze_bench.py's docstring. Every figure of one size comes from the same keys file, made in
this run; the per-target counts of analyze (local and Connect) and of the numpy baseline are checked
equal.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analyze_router import NODES, PIECES, router  # noqa: E402

from artemis_routing_cli.routing.batch import route_batch  # noqa: E402

CHUNK = 1_000_000
STARTED = "arouter: reading keys from"  # analyze prints it once the Spark session is up


def make_keys(path: Path, n: int, seed: int = 17) -> None:
    """Mixed-unicode client ids (PIECES prefixes and a number), written in 1 M-line chunks."""
    rng = np.random.default_rng(seed)
    pick = __import__("random").Random(seed)
    prefixes = ["".join(pick.choice(PIECES) for _ in range(pick.randrange(1, 5))) for _ in range(257)]
    with path.open("w", encoding="utf-8", newline="") as f:
        for start in range(0, n, CHUNK):
            m = min(CHUNK, n - start)
            idx = rng.integers(0, len(prefixes), m).tolist()
            num = rng.integers(0, 10**8, m).tolist()
            f.write("\n".join([prefixes[i] + str(v) for i, v in zip(idx, num, strict=True)]) + "\n")


def config(path: Path) -> None:
    conns = "".join(f'<connector name="{c}">tcp://{c}:61616</connector>' for c in NODES)
    refs = "".join(f"<connector-ref>{c}</connector-ref>" for c in NODES)
    path.write_text(f'<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><connectors>{conns}'
                    '</connectors><connection-routers><connection-router name="bench"><key-type>CLIENT_ID'
                    '</key-type><policy name="CONSISTENT_HASH"/><pool><static-connectors>'
                    f'{refs}</static-connectors></pool></connection-router></connection-routers></core>'
                    '</configuration>', encoding="utf-8")


def _tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and all its descendants (from /proc)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            parents[int(entry)] = int(fields[1])
            rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    tree, todo = set(), [root]
    while todo:
        p = todo.pop()
        tree.add(p)
        todo.extend(c for c, pp in parents.items() if pp == p and c not in tree)
    return sum(rss.get(p, 0) for p in tree)


def timed(cmd: list[str], keep_out: bool = True) -> dict[str, object]:
    """Run ``cmd``; wall time, the time its stderr said STARTED, peak tree RSS and stdout (unless
    ``keep_out`` is false: simulate's per-key lines go to /dev/null)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE if keep_out else subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=full_env, cwd=ROOT)
    peak = [0]
    started: list[float] = []
    err: list[str] = []

    def watch() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            time.sleep(0.5)

    def read_err() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace")
            err.append(line)
            if line.startswith(STARTED) and not started:
                started.append(time.perf_counter() - t0)

    threads = [threading.Thread(target=watch, daemon=True), threading.Thread(target=read_err, daemon=True)]
    for t in threads:
        t.start()
    out = proc.stdout.read() if proc.stdout is not None else b""
    code = proc.wait()
    wall = time.perf_counter() - t0
    for t in threads:
        t.join(timeout=5)
    if code != 0:
        raise SystemExit(f"{cmd[3:5]} exited {code}:\n{''.join(err[-20:])}")
    return {"wall": wall, "startup": started[0] if started else None, "peak": peak[0], "out": out}


def counts_of(summary: bytes) -> list[tuple[str, int]]:
    doc = json.loads(summary)
    return sorted((t["target"], t["count"]) for t in doc["routers"][0]["targets"])


def numpy_baseline(keys: Path) -> tuple[float, list[tuple[str, int]]]:
    r = router()
    t0 = time.perf_counter()
    total: Counter[str] = Counter()
    with keys.open("r", encoding="utf-8", newline="\n") as f:
        while True:
            lines = [ln[:-1] for ln in itertools.islice(f, CHUNK)]
            if not lines:
                break
            total.update(Counter(route_batch(r, lines).target.tolist()))
    return time.perf_counter() - t0, sorted(total.items())


def _mb(n: object) -> str:
    return f"{int(n) / 2**20:,.0f} MB"  # type: ignore[call-overload]


def scale(sizes: list[int], remote: bool = True) -> None:
    arouter = [sys.executable, "-m", "artemis_routing_cli"]
    from tests.pipeline.peers import connect_server

    with tempfile.TemporaryDirectory(prefix="arouter-scale-") as tmp_dir:
        tmp = Path(tmp_dir)
        cfg = tmp / "broker.xml"
        config(cfg)
        warm = tmp / "warm.txt"
        make_keys(warm, 100_000, seed=3)
        base = [*arouter, "analyze", "-c", str(cfg), "-r", "bench", "-f", "json"]
        node_args = [a for c, nid in NODES.items() for a in ("--node-id", f"{c}={nid}")]
        with connect_server(Path(sys.executable), tmp) if remote else contextlib.nullcontext("") as url:
            if url:
                timed([*base, *node_args, "--keys", str(warm), "--remote", url])  # warm: JIT, workers
            for n in sizes:
                keys = tmp / "keys.txt"
                t0 = time.perf_counter()
                make_keys(keys, n)
                print(f"\n{n:,} keys ({keys.stat().st_size / 2**20:,.0f} MB) written in "
                      f"{time.perf_counter() - t0:.0f} s", flush=True)
                local = timed([*base, *node_args, "--keys", str(keys), "--master", "local[2]"])
                print(f"analyze local[2]: {local['wall']:.1f} s wall = {local['startup']:.1f} s start-up + "
                      f"{local['wall'] - local['startup']:.1f} s work; peak {_mb(local['peak'])}", flush=True)
                if url:
                    on_server = timed([*base, *node_args, "--keys", str(keys), "--remote", url])
                    print(f"analyze --remote (warm server): {on_server['wall']:.1f} s wall = "
                          f"{on_server['startup']:.1f} s start-up + {on_server['wall'] - on_server['startup']:.1f} s "
                          f"work; client peak {_mb(on_server['peak'])}", flush=True)
                sim = timed([*arouter, "simulate", "-c", str(cfg), "-r", "bench", *node_args, "--keys-file",
                             str(keys)], keep_out=False)  # JSON lines, the default
                print(f"simulate --keys-file: {sim['wall']:.1f} s; peak {_mb(sim['peak'])}", flush=True)
                np_time, np_counts = numpy_baseline(keys)
                print(f"numpy baseline (routing.batch, 1 M-line chunks, one core): {np_time:.1f} s", flush=True)
                assert counts_of(local["out"]) == np_counts, (counts_of(local["out"]), np_counts)
                if url:
                    assert counts_of(on_server["out"]) == np_counts, (counts_of(on_server["out"]), np_counts)
                work = local["wall"] - local["startup"]
                print(f"simulate / analyze wall: {sim['wall'] / local['wall']:.2f}x (goal >= 2); "
                      f"analyze per core {n / work / 2:,.0f} keys/s vs numpy {n / np_time:,.0f} keys/s: numpy is "
                      f"{(n / np_time) / (n / work / 2):.2f}x (goal <= 2)", flush=True)
                keys.unlink()
