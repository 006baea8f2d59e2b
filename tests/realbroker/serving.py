"""``arouter serve`` run as users run it (a subprocess), on the cluster's broker.xml and the targets file
``arouter probe --save`` read, listening on a free loopback port; stopped whatever happens."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.peers import free_port, stop_process

ROOT = Path(__file__).resolve().parents[2]
HANG_GUARD_SECONDS = 60


@dataclass
class Serve:
    port: int
    proc: subprocess.Popen[bytes]
    log: Path

    def stop(self) -> None:
        stop_process(self.proc, HANG_GUARD_SECONDS)

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def start_serve(config: Path, router: str, work: Path, *extra: str) -> Serve:
    """Serve ``router`` of ``config`` on 127.0.0.1; ready when its log says it listens."""
    port = free_port()
    log = work / f"serve-{router}-{port}.log"
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    env.pop("ARTEMIS_INSTANCE", None)
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "artemis_routing_cli", "serve", "-c", str(config),
                                 "--listen", f"127.0.0.1:{port}", "-r", router, *extra],
                                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=ROOT)
    running = Serve(port, proc, log)
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while time.monotonic() < deadline:
        if f"listening on 127.0.0.1:{port}" in running.text():
            return running
        try:
            proc.wait(0.1)  # paced by serve's start-up: did it end instead?
        except subprocess.TimeoutExpired:
            continue
        raise RuntimeError(f"arouter serve ended: {running.text()[-3000:]}")
    running.stop()
    raise RuntimeError(f"arouter serve did not listen: {running.text()[-3000:]}")
