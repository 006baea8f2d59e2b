"""Bench (by hand): `arouter analyze` rows/s on local[2] for N keys (default 10 M).

In one run, on the same keys file and CONSISTENT_HASH router (5 targets):
  * the pipeline: pipeline.run.analyze (mapInPandas over routing.batch, one group-by),
  * a pandas-UDF-only variant: a scalar pandas_udf returning the target label, then groupBy,
  * in-process batch routing without Spark (routing.batch.route_batch over the whole file).
Run: python bench/analyze_bench.py [N]
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from artemis_routing_cli.config import load_text
from artemis_routing_cli.routing.batch import route_batch
from artemis_routing_cli.routing.router import Router
from artemis_routing_cli.routing.targets import TargetState

NODES = {f"c{i}": f"{i:08x}-5a5a-11ee-8c99-0242ac12000{i}" for i in range(1, 6)}
PIECES = ["a", "b", "Z", "0", "7", "-", "\u00e9", "\u4e2d", "\U0001F600", "client", "user.", "\u0130"]


def make_keys(path: Path, n: int) -> None:
    rng = random.Random(7)
    chunk = 100_000
    with path.open("w", encoding="utf-8", newline="") as f:
        for start in range(0, n, chunk):
            f.write("".join("".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 6)))
                            + str(rng.randrange(10**7)) + "\n" for _ in range(min(chunk, n - start))))


def router() -> Router:
    conns = "".join(f'<connector name="{c}">tcp://{c}:61616</connector>' for c in NODES)
    refs = "".join(f"<connector-ref>{c}</connector-ref>" for c in NODES)
    cfg = load_text(f'<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><connectors>{conns}'
                    '</connectors><connection-routers><connection-router name="bench"><key-type>CLIENT_ID'
                    f'</key-type><policy name="CONSISTENT_HASH"/><pool><static-connectors>{refs}</static-connectors>'
                    "</pool></connection-router></connection-routers></core></configuration>")
    r = Router.from_config(cfg, cfg.connection_routers[0], TargetState(node_ids=NODES))
    r.tracing = False
    return r


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    from artemis_routing_cli.pipeline.inputs import read_keys
    from artemis_routing_cli.pipeline.run import analyze
    from artemis_routing_cli.pipeline.session import start_session

    with tempfile.TemporaryDirectory() as tmp:
        keys = Path(tmp) / "keys.txt"
        t0 = time.perf_counter()
        make_keys(keys, n)
        print(f"{n:,} keys written in {time.perf_counter() - t0:.1f} s")
        spark = start_session("local[2]")
        try:
            t0 = time.perf_counter()
            summary = analyze(spark, [router()], str(keys))
            pipe = time.perf_counter() - t0
            print(f"pipeline (mapInPandas + group-by): {pipe:.1f} s  {n / pipe:,.0f} rows/s  "
                  f"targets {[(t['target'], t['count']) for t in summary['routers'][0]['targets']]}")

            import pandas as pd
            from pyspark.sql.functions import PandasUDFType, pandas_udf

            r = router()

            def targets(col):
                return pd.Series(route_batch(r, col.tolist()).target)

            target_of = pandas_udf(targets, "string", PandasUDFType.SCALAR)

            t0 = time.perf_counter()
            rows = read_keys(spark, str(keys)).select(target_of("key").alias("t")).groupBy("t").count().collect()
            udf = time.perf_counter() - t0
            print(f"pandas_udf only: {udf:.1f} s  {n / udf:,.0f} rows/s  {sorted((x['t'], x['count']) for x in rows)}")
        finally:
            spark.stop()
        t0 = time.perf_counter()
        lines = keys.read_bytes().decode("utf-8").split("\n")[:-1]
        res = route_batch(router(), lines)
        inproc = time.perf_counter() - t0
        print(f"in-process route_batch (no Spark, one core): {inproc:.1f} s  {n / inproc:,.0f} rows/s  "
              f"({len(res):,} keys)")


if __name__ == "__main__":
    main()
