"""Ctrl-C during ``arouter analyze``: one line, exit 130, Spark stopped, nothing half written."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import REPO

from .cli_run import TIMEOUT

pytestmark = pytest.mark.spark


@pytest.mark.skipif(shutil.which("java") is None and not os.environ.get("JAVA_HOME"), reason="no Java")
def test_ctrl_c_while_writing_is_one_line_exit_130_and_no_output(tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    keys = tmp_path / "keys.txt"
    keys.write_text("".join(f"client-{i}\n" for i in range(2_000_000)), encoding="utf-8")
    out = tmp_path / "out"
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "PYTHONPATH": str(REPO)}
    env.pop("ARTEMIS_INSTANCE", None)
    # a session of its own: SIGINT to its process group is what a terminal's Ctrl-C sends
    proc = subprocess.Popen([sys.executable, "-m", "artemis_routing_cli", "analyze", "--keys", str(keys),
                             "-r", "sticky-router", "--output", str(out), "--engine", "pandas"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    assert proc.stderr is not None
    before = []
    for line in proc.stderr:  # the sync point: the run says it starts writing the assignments
        before.append(line)
        if line.startswith("arouter: writing per-key assignments to"):
            break
    else:
        pytest.fail("the run ended before writing: " + "".join(before))
    os.killpg(proc.pid, signal.SIGINT)
    _out, after = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 130, after
    lines = [line for line in after.splitlines() if not line.startswith("arouter: stage ")]
    assert lines == ["arouter: interrupted: Spark stopped, nothing written"], after
    assert not out.exists(), sorted(p.name for p in out.rglob("*"))
