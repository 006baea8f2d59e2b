"""Runs RegexHeldOut.java on the JDK: Java's verdict, find() span and matches() for (pattern, text) cases."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.javacache import compiled

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Verdict:
    error: str | None = None  # PatternSyntaxException description
    index: int | None = None
    span: tuple[int, int] | None = None  # find(): group 0 in UTF-16 units
    matches: bool = False
    throws: str | None = None


def hex16(text: str) -> str:
    """``text`` as UTF-16 units, four hex digits each (lone surrogates kept)."""
    raw = text.encode("utf-16-be", "surrogatepass")
    return raw.hex()


def run(cases: list[tuple[str, str]]) -> list[Verdict]:
    classdir = compiled(HERE / "RegexHeldOut.java")
    payload = "".join(f"{hex16(p)} {hex16(t)}\n" for p, t in cases)
    proc = subprocess.run(["java", "-Xss16m", "-cp", str(classdir), "RegexHeldOut"], input=payload.encode("ascii"),
                          capture_output=True, check=True, timeout=300)
    out: list[Verdict] = []
    for line in proc.stdout.decode("ascii").splitlines():
        parts = line.split(" ")
        if parts[0] == "ERR":
            desc = bytes.fromhex(parts[2]).decode("utf-16-be", "surrogatepass") if len(parts) > 2 else ""
            out.append(Verdict(error=desc, index=int(parts[1])))
        elif parts[0] == "THROW":
            out.append(Verdict(throws=parts[1]))
        else:
            start, end = int(parts[1]), int(parts[2])
            out.append(Verdict(span=None if start < 0 else (start, end), matches=parts[3] == "T"))
    assert len(out) == len(cases)
    return out
