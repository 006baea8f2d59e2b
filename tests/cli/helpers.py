"""Run the real CLI in a subprocess: exit codes, stdout and stderr exactly as users see them."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# A hang guard, not a speed limit: generous enough for a Spark start-up (analyze, diff --keys) on a
# machine whose two cores the suite's parallel workers share.
HANG_GUARD = 900  # s


@dataclass
class Run:
    code: int
    out: str
    err: str


def arouter(*args: str, stdin: str | None = None, cwd: Path | None = None, env: dict[str, str] | None = None) -> Run:
    # $ARTEMIS_HOME would make validate judge with that broker too (a JVM): only a test that means it sets it
    inherited = {k: v for k, v in os.environ.items() if k != "ARTEMIS_HOME"}
    full_env = {**inherited, "COLUMNS": "200", "NO_COLOR": "1", **(env or {})}
    full_env.pop("ARTEMIS_INSTANCE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "artemis_routing_cli", *args],
        input=stdin, capture_output=True, text=True, cwd=cwd or REPO, env=full_env, timeout=HANG_GUARD,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)
