"""The real CLI in a subprocess for Spark runs: the CLI helper's bound (120 s) is too short for a
Spark start-up on a loaded shared machine, so these runs are bounded at :data:`TIMEOUT`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.cli.helpers import REPO, Run

TIMEOUT = 900  # s


def arouter_spark(*args: str, cwd: Path | None = None) -> Run:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "PYTHONPATH": str(REPO)}
    env.pop("ARTEMIS_INSTANCE", None)
    proc = subprocess.run([sys.executable, "-m", "artemis_routing_cli", *args], capture_output=True, text=True,
                          cwd=cwd or REPO, env=env, timeout=TIMEOUT, check=False)
    return Run(proc.returncode, proc.stdout, proc.stderr)
