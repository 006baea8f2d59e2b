"""Bench (by hand): 1 M random mixed-unicode keys through a 5-target CONSISTENT_HASH router.

Compares, on the same keys file and writing the same JSON lines:
  * `arouter simulate --keys-file` as a user runs it (a process; bytecode cached in a temporary
    PYTHONPYCACHEPREFIX, as an installed package has it; wall and CPU time),
  * the same code in-process (cli/simulate_batch.run_batch; wall and CPU time),
  * a JVM program doing the same arithmetic and I/O (bench/java/BatchRoute.java, compiled with javac),
  * the scalar engine (Router.route per key) on the first 50,000 keys, as a cross-check.
Run: python bench/batch_bench.py [N]
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from artemis_routing_cli.config import load_text
from artemis_routing_cli.routing.batch import route_batch
from artemis_routing_cli.routing.router import Router
from artemis_routing_cli.routing.targets import TargetState

ROOT = Path(__file__).resolve().parent
NODES = {f"c{i}": f"{i:08x}-5a5a-11ee-8c99-0242ac12000{i}" for i in range(1, 6)}
PIECES = ["a", "b", "Z", "0", "7", "-", "\u00e9", "\u4e2d", "\U0001F600", "client", "user.", "\u0130"]


def make_keys(path: Path, n: int) -> None:
    rng = random.Random(42)
    with path.open("w", encoding="utf-8", newline="") as f:
        for _ in range(n):
            f.write("".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 6))) + str(rng.randrange(10**6)) + "\n")


def config_xml() -> str:
    conns = "".join(f'<connector name="{c}">tcp://{c}:61616</connector>' for c in NODES)
    refs = "".join(f"<connector-ref>{c}</connector-ref>" for c in NODES)
    return (f'<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><connectors>{conns}'
            '</connectors><connection-routers><connection-router name="bench"><key-type>CLIENT_ID'
            f'</key-type><policy name="CONSISTENT_HASH"/><pool><static-connectors>{refs}</static-connectors>'
            "</pool></connection-router></connection-routers></core></configuration>")


def router() -> Router:
    cfg = load_text(config_xml())
    return Router.from_config(cfg, cfg.connection_routers[0], TargetState(node_ids=NODES))


def run_in_process(keys_path: Path, out_path: Path) -> tuple[float, float]:
    from artemis_routing_cli.cli.simulate_batch import run_batch

    cfg = load_text(config_xml())
    t0, c0 = time.perf_counter(), time.process_time()
    run_batch(cfg, TargetState(node_ids=NODES), None, str(keys_path), str(out_path), "jsonl", None, False)
    return time.perf_counter() - t0, time.process_time() - c0


def run_cli(work: Path, keys_path: Path, out_path: Path) -> tuple[float, float]:
    """`arouter simulate --keys-file` in a process: (wall, user + system CPU) seconds."""
    cfg = work / "broker.xml"
    cfg.write_text(config_xml(), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    nodes = [a for c, n in NODES.items() for a in ("--node-id", f"{c}={n}")]

    def cmd(keys: Path, out: Path) -> list[str]:
        return [sys.executable, "-m", "artemis_routing_cli", "simulate", "-c", str(cfg), "--keys-file", str(keys),
                "-o", str(out), *nodes]

    warm = work / "warm.txt"
    warm.write_text("a\n", encoding="utf-8")
    subprocess.run(cmd(warm, work / "warm.jsonl"), check=True, env=env, capture_output=True)  # bytecode cache
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd(keys_path, out_path), check=True, env=env, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def scalar_matches(keys_path: Path, out_path: Path, n: int) -> bool:
    """The scalar engine (one Router.route per key) agrees with the batch output on the first n keys."""
    keys = keys_path.read_bytes().decode("utf-8").split("\n")[:-1][:n]
    res = route_batch(router(), keys, force_scalar=True)
    with out_path.open(encoding="utf-8") as f:
        got = [json.loads(next(f))["target"] for _ in keys]
    return got == res.target.tolist()


def run_java(work: Path, keys_path: Path, out_path: Path) -> tuple[float, float, float] | None:
    """(wall, user + system CPU, time inside main) seconds, or None without a JDK."""
    if shutil.which("javac") is None or shutil.which("java") is None:
        return None
    subprocess.run(["javac", "-d", str(work), str(ROOT / "java" / "BatchRoute.java")], check=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(["java", "-cp", str(work), "BatchRoute", str(keys_path), str(out_path),
                           *[f"{c}={n}" for c, n in NODES.items()]], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, float(proc.stdout.split()[1])


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        keys = work / "keys.txt"
        make_keys(keys, n)
        cli_wall, cpu = run_cli(work, keys, work / "cli.jsonl")
        print(f"arouter simulate --keys-file (process): {cli_wall:.2f} s wall, {cpu:.2f} s CPU  "
              f"({n / cli_wall:,.0f} keys/s)")
        wall, cpu = run_in_process(keys, work / "inproc.jsonl")
        print(f"run_batch in-process:                   {wall:.2f} s wall, {cpu:.2f} s CPU")
        same = (work / "cli.jsonl").read_bytes() == (work / "inproc.jsonl").read_bytes()
        print(f"process == in-process output: {same}")
        print(f"scalar engine == batch (first 50,000 keys): {scalar_matches(keys, work / 'cli.jsonl', 50_000)}")
        java = run_java(work, keys, work / "java.jsonl")
        if java is not None:
            jwall, jcpu, inner = java
            print(f"JVM program: {jwall:.2f} s wall, {jcpu:.2f} s CPU incl. JVM start; {inner:.2f} s in main")
            print(f"JVM output == arouter output, byte for byte: "
                  f"{(work / 'java.jsonl').read_bytes() == (work / 'cli.jsonl').read_bytes()}")
            print(f"arouter process / JVM wall: {cli_wall / jwall:.2f}x")


if __name__ == "__main__":
    main()
