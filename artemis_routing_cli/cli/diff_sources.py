"""Where ``arouter diff`` reads each config: a file, or ``REV:path`` from git (``git show``).

A ``REV:path`` path is relative to the repository's top (as git reads it); ``REV:./path`` is relative
to the current directory. XIncludes of a file read from git are read from the same revision (see
config.loader.FileSource). Each read is bounded: at most :data:`MAX_BYTES` bytes and
:data:`GIT_TIMEOUT` seconds, regular files (blobs) only.
"""

from __future__ import annotations

import os
import posixpath
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..config.loader import FileSource
from ..errors import ConfigError, UsageError

MAX_BYTES = 16 * 1024 * 1024  # a broker.xml is kilobytes; 16 MiB is certainly not one
GIT_TIMEOUT = 30.0  # seconds per git call


@dataclass(frozen=True)
class ConfigSource:
    """One side of the diff: what to load and how it was read (said in every output)."""

    path: str  # a file path, or the repository-relative path inside ``rev``
    rev: str | None = None
    source: FileSource | None = None

    @property
    def display(self) -> str:
        return f"{self.rev}:{self.path}" if self.rev is not None else self.path

    @property
    def read(self) -> str:
        if self.rev is None:
            return f"file {self.path}"
        return f"git show {self.rev}:{self.path}"


def _git(args: list[str], what: str, limit: int = MAX_BYTES) -> bytes:
    try:
        proc = subprocess.Popen(["git", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise UsageError(f"{what}: git is not installed (needed to read REV:path)") from None
    try:
        assert proc.stdout is not None and proc.stderr is not None
        data = proc.stdout.read(limit + 1)
        if len(data) > limit:
            proc.kill()
            proc.wait()
            raise UsageError(f"{what}: larger than {limit // (1024 * 1024)} MiB; not a broker.xml")
        _, err = proc.communicate(timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise UsageError(f"{what}: git did not answer within {GIT_TIMEOUT:.0f} s") from None
    if proc.returncode != 0:
        first = (err.decode("utf-8", "replace").strip().splitlines() or ["git failed"])[0]
        raise UsageError(f"{what}: {first}")
    return data


def _blob_reader(rev: str) -> FileSource:
    def read(path: str) -> bytes:
        spec = f"{rev}:{path}"
        try:
            kind = _git(["cat-file", "-t", spec], spec, 64).strip()
        except UsageError:
            raise FileNotFoundError(spec) from None
        if kind != b"blob":
            raise ConfigError(f"not a file in {rev} (a {kind.decode('ascii', 'replace')})", file=spec)
        return _git(["show", spec], spec)

    return FileSource(rev, read)


def resolve_source(arg: str) -> ConfigSource:
    """``arg`` as a file when one exists at that path, else as ``REV:path``."""
    if os.path.lexists(arg) or ":" not in arg:
        p = Path(arg)
        if not p.exists():
            raise ConfigError("file not found", file=arg)
        if not p.is_file():
            raise ConfigError("not a regular file", file=arg)
        return ConfigSource(arg)
    rev, _, path = arg.partition(":")
    if not rev or not path:
        raise UsageError(f"{arg!r}: expected a file or REV:path (e.g. HEAD~1:etc/broker.xml)")
    if path.startswith(("./", "../")):
        prefix = _git(["rev-parse", "--show-prefix"], arg, 4096).decode("utf-8").strip()
        path = posixpath.normpath(posixpath.join(prefix, path))
    _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], f"{rev}: not a git revision here", 4096)
    return ConfigSource(posixpath.normpath(path), rev, _blob_reader(rev))
