"""``spark-submit … spark_submit.py`` runs analyze in the submitted session (real spark-submit)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from artemis_routing_cli.routing.fnv import fnv1a32
from tests.conftest import SAMPLE

pytestmark = pytest.mark.spark


def test_spark_submit_runs_analyze(tmp_path: Path) -> None:
    pyspark = pytest.importorskip("pyspark")
    from artemis_routing_cli.cli import spark_submit
    from artemis_routing_cli.pipeline.session import java_available

    if not java_available():
        pytest.skip("Java is not installed")
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    keys = [f"client-{i}" for i in range(300)]
    path = tmp_path / "keys.txt"
    path.write_text("\n".join(keys) + "\n", encoding="utf-8")
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}
    run = subprocess.run(
        [str(submit), "--master", "local[1]", spark_submit.__file__, "--keys", str(path), "-c", str(SAMPLE),
         "-r", "shard-router", "-f", "json"],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "routing in Python" not in run.stdout + run.stderr  # the UDF jar reached spark-submit's executors
    # spark-submit merges the driver's stderr (our progress lines) into its stdout
    document = run.stdout[run.stdout.index("\n{") + 1:]
    (router,) = json.loads(document)["routers"]
    expected_local = sum(1 for k in keys if (fnv1a32(k) & 0x7FFFFFFF) % 3 == 0)
    assert router["total"] == 300 and router["local"] == expected_local
    assert router["refused"]["REFUSED_USE_ANOTHER"] == 300 - expected_local
