"""Homes on Spark: ``arouter fleet --keys PATH --spark`` routes the population through every pod's router
with analyze's pipeline (assign.count_answers: the JVM/pandas engines, one group-by over the pods'
answers together) and turns each group into its homes with fleet.count.chunk_homes, the local path's
own function. Samples of keys are not collected (the groups hold answers, not keys); a router's own
client ids ($.artemis.internal.router.client.…) are not told apart from other keys here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..fleet.count import ALL, chunk_homes
from ..routing.batch import BatchResult
from ..routing.keys import NULL_KEY
from ..routing.router import Router
from .assign import BAD_KEY, BAD_ROW, RouterJob, count_answers, prefix
from .inputs import read_keys
from .preflight import KeysInput
from .summary import collect_counted

if TYPE_CHECKING:
    import numpy as np
    from pyspark.sql import SparkSession


def spark_homes(spark: SparkSession, keys_path: str, pods: Sequence[Router | int | None], targets: dict[str, int],
                redirects: Sequence[bool], *, keys_format: str = "auto", engine: str = "auto",
                progress: Callable[[str], None] = lambda _m: None,
                inp: KeysInput | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Homes, hopped, NULL and the count of each distinct joint answer of the pods (``pods[i]``: pod i's
    router, ``ALL`` or None as chunk_homes takes them), and how many rows were not keys."""
    results, counts, bad = spark_answers(spark, keys_path, pods, keys_format=keys_format, engine=engine,
                                         progress=progress, inp=inp)
    homes, hopped, null = chunk_homes(results, targets, redirects)
    return homes, hopped, null, counts, bad


def spark_answers(spark: SparkSession, keys_path: str, pods: Sequence[Router | int | None], *,
                  keys_format: str = "auto", engine: str = "auto", progress: Callable[[str], None] = lambda _m: None,
                  inp: KeysInput | None = None) -> tuple[list[BatchResult | int | None], np.ndarray, int]:
    """Every pod's answer for each distinct joint answer of the pods (one entry per group, as chunk_homes
    takes a chunk), the count of each group, and how many rows were not keys."""
    import numpy as np

    keys = read_keys(spark, keys_path, keys_format, inp)
    slot = {i: j for j, i in enumerate(i for i, r in enumerate(pods) if isinstance(r, Router))}
    jobs = [RouterJob(r) for r in pods if isinstance(r, Router)]
    for job in jobs:
        job.router.tracing = False
    progress(f"routing keys from {keys_path} on {len(pods)} pod(s) and counting")
    groups = collect_counted(count_answers(keys, jobs, engine=engine, progress=progress), jobs)
    bad = [g for g in groups if g[0].get(BAD_ROW) or any(g[0].get(f"{prefix(j)}status") == BAD_KEY
                                                          for j in range(len(jobs)))]
    groups = [g for g in groups if g not in bad]
    n = len(groups)
    results: list[BatchResult | int | None] = []
    for i, pod in enumerate(pods):
        if not isinstance(pod, Router):
            results.append(pod)
            continue
        q = prefix(slot[i])
        col = [values for values, _ in groups]
        status = np.array([v[f"{q}status"] for v in col], dtype=object)
        target = np.array([None if v[f"{q}target"] is None else str(v[f"{q}target"]) for v in col], dtype=object)
        local = np.array([bool(v[f"{q}local"]) for v in col], dtype=bool)
        key = np.array([NULL_KEY if v[f"{q}null"] else "" for v in col], dtype=object)
        results.append(BatchResult(key, np.full(n, None, dtype=object), status, target,
                                   np.full(n, None, dtype=object), local, vectorised=True))
    counts = np.array([c for _, c in groups], dtype=np.int64)
    return results, counts, sum(c for _, c in bad)


__all__ = ["ALL", "spark_answers", "spark_homes"]
