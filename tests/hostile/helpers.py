"""Hostile-input helpers: run the real CLI in a subprocess under a memory cap and a hard time cap."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from pathlib import Path

from tests.cli.helpers import REPO, Run

SAMPLE = (REPO / "samples" / "broker.xml").read_text(encoding="utf-8")
XI = 'xmlns:xi="http://www.w3.org/2001/XInclude"'
# Generous caps: a hostile document must end well within them (speed itself is measured in bench/).
HARD_TIMEOUT = 60.0
MEMORY_CAP = 1 << 30  # 1 GiB of address space for the whole interpreter
LOCATED = re.compile(r"^arouter: [^\n]*:\d+:\d+: ")


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def capped(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
           timeout: float = HARD_TIMEOUT) -> Run:
    """``arouter ARGS`` with at most 1 GiB of memory and a hard time cap (exceeding it fails the test)."""
    full_env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **(env or {})}
    full_env.pop("ARTEMIS_INSTANCE", None)
    full_env.pop("AROUTER_DEBUG", None)
    proc = subprocess.run([sys.executable, "-m", "artemis_routing_cli", *args], capture_output=True, text=True,
                          cwd=cwd or REPO, env=full_env, timeout=timeout, stdin=subprocess.DEVNULL,
                          preexec_fn=_cap_memory)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def assert_clean(run: Run, *codes: int) -> None:
    """Exit code among ``codes`` (0/1/2 when none given), no traceback, no internal error."""
    assert run.code in (codes or (0, 1, 2)), (run.code, run.err[-2000:])
    assert "Traceback" not in run.err and "internal error" not in run.err, run.err[-2000:]


def sample_with(old: str, new: str) -> str:
    assert old in SAMPLE
    return SAMPLE.replace(old, new, 1)
