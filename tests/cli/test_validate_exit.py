"""``arouter validate`` leaves the checked model to the end of the process instead of freeing it:
nothing frees it later, and the report, the -o file and the exit status are what they were."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, SAMPLE

NEVER_FREED = """
import gc, weakref
from artemis_routing_cli.cli.entry import never_free
class Box:
    pass
box = Box()
ref = weakref.ref(box)
held = [box]
del box
never_free(held)
del held
gc.collect()
print(ref() is not None)
"""


def test_never_freed_objects_outlive_every_collection() -> None:
    out = subprocess.run([sys.executable, "-c", NEVER_FREED], capture_output=True, text=True, timeout=60,
                         cwd=REPO)
    assert out.stdout.strip() == "True", out.stderr


def _arouter(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "artemis_routing_cli", "validate", "--no-settings", *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd)


def test_report_file_and_status_are_complete(tmp_path: Path) -> None:
    bad = tmp_path / "broker.xml"
    bad.write_text(SAMPLE.read_text(encoding="utf-8").replace("<connection-routers>", "<connection-routers>"
                   '<connection-router name="x"><key-type>NOPE</key-type></connection-router>', 1),
                   encoding="utf-8")
    report = tmp_path / "out.json"
    run = _arouter("-f", "json", "-o", str(report), str(bad), cwd=tmp_path)
    assert run.returncode == 1 and run.stdout == ""
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["summary"]["exit_code"] == 1 and data["files"][0]["diagnostics"]
    piped = _arouter("-f", "json", str(bad), cwd=tmp_path)
    assert piped.returncode == 1 and json.loads(piped.stdout) == data
    missing = _arouter(str(tmp_path / "nothing.xml"), cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.startswith("arouter: ")


FROZEN = """
import gc, sys
from artemis_routing_cli.cli.validate_options import parse_validate_args
from artemis_routing_cli.cli.validate_run import run_validate
held = []
code = run_validate(parse_validate_args(["-q", "--no-settings", "-f", "json", sys.argv[1], sys.argv[1]]), keep=held)
tracked = {id(o) for o in gc.get_objects()}
doc, config, reports = held
print(code, len(reports), id(doc) in tracked, id(config) in tracked, id(reports) in tracked, gc.get_freeze_count() > 0)
"""


def test_the_kept_model_is_out_of_the_collectors_sight() -> None:
    """What the CLI keeps to the end (the last file's document and model, the reports) is frozen before
    the report is written: no collection walks it."""
    out = subprocess.run([sys.executable, "-c", FROZEN, str(SAMPLE)], capture_output=True, text=True, timeout=120,
                         cwd=REPO)
    assert out.stdout.split("\n")[-2].split() == ["0", "2", "False", "False", "False", "True"], out.stderr
