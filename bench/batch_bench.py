"""Bench (by hand): 1 M random mixed-unicode keys through a 5-target CONSISTENT_HASH router.

Compares, on the same keys file and writing the same JSON lines:
  * the scalar engine loop (`arouter simulate --keys-file` code path, run_batch),
  * the vectorised path (routing.batch.route_batch) plus JSON-lines output,
  * a JVM program doing the same arithmetic and I/O (bench/java/BatchRoute.java, compiled with javac).
Run: python bench/batch_bench.py [N]
"""

from __future__ import annotations

import json
import random
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


def router() -> Router:
    conns = "".join(f'<connector name="{c}">tcp://{c}:61616</connector>' for c in NODES)
    refs = "".join(f"<connector-ref>{c}</connector-ref>" for c in NODES)
    xml = (f'<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><connectors>{conns}</connectors>'
           '<connection-routers><connection-router name="bench"><key-type>CLIENT_ID</key-type>'
           f'<policy name="CONSISTENT_HASH"/><pool><static-connectors>{refs}</static-connectors></pool>'
           "</connection-router></connection-routers></core></configuration>")
    cfg = load_text(xml)
    return Router.from_config(cfg, cfg.connection_routers[0], TargetState(node_ids=NODES))


def run_vectorised(keys_path: Path, out_path: Path) -> float:
    t0 = time.perf_counter()
    keys = keys_path.read_bytes().decode("utf-8").split("\n")[:-1]
    res = route_batch(router(), keys)
    dumps = json.dumps
    with out_path.open("w", encoding="utf-8") as out:
        out.writelines(
            dumps({"key": k, "key_value": v, "status": s, "target": t, "node_id": nid, "local": bool(lo)},
                  ensure_ascii=False) + "\n"
            for k, v, s, t, nid, lo in zip(keys, res.key_value, res.status, res.target, res.node_id,
                                          res.local, strict=True))
    return time.perf_counter() - t0


def run_scalar(keys_path: Path, out_path: Path) -> float:
    from artemis_routing_cli.cli.simulate_batch import run_batch

    conns = "".join(f'<connector name="{c}">tcp://{c}:61616</connector>' for c in NODES)
    refs = "".join(f"<connector-ref>{c}</connector-ref>" for c in NODES)
    cfg = load_text(f'<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><connectors>{conns}'
                    '</connectors><connection-routers><connection-router name="bench"><key-type>CLIENT_ID'
                    f'</key-type><policy name="CONSISTENT_HASH"/><pool><static-connectors>{refs}</static-connectors>'
                    "</pool></connection-router></connection-routers></core></configuration>")
    t0 = time.perf_counter()
    run_batch(cfg, TargetState(node_ids=NODES), None, str(keys_path), str(out_path), "jsonl", None, False)
    return time.perf_counter() - t0


def run_java(work: Path, keys_path: Path, out_path: Path) -> tuple[float, float] | None:
    if shutil.which("javac") is None or shutil.which("java") is None:
        return None
    subprocess.run(["javac", "-d", str(work), str(ROOT / "java" / "BatchRoute.java")], check=True)
    t0 = time.perf_counter()
    proc = subprocess.run(["java", "-cp", str(work), "BatchRoute", str(keys_path), str(out_path),
                           *[f"{c}={n}" for c, n in NODES.items()]], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    return wall, float(proc.stdout.split()[1])


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        keys = work / "keys.txt"
        make_keys(keys, n)
        vec = run_vectorised(keys, work / "vec.jsonl")
        print(f"vectorised route_batch + jsonl: {vec:.2f} s  ({n / vec:,.0f} keys/s)")
        sca = run_scalar(keys, work / "scalar.jsonl")
        print(f"scalar engine (simulate --keys-file): {sca:.2f} s  ({n / sca:,.0f} keys/s)")
        same = [json.loads(x)["target"] for x in (work / "vec.jsonl").open(encoding="utf-8")] == \
               [json.loads(x)["target"] for x in (work / "scalar.jsonl").open(encoding="utf-8")]
        print(f"vectorised == scalar targets: {same}")
        java = run_java(work, keys, work / "java.jsonl")
        if java is not None:
            wall, inner = java
            print(f"JVM program: {wall:.2f} s wall incl. JVM start, {inner:.2f} s in main ({n / inner:,.0f} keys/s)")
            jt = [json.loads(x)["target"] for x in (work / "java.jsonl").open(encoding="utf-8")]
            vt = [json.loads(x)["target"] for x in (work / "vec.jsonl").open(encoding="utf-8")]
            print(f"JVM == Python targets: {jt == vt}")


if __name__ == "__main__":
    main()
