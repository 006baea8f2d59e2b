"""Runs RoleOrderOracle.java (the JDK's HashSet, Properties and Subject) for the role-order tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.javacache import compiled

SOURCE = Path(__file__).resolve().parent / "RoleOrderOracle.java"


def compile_oracle() -> Path:
    """The oracle's class folder (compiled once, tests/javacache.py)."""
    return compiled(SOURCE)


def token(text: str) -> str:
    raw = text.encode("utf-16-be", "surrogatepass")
    return "x" + raw.hex()


def untoken(tok: str) -> str:
    return bytes.fromhex(tok[1:]).decode("utf-16-be", "surrogatepass")


def run(classdir: Path, lines: list[str]) -> list[list[str]]:
    proc = subprocess.run(["java", "-cp", str(classdir), "RoleOrderOracle"], input="".join(x + "\n" for x in lines),
                          capture_output=True, text=True, check=True, timeout=300)
    out = proc.stdout.split("\n")[:-1]
    assert len(out) == len(lines), proc.stderr
    return [[untoken(t) for t in row.split(" ")] if row else [] for row in out]
