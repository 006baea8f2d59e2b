"""arouter on executors whose Python does not have it: the run ships the package (a zip through
``addPyFile``); ``spark.pyspark.python`` from ``--conf`` picks the executors' interpreter; the
executors' JVM options name no file that only the driver has."""

from __future__ import annotations

import csv
import json
import random
import zipfile
from pathlib import Path

import pytest

from tests.cli.helpers import arouter
from tests.pipeline.peers import python_without_arouter, run_arouter

ROUTER = "sticky-router"


@pytest.fixture(scope="module")
def need_spark() -> None:
    pytest.importorskip("pyspark")
    pytest.importorskip("pyarrow")
    from artemis_routing_cli.pipeline.session import java_available

    if not java_available():
        pytest.skip("Java is not installed")


@pytest.mark.spark
def test_executors_without_arouter_route_on_pandas(need_spark, tmp_path: Path) -> None:
    """local-cluster[2,1,1024]: two executors in their own JVMs whose Python workers (chosen with
    ``--conf spark.pyspark.python``) cannot import arouter; per-key answers equal simulate's."""
    bare = python_without_arouter(tmp_path)
    rng = random.Random(21)
    keys = tmp_path / "ids.txt"
    keys.write_text("".join(f"dev-{rng.randrange(10**7)}" + rng.choice(["", "\u00e9", "/x"]) + "\n"
                            for _ in range(1500)), encoding="utf-8")
    out = tmp_path / "assignments"
    run = run_arouter("analyze", "--keys", str(keys), "-r", ROUTER, "--engine", "pandas", "--output", str(out),
                      "--output-format", "csv", "-f", "json", "--master", "local-cluster[2,1,1024]",
                      "--conf", f"spark.pyspark.python={bare}")
    assert run.returncode == 0, run.stderr
    assert f"Spark workers run {bare} (--conf spark.pyspark.python)" in run.stderr
    rows = [row for f in sorted(out.glob("*.csv")) for row in csv.DictReader(f.open(encoding="utf-8"))]
    got = {int(r["line"]): (r["key"], r["status"], r["target"]) for r in rows}
    sim = arouter("simulate", "-r", ROUTER, "--keys-file", str(keys), "-f", "jsonl")
    assert sim.code == 0, sim.err
    assert got == {n: (x["key"], x["status"], x["target"] or "")
                   for n, x in enumerate(map(json.loads, sim.out.splitlines()), 1)}


def test_the_shipped_zip_holds_the_package_and_imports_alone(tmp_path: Path) -> None:
    from artemis_routing_cli.pipeline.ship import build_zip

    target = build_zip(tmp_path)
    names = zipfile.ZipFile(target).namelist()
    assert "artemis_routing_cli/routing/batch.py" in names and "artemis_routing_cli/data/sample-broker.xml" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".java")]
    bare = python_without_arouter(tmp_path)
    import subprocess

    probe = subprocess.run([str(bare), "-c", f"import sys; sys.path.insert(0, {str(target)!r});"
                            "import artemis_routing_cli.pipeline.assign as a; print(a.__file__)"],
                           capture_output=True, text=True, timeout=120, check=False)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.startswith(str(target))


def test_the_executor_side_imports_no_cli_or_xml_dependency(tmp_path: Path) -> None:
    """What Spark's Python workers import to route (route_frames, the routers it unpickles, the probe)
    needs numpy, pandas and pyarrow only: lxml, typer and rich are the driver's."""
    import subprocess
    import sys

    from tests.cli.helpers import REPO

    code = ("import sys; sys.modules.update(dict.fromkeys(['lxml', 'typer', 'rich', 'click']));"
            "import artemis_routing_cli.pipeline.assign, artemis_routing_cli.pipeline.executors;"
            "from artemis_routing_cli.pipeline.executors import EXECUTOR_MODULES;"
            "print(sorted(m for m in ('numpy', 'pandas', 'pyarrow') if m in sys.modules), EXECUTOR_MODULES)")
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO,
                           check=False)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split("]")[0] == "["  # imported on first use, in the workers


@pytest.mark.spark
def test_executors_lacking_a_module_stop_before_routing_with_one_sentence(need_spark, tmp_path: Path) -> None:
    """local-cluster: an executor's Python without pyarrow is found by a tiny job before any routing:
    one plain sentence naming the module and the fix, exit 2 (not a Py4J traceback)."""
    bare = python_without_arouter(tmp_path, lacking=("pyarrow",))
    keys = tmp_path / "ids.txt"
    keys.write_text("".join(f"k{i}\n" for i in range(50)), encoding="utf-8")
    run = run_arouter("analyze", "--keys", str(keys), "-r", ROUTER, "--engine", "pandas", "-f", "json",
                      "--master", "local-cluster[1,1,1024]", "--conf", f"spark.pyspark.python={bare}")
    assert run.returncode == 2, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("arouter: the Spark executors' Python cannot import pyarrow"), run.stderr
    assert "spark.archives=" in last and "spark.pyspark.python" in last
    assert "Traceback" not in run.stderr and "Py4J" not in run.stderr and run.stdout == ""


@pytest.mark.parametrize(("master", "remote", "foreign", "ships"), [
    (None, False, False, False), ("local[2]", False, False, False), ("local", False, False, False),
    ("local[2]", False, True, True), ("local-cluster[2,1,1024]", False, False, True),
    ("spark://h:7077", False, False, True), ("yarn", False, False, True), (None, True, False, True)])
def test_the_package_is_shipped_where_executors_are_elsewhere(master: str | None, remote: bool, foreign: bool,
                                                              ships: bool) -> None:
    from artemis_routing_cli.pipeline.ship import needs_shipping

    assert needs_shipping(master, remote, foreign) is ships


@pytest.mark.spark
def test_executor_jvm_options_name_no_driver_file(spark) -> None:  # noqa: ANN001 (the session fixture)
    """The log4j file arouter writes lives on the driver: an executor on another host has no such path."""
    conf = dict(spark.sparkContext.getConf().getAll())
    assert "log4j" in conf.get("spark.driver.extraJavaOptions", "")
    assert "log4j" not in conf.get("spark.executor.extraJavaOptions", "")


@pytest.mark.spark
def test_local_workers_on_another_python_get_the_package_too(need_spark, tmp_path: Path) -> None:
    """local[1] with ``PYSPARK_PYTHON`` naming an interpreter without arouter (a system Python, say)."""
    bare = python_without_arouter(tmp_path)
    keys = tmp_path / "ids.txt"
    keys.write_text("".join(f"k{i}\u00e9\n" for i in range(400)), encoding="utf-8")
    run = run_arouter("analyze", "--keys", str(keys), "-r", ROUTER, "--engine", "pandas", "-f", "json",
                      "--master", "local[1]", env={"PYSPARK_PYTHON": str(bare)})
    assert run.returncode == 0, run.stderr
    got = sorted((t["target"], t["count"]) for t in json.loads(run.stdout)["routers"][0]["targets"] if t["count"])
    sim = arouter("simulate", "-r", ROUTER, "--keys-file", str(keys), "-f", "jsonl")
    assert sim.code == 0, sim.err
    from collections import Counter

    assert got == sorted(Counter(x["target"] for x in map(json.loads, sim.out.splitlines())).items())
