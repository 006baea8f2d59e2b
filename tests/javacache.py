"""javac a test's Java sources once: the classes are kept in a folder named by a hash of the sources,
the options and the javac that compiled them, shared by the suite's xdist workers (and later runs).

A JDK start for javac costs one to three seconds of CPU; the oracles are compiled by several test
modules (and by each worker that runs one of their tests). The folder appears whole or not at all:
javac writes to a private folder that is then renamed into place, and a worker that loses the race
uses the winner's classes (the same bytes from the same sources).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(tempfile.gettempdir()) / "arouter-tests-javac"


def _key(sources: Sequence[Path], options: Sequence[str], javac: str) -> str:
    h = hashlib.sha256()
    for part in (os.path.realpath(javac), *options):
        h.update(part.encode("utf-8") + b"\0")
    for source in sources:
        h.update(source.name.encode("utf-8") + b"\0" + source.read_bytes() + b"\0")
    return h.hexdigest()[:32]


def compiled(*sources: Path, options: Sequence[str] = ("-encoding", "UTF-8"), timeout: float = 120) -> Path:
    """The class folder of ``sources`` compiled with ``javac options``."""
    javac = shutil.which("javac")
    assert javac is not None, "javac not found on PATH"
    final = ROOT / _key(sources, options, javac)
    if final.is_dir():
        return final
    ROOT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".javac-", dir=ROOT))
    try:
        done = subprocess.run([javac, *options, "-d", str(work), *map(str, sources)], capture_output=True, text=True,
                              timeout=timeout, check=False)
        assert done.returncode == 0, done.stderr
        os.rename(work, final)
    except OSError:
        if not final.is_dir():
            raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return final
