"""Runs java.util.regex as a test oracle: compile JavaRegexOracle.java once, feed it many cases.

Used by tests/routing/test_javaregex_oracle.py (loaded by path) and by hand to re-record
tests/routing/data/javaregex_oracle.json:

    python tests/routing/test_javaregex_oracle.py --record
"""

from __future__ import annotations

import base64
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.javacache import compiled

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "JavaRegexOracle.java"


@dataclass(frozen=True)
class Answer:
    """What Java said for one (pattern, input): an error, or find()'s group 0 (None = no match)
    and matches()."""

    error: str | None = None
    error_index: int | None = None
    found: str | None = None
    matches: bool = False

    def to_json(self) -> dict[str, object]:
        if self.error is not None:
            return {"error": self.error, "index": self.error_index}
        return {"find": self.found, "matches": self.matches}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> Answer:
        if "error" in data:
            return cls(error=str(data["error"]), error_index=int(data["index"]))  # type: ignore[arg-type]
        found = data["find"]
        return cls(found=None if found is None else str(found), matches=bool(data["matches"]))


def missing_tools() -> str | None:
    """Why the oracle cannot run here, or None when java and javac are available."""
    for tool in ("java", "javac"):
        if shutil.which(tool) is None:
            return f"{tool} not found on PATH (the Java oracle needs a JDK)"
    return None


def java_major() -> int:
    out = subprocess.run(["java", "-version"], capture_output=True, text=True, check=True).stderr
    version = out.split('"')[1]
    head = version.split(".")[0]
    return int(version.split(".")[1]) if head == "1" else int(head)


def compile_oracle() -> Path:
    """The oracle's class folder (compiled once, tests/javacache.py)."""
    return compiled(SOURCE)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")


def _unb64(text: str) -> str:
    return base64.b64decode(text).decode("utf-8", "surrogatepass")


def run_oracle(classdir: Path, cases: list[tuple[str, str]]) -> list[Answer]:
    """One JVM for all cases, in order."""
    payload = "".join(f"{_b64(p)} {_b64(t)}\n" for p, t in cases)
    proc = subprocess.run(["java", "-Xss8m", "-cp", str(classdir), "JavaRegexOracle"],
                          input=payload.encode("ascii"), capture_output=True, check=True, timeout=120)
    lines = proc.stdout.decode("ascii").splitlines()
    if len(lines) != len(cases):
        raise RuntimeError(f"oracle answered {len(lines)} of {len(cases)} cases: {proc.stderr!r}")
    answers = []
    for line in lines:
        fields = line.split(" ")
        if fields[0] == "ERR":
            answers.append(Answer(error=_unb64(fields[2]) if len(fields) > 2 else "",
                                  error_index=int(fields[1])))
        elif fields[1] == "F":
            answers.append(Answer(found=_unb64(fields[2]), matches=fields[3] == "T"))
        else:
            answers.append(Answer(found=None, matches=fields[2] == "T"))
    return answers
