"""``arouter analyze`` end to end: keys in, per-key assignments and per-router figures out."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..routing.keys import RECORD_COLUMNS as KEY_COLUMNS
from ..routing.router import Router
from .assign import BAD_KEY, BAD_ROW, KEY_TYPE_COLUMN, RouterJob, assign, count_answers, prefix
from .inputs import BAD, BLOCK, FILE, ID, ROW, read_keys_and_positions
from .locate import Blocks, at_or_before, blocks, shown_path, with_position
from .preflight import KeysInput
from .summary import collect_counted, collect_groups, summarise
from .whatif import Scenario, check_applicable, variant

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

OUTPUT_FORMATS = ("parquet", "csv")
# --mode: what to do when --output exists (Spark's own save modes).
WRITE_MODES = {"error": "error", "overwrite": "overwrite", "append": "append"}
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


def assignments(assigned: DataFrame, jobs: Sequence[RouterJob], where: Blocks | None = None) -> DataFrame:
    """Long form: one row per (router, input key), the columns ``simulate --keys-file`` writes.

    With ``where`` each row says where it is in the input (``file`` and ``line`` for text, ``record``
    for the other formats) instead of Spark's internal ``row`` id; with ``--id-column`` ``row`` is the
    input's own id.
    """
    from pyspark.sql import functions as F

    if ID in assigned.columns:
        position = [F.col(ID).alias("row")]
    elif where is not None:
        assigned = with_position(assigned, where)
        position = [F.col("file"), F.col(where.unit)]
    else:
        position = [F.col(ROW).alias("row")]
    frames = []
    for i, job in enumerate(jobs):
        p = prefix(i)
        if "key" in assigned.columns:
            shown = F.col("key")
        else:
            column = KEY_TYPE_COLUMN[job.router.key_type]
            shown = F.coalesce(F.col(column), F.lit("")) if column in assigned.columns else F.lit("")
        frames.append(assigned.select(
            F.lit(job.router.name).alias("router"), *position, shown.alias("key"),
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
    max_errors: int | None = None,
) -> dict[str, object]:
    """Route every key of ``keys_path`` through ``routers``; return the summary (the JSON document).

    ``engine``: auto (Spark SQL and our Java UDFs where they apply, else pandas UDFs), jvm or pandas.
    ``max_errors``: stop at the bad row after the first ``max_errors`` (see :func:`stop_point`): the
    figures then cover the rows up to it, and the summary says so (``stopped_early``, ``rows_read``).
    """
    jobs = build_jobs(routers, scenarios)
    progress(f"reading keys from {keys_path}")
    keys, positions = read_keys_and_positions(spark, keys_path, keys_format, inp)
    from pyspark import StorageLevel

    stop = None
    cached = None  # routed once, kept for the counts, the bad rows' samples and --output
    assigned = None  # the rows the figures cover
    try:
        if max_errors is not None:
            progress(f"looking for more than {max_errors:,} bad row(s) (--max-errors)")
            with worker_errors():
                cached, stop = stop_point(keys, jobs, max_errors, engine, progress)
            assigned = cached if stop is None else cached.filter(at_or_before(*stop))
        elif output is not None:
            cached = assigned = assign(keys, jobs, engine=engine, progress=progress).persist(
                StorageLevel.MEMORY_AND_DISK)
        kind = inp.format if inp is not None else "text" if "key" in keys.columns else "record"
        progress("routing keys and counting")
        with worker_errors():
            where = None
            if assigned is not None:
                # Counting first fills the cache: the per-router rows written next are read from it,
                # so every key is routed once however many routers there are.
                groups = collect_groups(assigned, jobs)
            else:
                lines = None
                if kind == "text" and engine != "pandas" and (inp is None or inp.plain()):
                    from .line_counts import count_lines

                    lines = count_lines(spark, keys_path, jobs)
                groups = lines if lines is not None else collect_counted(
                    count_answers(keys, jobs, engine=engine, progress=progress), jobs)
            if output is not None and assigned is not None:
                progress(f"writing per-key assignments to {output}")
                where = blocks(positions, kind)
                write_assignments(assignments(assigned, jobs, where), output, output_format, output_mode)
            samples: list[dict[str, object]] = []
            if any(v.get(BAD_ROW) or any(v[f"{prefix(i)}status"] == BAD_KEY for i in range(len(jobs)))
                   for v, _ in groups):
                progress("finding the bad rows")
                frame = assigned if assigned is not None else assign(keys, jobs, engine=engine, progress=progress)
                samples = bad_samples(frame, jobs, where or blocks(positions, kind))
    finally:
        if cached is not None:
            cached.unpersist()
    summary = summarise(jobs, groups, samples)
    if max_errors is not None:
        summary["max_errors"] = max_errors
        summary["stopped_early"] = stop is not None
        summary["rows_read"] = sum(c for _, c in groups)
    return summary


@contextmanager
def worker_errors() -> Iterator[None]:
    """A failure Spark reports from its workers that :func:`worker_error` knows becomes its plain
    sentence (a UsageError); anything else goes on as it is."""
    try:
        yield
    except UsageError:
        raise
    except Exception as exc:
        mapped = worker_error(exc)
        if mapped is None:
            raise
        raise mapped from None


def _bad(flagged: DataFrame, jobs: Sequence[RouterJob]) -> Column:
    """The condition: the row is bad (for some router, or for all)."""
    from functools import reduce

    from pyspark.sql import functions as F

    conds = [F.col(f"{prefix(i)}status") == BAD_KEY for i in range(len(jobs))]
    if BAD_ROW in flagged.columns:
        conds.append(F.col(BAD_ROW))
    return reduce(lambda a, b: a | b, conds)


def stop_point(keys: DataFrame, jobs: Sequence[RouterJob], max_errors: int, engine: str,
               progress: Callable[[str], None]) -> tuple[DataFrame, tuple[str, int, int] | None]:
    """The routed rows (persisted: the caller counts them and unpersists) and where a run with
    ``--max-errors`` stops: (file, block, row) of the ``max_errors + 1``-th bad row in input order
    (files by name, then lines), or None when the input has no more bad rows than that.

    Spark takes the first ``max_errors + 1`` bad rows it finds and stops reading (a limit reads the
    first partitions first, then more only as needed), so a hopeless input costs a fraction of a run.
    Those need not be the first in input order (Spark reads the largest files first): the rows up to
    the last of them are then routed again (and only those), to find the first ``max_errors + 1``.
    With no more than ``max_errors`` bad rows the whole input was routed once, into the cache.
    """
    from pyspark import StorageLevel

    order = [FILE, BLOCK, ROW]
    flagged = assign(keys, jobs, engine=engine, progress=progress).persist(StorageLevel.MEMORY_AND_DISK)
    try:
        found = flagged.filter(_bad(flagged, jobs)).select(*order).limit(max_errors + 1).collect()
    except BaseException:
        flagged.unpersist()
        raise
    if len(found) <= max_errors:
        return flagged, None
    flagged.unpersist()
    last = max((str(r[FILE]), int(r[BLOCK]), int(r[ROW])) for r in found)
    near = assign(keys.filter(at_or_before(*last)), jobs, engine=engine, progress=progress).persist(
        StorageLevel.MEMORY_AND_DISK)
    try:
        first = near.filter(_bad(near, jobs)).select(*order).orderBy(*order).limit(max_errors + 1).collect()
    except BaseException:
        near.unpersist()
        raise
    r = first[-1]
    return near, (str(r[FILE]), int(r[BLOCK]), int(r[ROW]))


# Bad rows shown in the summary (all are counted).
BAD_SAMPLES = 10


def bad_samples(assigned: DataFrame, jobs: Sequence[RouterJob], where: Blocks) -> list[dict[str, object]]:
    """The first few bad rows: file, line or record, the router (None: every router) and why."""
    from ..routing.keys import connection_from_record

    rows = assigned.filter(_bad(assigned, jobs)).orderBy(FILE, BLOCK, ROW).limit(BAD_SAMPLES).collect()
    out: list[dict[str, object]] = []
    for r in rows:
        place: dict[str, object] = (
            {"row": r[ID]} if ID in r.asDict() else
            {"file": shown_path(r[FILE]), where.unit: where.where(r[FILE], r[BLOCK], r[ROW])})
        if BAD in r.asDict() and r[BAD] is not None:
            out.append({**place, "router": None, "error": r[BAD]})
            continue
        record = {c: r[c] for c in r.asDict() if c == "key" or c in KEY_COLUMNS}
        for i, job in enumerate(jobs):
            if r[f"{prefix(i)}status"] != BAD_KEY:
                continue
            try:
                connection_from_record(job.router.key_type, record, job.router.sni_encoding)
                why = "not a key for this router"
            except UsageError as exc:
                why = exc.message
            out.append({**place, "router": job.router.name, "error": why})
    return out[:BAD_SAMPLES]
