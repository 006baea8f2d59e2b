"""A run killed outright leaves its temporary file; the next run writing beside the same output removes it."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from artemis_routing_cli import outfile
from artemis_routing_cli.outfile import write_text

from .helpers import SAMPLE


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_leftover_of_a_finished_process_is_removed_and_a_live_ones_kept(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    dead = tmp_path / f".out.jsonl.arouter-{_dead_pid()}-abc.tmp"
    live = tmp_path / f".out.jsonl.arouter-{os.getppid()}-def.tmp"
    other = tmp_path / ".other.arouter-1-x.tmp"
    for p in (dead, live, other):
        p.write_text("half")
    write_text(str(out), "whole\n")
    assert out.read_text() == "whole\n"
    assert not dead.exists() and live.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out.name, live.name, other.name])


def _writing(pid: int, directory: Path) -> bool:
    """Whether process ``pid`` has a file open in ``directory`` that is unnamed (O_TMPFILE) or named
    like an arouter temporary file: the batch is writing its output."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith(f"{directory}/#") or target.startswith(f"{directory}/.out.jsonl.arouter-"):
            return True
    return False


def _batch(tmp_path: Path) -> list[str]:
    (tmp_path / "broker.xml").write_text(SAMPLE)
    keys = tmp_path / "keys.txt"
    keys.write_text("".join(f"K{i}\n" for i in range(400_000)))
    return [sys.executable, "-m", "artemis_routing_cli", "simulate", "-c", str(tmp_path / "broker.xml"),
            "-r", "local-partition", "--keys-file", str(keys), "-f", "jsonl", "-o", str(tmp_path / "out.jsonl")]


def test_kill_9_during_a_batch_leaves_nothing_where_the_file_system_has_unnamed_files(tmp_path: Path) -> None:
    fd = outfile._unnamed(str(tmp_path))
    if fd is None:
        pytest.skip("no O_TMPFILE here: the named temporary file and the sweep (test below) apply")
    os.close(fd)
    args = _batch(tmp_path)
    proc = subprocess.Popen(args, cwd=tmp_path, stderr=subprocess.PIPE)
    while not _writing(proc.pid, tmp_path):  # (its output file is open: the batch is writing)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broker.xml", "keys.txt"]


def test_kill_9_during_a_batch_then_a_second_run_leaves_nothing_behind(tmp_path: Path) -> None:
    """Without O_TMPFILE the temporary file is named; the next run writing beside it sweeps it."""
    args = _batch(tmp_path)
    # the child cannot be monkeypatched: it is told through the environment to name its file at once
    env = {**os.environ, "AROUTER_NO_TMPFILE": "1"}
    proc = subprocess.Popen(args, cwd=tmp_path, stderr=subprocess.PIPE, env=env)
    while not any(p.name.startswith(".out.jsonl.arouter-") for p in tmp_path.iterdir()):
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert any(p.name.startswith(".out.jsonl.arouter-") for p in tmp_path.iterdir())
    (tmp_path / "keys.txt").write_text("K1\n")
    assert subprocess.run(args, cwd=tmp_path, capture_output=True, timeout=120, env=env).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broker.xml", "keys.txt", "out.jsonl"]


@pytest.mark.parametrize("way", ["linked", "copied", "named"])
def test_every_way_of_writing_gives_the_whole_file_and_nothing_else(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    way: str) -> None:
    if way == "copied":
        monkeypatch.setattr(outfile, "_link_in", lambda fd, name: False)
    if way == "named":
        monkeypatch.setattr(outfile, "_unnamed", lambda directory: None)
    out = tmp_path / "out.txt"
    out.write_text("old\n")
    out.chmod(0o640)
    write_text(str(out), "new\n" * 100_000)
    assert out.read_text() == "new\n" * 100_000 and (out.stat().st_mode & 0o777) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_a_destination_that_is_no_regular_file_is_written_through_not_replaced(tmp_path: Path) -> None:
    """-o /dev/null, -o /dev/stdout or a named pipe: the output goes into it and it stays what it was (a
    rename over /dev/null, as root, once left a regular file there). A FIFO stands for them all here."""
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    write_text(str(fifo), "line 1\nline 2\n")
    reader.join(60)  # a hang guard: the reader ends as soon as the writer closes
    assert got == [b"line 1\nline 2\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.fifo"]  # no temporary file beside it
