"""Real third-party clients and brokers the tests run: where to find them, and what happens when
one is missing - a skip on a developer's machine, a failure in CI (``CI=true``), never a silent
pass."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

JS_DIR = Path(__file__).parent / "js"
NODE = shutil.which("node")

#: Guard against a hung client, not a synchronisation device: a passing test never waits for it.
HANG_GUARD_SECONDS = 120


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def need(available: bool, what: str) -> None:
    """Skip (fail in CI) when a real peer is missing: ``what`` says which and how to install it."""
    if available:
        return
    if in_ci():
        pytest.fail(f"{what} is missing in CI (.ci/run installs it)")
    pytest.skip(f"{what} is not installed")


def node_script(name: str, package: str) -> list[str]:
    """``node tests/js/NAME`` once ``package`` is installed under tests/js/node_modules (``npm ci``)."""
    need(NODE is not None, "node (/usr/bin/node)")
    need((JS_DIR / "node_modules" / package / "package.json").is_file(),
         f"the npm package {package} (cd tests/js && npm ci)")
    assert NODE is not None
    return [NODE, str(JS_DIR / name)]


def run_json_lines(command: list[str]) -> list[dict]:
    """Run a client program that prints one JSON object a line; its outcomes, in order."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=HANG_GUARD_SECONDS, check=False)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
