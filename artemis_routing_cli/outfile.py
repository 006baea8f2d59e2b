"""Output files written whole or not at all.

Reports, batch records and targets files are written to a temporary file of a unique name beside
the destination, then renamed over it: a reader (or a CI step) never sees half a file, an earlier
file survives a failed run, and two runs writing the same path do not mix their lines. A path that
cannot be written is a one-line usage error (exit 2) naming it, not a traceback.

Where the file system allows it (Linux, ``O_TMPFILE``), the temporary file has no name until the
end: it is linked in under a temporary name and renamed over the destination once written, so a run
killed outright (``kill -9``) leaves nothing behind. Elsewhere the temporary file is named from the
start; a killed run cannot remove it, but the name says whose it was (``.OUT.arouter-PID-RANDOM.tmp``),
and the next run writing beside ``OUT`` removes those whose process is gone.

A command that must keep values out of its output (see ``redact_output``) sets a text filter with
:func:`set_text_filter`: every file written here then goes through it, a line at a time.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TextIO

from .errors import UsageError

_TEXT_FILTER: Callable[[str], str] | None = None
_BYTES_FILTER: Callable[[bytes], bytes] | None = None
_CHUNK = 65536


def set_text_filter(text_filter: Callable[[str], str] | None,
                    bytes_filter: Callable[[bytes], bytes] | None = None) -> None:
    """Every text file written from now on goes through ``text_filter`` (None: as written); its UTF-8
    bytes, written straight to its ``buffer``, through ``bytes_filter`` (the same filter on the
    encoded text; without one, such a file has no ``buffer``)."""
    global _TEXT_FILTER, _BYTES_FILTER
    _TEXT_FILTER = text_filter
    _BYTES_FILTER = bytes_filter if text_filter is not None else None


class FilteredBytes:
    """The byte stream under a filtered text stream: what is written here goes through ``bytes_filter``
    a run of whole lines at a time (a value is never split in two), after the text written before it
    (``before`` writes that out)."""

    def __init__(self, raw: Callable[[], BinaryIO], before: Callable[[], None],
                 bytes_filter: Callable[[bytes], bytes]) -> None:
        self._raw = raw
        self._before = before
        self._filter = bytes_filter
        self._pending = b""

    def write(self, data: bytes) -> int:
        self._before()
        pending = self._pending + data
        cut = pending.rfind(b"\n") + 1
        if cut == 0 and len(pending) < _CHUNK:
            self._pending = pending
            return len(data)
        end = cut or len(pending)
        self._pending = pending[end:]
        self._raw().write(self._filter(pending[:end]))
        return len(data)

    def write_pending(self) -> None:
        """Write out what is held of a line begun here (before text is written to the text stream)."""
        if self._pending:
            pending, self._pending = self._pending, b""
            self._raw().write(self._filter(pending))

    def flush(self) -> None:
        self.write_pending()
        self._raw().flush()


class _Filtered:
    """``fh`` with its text passed through ``text_filter`` in chunks of whole lines (a value is never
    split in two)."""

    def __init__(self, fh: TextIO, text_filter: Callable[[str], str],
                 bytes_filter: Callable[[bytes], bytes] | None = None) -> None:
        self._fh = fh
        self._filter = text_filter
        self._parts: list[str] = []
        self._size = 0
        self._bytes = None if bytes_filter is None else FilteredBytes(lambda: fh.buffer, self._text_out, bytes_filter)

    @property
    def buffer(self) -> FilteredBytes:
        """The file's bytes, filtered too (none without a bytes filter: bytes there would go around it)."""
        if self._bytes is None:
            raise AttributeError("buffer")
        return self._bytes

    def _text_out(self) -> None:
        pending = "".join(self._parts)
        if pending:
            self._fh.write(self._filter(pending))
            self._parts, self._size = [], 0
        self._fh.flush()

    def write(self, text: str) -> int:
        if self._bytes is not None:
            self._bytes.write_pending()
        self._parts.append(text)
        self._size += len(text)
        if self._size >= _CHUNK:  # filtered 64 KiB at a time, cut after a line
            pending = "".join(self._parts)
            cut = pending.rfind("\n")
            end = cut + 1 if cut >= 0 else len(pending)
            self._fh.write(self._filter(pending[:end]))
            self._parts = [pending[end:]]
            self._size = len(self._parts[0])
        return len(text)

    def writelines(self, lines: Iterator[str]) -> None:
        for line in lines:
            self.write(line)

    def close_pending(self) -> None:
        if self._bytes is not None:
            self._bytes.write_pending()
        pending = "".join(self._parts)
        if pending:
            self._fh.write(self._filter(pending))
        self._parts, self._size = [], 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._fh, name)


def _mode_for(dest: Path) -> int:
    """The permissions the file gets: an existing file's, else what ``open()`` would give (umask)."""
    try:
        return dest.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: someone else's process
        return True
    return True


def _clean_leftovers(dest: Path) -> None:
    """Remove temporary files of earlier runs writing ``dest`` whose process no longer exists."""
    prefix = f".{dest.name}.arouter-"
    try:
        names = [n for n in os.listdir(dest.parent if str(dest.parent) else ".") if n.startswith(prefix)]
    except OSError:
        return
    for name in names:
        pid_text = name[len(prefix):].split("-", 1)[0]
        if not name.endswith(".tmp") or not pid_text.isdigit() or len(pid_text) > 10:
            continue
        pid = int(pid_text)
        if pid == os.getpid() or _alive(pid):
            continue
        try:
            os.unlink(dest.parent / name)
        except OSError:
            pass


NO_TMPFILE = "AROUTER_NO_TMPFILE"  # set (tests): every temporary file is named from the start
_PROC_FD = "/proc/self/fd"  # an unnamed file is linked in through its descriptor's entry here


def _unnamed(directory: str) -> int | None:
    """A file with no name in ``directory`` (``O_TMPFILE``), or None where the system cannot make one
    (not Linux, an old kernel, a file system without it, no /proc to link it in through)."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir(_PROC_FD) or os.environ.get(NO_TMPFILE):
        return None
    try:
        return os.open(directory, flag | os.O_RDWR | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError:  # EOPNOTSUPP, EISDIR (kernels before 3.11), EINVAL: named instead
        return None


def _link_in(fd: int, name: str) -> bool:
    """Give the unnamed file ``fd`` the name ``name``: through /proc (any user), else ``linkat`` with
    ``AT_EMPTY_PATH`` (which some kernels and sandboxes allow where the /proc way is refused)."""
    try:
        os.link(f"{_PROC_FD}/{fd}", name, follow_symlinks=True)
        return True
    except OSError:
        pass
    import ctypes  # only where the /proc way failed

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.linkat(fd, b"", _AT_FDCWD, os.fsencode(name), _AT_EMPTY_PATH) == 0
    except (OSError, AttributeError):
        return False


_AT_FDCWD, _AT_EMPTY_PATH = -100, 0x1000  # <fcntl.h>


def _copy_out(fd: int, dest: Path) -> str:
    """The content of the unnamed file ``fd`` copied to a named temporary file beside ``dest`` (where
    it could not be linked in): that file's name."""
    out, name = tempfile.mkstemp(prefix=f".{dest.name}.arouter-{os.getpid()}-", suffix=".tmp", dir=str(dest.parent))
    try:
        offset = 0
        while True:
            chunk = os.pread(fd, 1 << 20, offset)
            if not chunk:
                break
            os.write(out, chunk)
            offset += len(chunk)
        os.fchmod(out, os.fstat(fd).st_mode & 0o7777)
    except OSError:
        os.close(out)
        os.unlink(name)
        raise
    os.close(out)
    return name


def _temp_name(dest: Path) -> str:
    return str(dest.parent / f".{dest.name}.arouter-{os.getpid()}-{os.urandom(6).hex()}.tmp")


@contextmanager
def atomic_text(path: str, *, what: str = "output", newline: str | None = None) -> Iterator[TextIO]:
    """A text file (UTF-8) that replaces ``path`` when the ``with`` block ends without an error."""
    dest = Path(path)
    if dest.is_dir():
        raise UsageError(f"cannot write the {what}: it is a directory", file=path)
    if dest.exists() and not dest.is_file():
        # a device or a FIFO (-o /dev/null, -o /dev/stdout, a named pipe): written through, never replaced
        # (a rename over /dev/null, as root, would leave a regular file in its place)
        with _written_through(path, what, newline) as fh:
            yield fh
        return
    tmp: str | None = None
    try:
        _clean_leftovers(dest)
        fd = _unnamed(str(dest.parent) if str(dest.parent) else ".")
        if fd is None:
            fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.arouter-{os.getpid()}-", suffix=".tmp",
                                       dir=str(dest.parent))
    except OSError as exc:
        raise UsageError(f"cannot write the {what}: {exc.strerror or exc}", file=path) from None
    done = False
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline, closefd=False) as fh:
            if _TEXT_FILTER is None:
                yield fh
            else:
                filtered = _Filtered(fh, _TEXT_FILTER, _BYTES_FILTER)
                yield filtered  # type: ignore[misc]
                filtered.close_pending()
        try:
            os.fchmod(fd, _mode_for(dest))
            if tmp is None:  # named only now, for the instant before the rename
                name = _temp_name(dest)
                tmp = name if _link_in(fd, name) else _copy_out(fd, dest)
            os.replace(tmp, dest)
        except OSError as exc:
            raise UsageError(f"cannot write the {what}: {exc.strerror or exc}", file=path) from None
        done = True
    finally:
        os.close(fd)
        if not done and tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


@contextmanager
def _written_through(path: str, what: str, newline: str | None) -> Iterator[TextIO]:
    """``path`` opened as it is, for a destination that is no regular file: nothing to rename."""
    try:
        fh = open(path, "w", encoding="utf-8", newline=newline)  # noqa: SIM115 - closed below
    except OSError as exc:
        raise UsageError(f"cannot write the {what}: {exc.strerror or exc}", file=path) from None
    with fh:
        if _TEXT_FILTER is None:
            yield fh
        else:
            filtered = _Filtered(fh, _TEXT_FILTER, _BYTES_FILTER)
            yield filtered  # type: ignore[misc]
            filtered.close_pending()


def write_out(path: str | None, text: str, *, what: str = "output") -> None:
    """``text`` as the whole of ``path`` (:func:`write_text`), or on standard output when there is none."""
    if path is not None:
        write_text(path, text, what=what)
        return
    import sys

    sys.stdout.write(text)
    sys.stdout.flush()


def write_text(path: str, text: str, *, what: str = "output") -> None:
    """``text`` as the whole content of ``path`` (see :func:`atomic_text`)."""
    with atomic_text(path, what=what) as fh:
        fh.write(text)
