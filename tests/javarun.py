"""Compile and run a small Java program of a test's own on the JDK here (the oracle for JDK facts)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.javacache import compiled


def needs_jdk() -> None:
    """Skip the calling test when no JDK is on PATH."""
    for tool in ("java", "javac"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not found on PATH (this check runs the JDK)")


def run_java(workdir: Path, source: str, stdin: str = "", timeout: float = 120) -> str:
    """javac ``source`` (a public class) in ``workdir`` and run it with ``stdin``; its stdout (UTF-8)."""
    needs_jdk()
    name = re.search(r"public\s+(?:final\s+)?class\s+(\w+)", source)
    assert name is not None, "the source needs a public class"
    path = workdir / f"{name.group(1)}.java"
    path.write_text(source, encoding="utf-8")
    classes = compiled(path, timeout=timeout)
    proc = subprocess.run(["java", "-Xss16m", "-cp", str(classes), name.group(1)], input=stdin.encode("utf-8"),
                          capture_output=True, check=True, timeout=timeout)
    return proc.stdout.decode("utf-8")
