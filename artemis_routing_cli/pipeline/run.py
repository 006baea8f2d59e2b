"""``arouter analyze`` end to end: keys in, per-key assignments and per-router figures out."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..routing.router import Router
from .assign import KEY_TYPE_COLUMN, RouterJob, assign, count_answers, prefix
from .inputs import ROW, read_keys
from .preflight import KeysInput
from .summary import collect_counted, collect_groups, summarise
from .whatif import Scenario, check_applicable, variant

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

OUTPUT_FORMATS = ("parquet", "csv")
# --mode: what to do when --output exists (Spark's own save modes).
WRITE_MODES = {"error": "errorifexists", "overwrite": "overwrite", "append": "append"}
ASSIGNMENT_COLUMNS = ("router", "row", "key", "key_value", "status", "target", "node_id", "local")


_WORKER_ERROR = re.compile(r"artemis_routing_cli\.[\w.]*(?:Error|Exception): (.+)")


def worker_error(exc: BaseException) -> UsageError | None:
    """A user error raised on an executor (e.g. a bad SOURCE_IP in the keys) as one line."""
    found = _WORKER_ERROR.findall(str(exc))
    return UsageError(found[-1].strip().replace("--key ", "")) if found else None


def build_jobs(routers: Sequence[Router], scenarios: Sequence[Scenario]) -> list[RouterJob]:
    check_applicable(routers, scenarios)
    jobs = []
    for r in routers:
        r.tracing = False
        variants = []
        for s in scenarios:
            v = variant(r, s)
            if v is not None:
                variants.append((s.label, v))
        jobs.append(RouterJob(r, variants))
    return jobs


def assignments(assigned: DataFrame, jobs: Sequence[RouterJob]) -> DataFrame:
    """Long form: one row per (router, input key), the columns ``simulate --keys-file`` writes."""
    from pyspark.sql import functions as F

    frames = []
    for i, job in enumerate(jobs):
        p = prefix(i)
        if "key" in assigned.columns:
            shown = F.col("key")
        else:
            column = KEY_TYPE_COLUMN[job.router.key_type]
            shown = F.coalesce(F.col(column), F.lit("")) if column in assigned.columns else F.lit("")
        frames.append(assigned.select(
            F.lit(job.router.name).alias("router"), F.col(ROW).alias("row"), shown.alias("key"),
            F.col(f"{p}key_value").alias("key_value"), F.col(f"{p}status").alias("status"),
            F.col(f"{p}target").alias("target"), F.col(f"{p}node_id").alias("node_id"),
            F.col(f"{p}local").alias("local")))
    out = frames[0]
    for f in frames[1:]:
        out = out.unionByName(f)
    return out


def check_output_options(fmt: str, mode: str) -> None:
    if fmt not in OUTPUT_FORMATS:
        raise UsageError(f"--output-format {fmt!r}: use parquet or csv")
    if mode not in WRITE_MODES:
        raise UsageError(f"--mode {mode!r}: use error, overwrite or append")


def write_assignments(frame: DataFrame, path: str, fmt: str, mode: str = "error") -> None:
    check_output_options(fmt, mode)
    writer = frame.write.mode(WRITE_MODES[mode])
    try:
        if fmt == "csv":
            writer.option("header", "true").csv(path)
        else:
            writer.parquet(path)
    except Exception as exc:
        if worker_error(exc) is not None:
            raise
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UsageError(f"cannot write assignments: {first}", file=path) from None


def analyze(
    spark: SparkSession,
    routers: Sequence[Router],
    keys_path: str,
    *,
    keys_format: str = "auto",
    scenarios: Sequence[Scenario] = (),
    output: str | None = None,
    output_format: str = "parquet",
    output_mode: str = "error",
    engine: str = "auto",
    progress: Callable[[str], None] = lambda _msg: None,
    inp: KeysInput | None = None,
) -> dict[str, object]:
    """Route every key of ``keys_path`` through ``routers``; return the summary (the JSON document).

    ``engine``: auto (Spark SQL and our Java UDFs where they apply, else pandas UDFs), jvm or pandas.
    """
    jobs = build_jobs(routers, scenarios)
    progress(f"reading keys from {keys_path}")
    keys = read_keys(spark, keys_path, keys_format, inp)
    assigned = None
    if output is not None:
        from pyspark import StorageLevel

        assigned = assign(keys, jobs, engine=engine, progress=progress).persist(StorageLevel.MEMORY_AND_DISK)
        progress(f"routing keys and writing per-key assignments to {output}")
    try:
        if assigned is not None:
            write_assignments(assignments(assigned, jobs), output, output_format, output_mode)
            progress("counting")
            groups = collect_groups(assigned, jobs)
        else:
            progress("routing keys and counting")
            groups = collect_counted(count_answers(keys, jobs, engine=engine, progress=progress), jobs)
    except UsageError:
        raise
    except Exception as exc:
        mapped = worker_error(exc)
        if mapped is None:
            raise
        raise mapped from None
    finally:
        if assigned is not None:
            assigned.unpersist()
    return summarise(jobs, groups)
