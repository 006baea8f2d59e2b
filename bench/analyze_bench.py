"""Bench (by hand): `arouter analyze` rows/s on local[2] for N keys (default 10 M).

In one run, on the same keys file and CONSISTENT_HASH router (5 targets):
  * the pipeline as `arouter analyze` runs it (engine auto: Spark SQL over our Java UDFs, one group-by
    on answer slots); the one-time UDF set-up (javac on first use, ADD JAR, self-check) is timed apart,
  * the pipeline forced onto pandas (engine pandas: mapInPandas over routing.batch),
  * a pandas-UDF-only variant: a scalar pandas_udf returning the target label, then groupBy,
  * in-process batch routing without Spark (routing.batch.route_batch over the whole file).
Every Spark variant gives the same per-target counts (checked). Each variant first runs once on a
5 % file (JIT, Python workers), so the timed runs compare steady-state throughput, not start-up.
Run: python bench/analyze_bench.py [N]

Scale (issue 17): python bench/analyze_bench.py scale [N ...] (default 10 M and 100 M keys):
``arouter analyze`` as a process on local[2] (wall time split into start-up: until the session is up,
and work), ``simulate --keys-file`` on the same keys file, a numpy baseline (``routing.batch`` over the
file in 1 M-line chunks, one core), and ``analyze --remote`` against a warm Spark Connect server
started by the bench. Peak memory is the resident set of the process tree (driver, its JVM, workers).
The keys are generated into a temporary file and removed after.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from analyze_router import PIECES, router

from artemis_routing_cli.routing.batch import route_batch


def make_keys(path: Path, n: int) -> None:
    rng = random.Random(7)
    chunk = 100_000
    with path.open("w", encoding="utf-8", newline="") as f:
        for start in range(0, n, chunk):
            f.write("".join("".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 6)))
                            + str(rng.randrange(10**7)) + "\n" for _ in range(min(chunk, n - start))))


def variants(spark):
    """name -> function(keys path) -> sorted per-target counts, for every Spark variant."""
    import pandas as pd
    from pyspark.sql.functions import PandasUDFType, pandas_udf

    from artemis_routing_cli.pipeline.inputs import read_keys
    from artemis_routing_cli.pipeline.run import analyze

    def pipeline(engine):
        def run(path):
            summary = analyze(spark, [router()], path, engine=engine)
            return sorted((t["target"], t["count"]) for t in summary["routers"][0]["targets"])
        return run

    r = router()

    def targets(col):
        return pd.Series(route_batch(r, col.tolist()).target)

    target_of = pandas_udf(targets, "string", PandasUDFType.SCALAR)

    def udf_only(path):
        rows = read_keys(spark, path).select(target_of("key").alias("t")).groupBy("t").count().collect()
        return sorted((x["t"], x["count"]) for x in rows)

    return {"pipeline, engine auto (JVM fast path)": pipeline("auto"),
            "pipeline, engine pandas": pipeline("pandas"),
            "pandas_udf only": udf_only}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    from artemis_routing_cli.pipeline.jvm_udf import enable
    from artemis_routing_cli.pipeline.session import start_session

    with tempfile.TemporaryDirectory() as tmp:
        keys, warm = Path(tmp) / "keys.txt", Path(tmp) / "warm.txt"
        t0 = time.perf_counter()
        make_keys(keys, n)
        make_keys(warm, max(n // 20, 1000))
        print(f"{n:,} keys written in {time.perf_counter() - t0:.1f} s")
        spark = start_session("local[2]")
        try:
            t0 = time.perf_counter()
            reason = enable(spark)
            print(f"Java UDF set-up (once per session; javac only on first use): "
                  f"{time.perf_counter() - t0:.1f} s ({reason or 'ready'})")
            runs = variants(spark)
            for run in runs.values():  # warm-up on 5 %: JIT, Python workers, Arrow
                run(str(warm))
            counts, seconds = {}, {}
            for name, run in runs.items():
                t0 = time.perf_counter()
                counts[name] = run(str(keys))
                seconds[name] = time.perf_counter() - t0
                print(f"{name}: {seconds[name]:.1f} s  {n / seconds[name]:,.0f} rows/s  {counts[name]}")
            assert len({str(c) for c in counts.values()}) == 1, counts
            fast, udf = seconds["pipeline, engine auto (JVM fast path)"], seconds["pandas_udf only"]
            print(f"pipeline (auto) rows/s = {udf / fast:.2f} x pandas_udf only")
        finally:
            spark.stop()
        t0 = time.perf_counter()
        lines = keys.read_bytes().decode("utf-8").split("\n")[:-1]
        res = route_batch(router(), lines)
        inproc = time.perf_counter() - t0
        print(f"in-process route_batch (no Spark, one core): {inproc:.1f} s  {n / inproc:,.0f} rows/s  "
              f"({len(res):,} keys)")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "scale":
        from analyze_scale import scale

        args = sys.argv[2:]
        remote = "--no-remote" not in args  # --no-remote: skip the Spark Connect server and its run
        scale([int(float(a)) for a in args if a != "--no-remote"] or [10_000_000, 100_000_000], remote=remote)
    else:
        main()
