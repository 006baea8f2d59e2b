"""arouter for the executors: the package as a zip, added to the session once per run.

Routers on the pandas path run ``routing.batch`` inside the executors' Python workers, which import
``artemis_routing_cli``. On a cluster (or behind a Spark Connect server) that Python is often not
the one arouter was installed in, and every pandas-routed router failed with
``ModuleNotFoundError``. The zip holds the package's Python modules and data (not its
dependencies: the workers need numpy, pandas and pyarrow, as any PySpark pandas UDF does);
Spark puts it on the workers' ``sys.path`` ahead of their own site-packages, so the executors
run the driver's own version of the engine.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

PACKAGE_DIR = Path(__file__).resolve().parents[1]
ZIP_NAME = "artemis_routing_cli.zip"
# What the executors never read: the UDF sources are compiled on the driver, the judge runs there only.
_LEFT_OUT = ("pipeline/java/", "judge/java/")


def build_zip(directory: Path) -> Path:
    """The package as ``directory/artemis_routing_cli.zip`` (sources and data, no byte code)."""
    target = directory / ZIP_NAME
    root = PACKAGE_DIR.parent
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(PACKAGE_DIR.rglob("*")):
            rel = path.relative_to(PACKAGE_DIR).as_posix()
            if (not path.is_file() or "__pycache__" in path.parts or path.suffix in (".pyc", ".pyo")
                    or rel.startswith(_LEFT_OUT)):
                continue
            z.write(path, path.relative_to(root).as_posix())
    return target


def needs_shipping(master: str | None, remote: bool, foreign_python: bool = False) -> bool:
    """Executors outside the driver's process (a cluster master, a Spark Connect server), or workers
    that run another Python than arouter's (``PYSPARK_PYTHON``, ``spark.pyspark.python``).

    In ``local[N]`` with arouter's own interpreter the workers import the same install.
    """
    if remote or foreign_python:
        return True
    m = (master or "local").strip()
    return not (m == "local" or m.startswith("local["))


def ship(spark: SparkSession, directory: Path, remote: bool) -> Path:
    """Add the package zip to ``spark`` (``addPyFile``; over Spark Connect, a Python artifact)."""
    target = build_zip(directory)
    if remote:
        spark.addArtifacts(str(target), pyfile=True)
    else:
        spark.sparkContext.addPyFile(str(target))
    return target


@contextlib.contextmanager
def shipped(spark: SparkSession, remote: bool) -> Iterator[Path | None]:
    """While the run lasts: the package zip added to ``spark`` when its executors need it (else None).

    Built once per run in a temporary directory, removed when the run ends.
    """
    master = None if remote else spark.sparkContext.master
    python = os.environ.get("PYSPARK_PYTHON")  # start_session sets it to the workers' interpreter
    foreign = python is not None and not remote and os.path.realpath(python) != os.path.realpath(sys.executable)
    if not needs_shipping(master, remote, foreign):
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="arouter-ship-") as tmp:
        yield ship(spark, Path(tmp), remote)
