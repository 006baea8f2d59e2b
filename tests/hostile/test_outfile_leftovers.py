"""A run killed outright leaves its temporary file; the next run writing beside the same output removes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

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


def test_kill_9_during_a_batch_then_a_second_run_leaves_nothing_behind(tmp_path: Path) -> None:
    (tmp_path / "broker.xml").write_text(SAMPLE)
    keys = tmp_path / "keys.txt"
    keys.write_text("".join(f"K{i}\n" for i in range(400_000)))
    out = tmp_path / "out.jsonl"
    args = [sys.executable, "-m", "artemis_routing_cli", "simulate", "-c", str(tmp_path / "broker.xml"),
            "-r", "local-partition", "--keys-file", str(keys), "-f", "jsonl", "-o", str(out)]
    proc = subprocess.Popen(args, cwd=tmp_path, stderr=subprocess.PIPE)
    # wait until its temporary file exists (the batch is writing), then kill it outright
    while not any(p.name.startswith(".out.jsonl.arouter-") for p in tmp_path.iterdir()):
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert any(p.name.startswith(".out.jsonl.arouter-") for p in tmp_path.iterdir())
    keys.write_text("K1\n")
    assert subprocess.run(args, cwd=tmp_path, capture_output=True, timeout=120).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broker.xml", "keys.txt", "out.jsonl"]
