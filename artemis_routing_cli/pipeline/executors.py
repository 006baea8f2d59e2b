"""Before routing in pandas UDFs: can the executors' Python import what that routing runs?

The code Spark runs on the executors (``assign.route_frames`` and the router objects it unpickles)
imports numpy and arouter's routing engine, and PySpark's pandas UDFs need pandas and pyarrow; the
engine imports nothing else outside the standard library (no lxml, typer or rich: tests hold that).
arouter itself is shipped (:mod:`.ship`); the others must be installed where the workers run. A tiny
job imports them on the executors first, so a missing one is one plain sentence (exit 2) instead of a
Py4J traceback once the routing stage has failed its retries.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# What the executors import, in the order a missing one is named (arouter's engine last: shipped).
EXECUTOR_MODULES = ("numpy", "pandas", "pyarrow", "artemis_routing_cli.pipeline.assign")
FIX = ("install it for the workers' Python, or ship a packed virtualenv with --conf "
       "spark.archives=env.tar.gz#env --conf spark.pyspark.python=./env/bin/python")

_checked: dict[str, str | None] = {}  # session -> None (fine) or the missing module


def _prober(modules: tuple[str, ...]) -> Callable[[int], str]:
    """The function the probe job runs: the first module that does not import ('' when all do).

    A nested function, so Spark pickles it by value (the executors need not import arouter to run it)."""

    def probe(_: int) -> str:
        import importlib

        for name in modules:
            try:
                importlib.import_module(name)
            except ImportError as exc:
                return f"{getattr(exc, 'name', None) or name}"
        return ""

    return probe


def _elsewhere(spark: SparkSession) -> bool:
    """Whether the workers run another Python than this one (a cluster, a Connect server, another
    interpreter): then only a job on them can tell."""
    from .connect import is_remote
    from .ship import needs_shipping

    if is_remote(spark):
        return True
    python = os.environ.get("PYSPARK_PYTHON")
    foreign = python is not None and os.path.realpath(python) != os.path.realpath(sys.executable)
    return needs_shipping(spark.sparkContext.master, False, foreign)


def _missing_here(modules: tuple[str, ...]) -> str | None:
    for name in modules:
        top = name.split(".", 1)[0]
        if importlib.util.find_spec(top) is None:
            return top
    return None


def _missing_there(spark: SparkSession, modules: tuple[str, ...]) -> str | None:
    from pyspark.sql import functions as F

    from .connect import is_remote

    tasks = 4 if is_remote(spark) else max(1, int(spark.sparkContext.defaultParallelism))
    probe = F.udf(_prober(modules), "string", useArrow=False)  # a plain UDF: no pyarrow needed to run it
    rows = spark.range(0, tasks, 1, tasks).select(probe("id").alias("m")).distinct().collect()
    missing = sorted(r["m"] for r in rows if r["m"])
    return missing[0] if missing else None


def check_executors(spark: SparkSession, modules: tuple[str, ...] = EXECUTOR_MODULES) -> None:
    """UsageError naming the first module the executors' Python cannot import (once per session)."""
    from .connect import is_remote

    session = spark.session_id if is_remote(spark) else spark.sparkContext.applicationId  # type: ignore[attr-defined]
    if session not in _checked:
        _checked[session] = _missing_there(spark, modules) if _elsewhere(spark) else _missing_here(modules)
    missing = _checked[session]
    if missing is not None:
        raise UsageError(f"the Spark executors' Python cannot import {missing}, which routing in pandas UDFs "
                         f"needs: {FIX}")
