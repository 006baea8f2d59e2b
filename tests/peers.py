"""Real peers every test folder shares: free loopback ports, a real mosquitto broker and haproxy."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

#: Guard against a hung peer, not a synchronisation device: a passing test never waits for it.
HANG_GUARD_SECONDS = 20


def ipv6_loopback() -> bool:
    """Whether this machine can bind ::1 (tests of IPv6 peers skip without it)."""
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process(proc: subprocess.Popen[bytes], guard: float = HANG_GUARD_SECONDS) -> None:
    """SIGTERM, then SIGKILL if the peer has not ended within ``guard`` seconds."""
    proc.terminate()
    try:
        proc.wait(guard)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@dataclass
class Mosquitto:
    port: int
    proc: subprocess.Popen[bytes]

    def stop(self) -> None:
        stop_process(self.proc)


def mosquitto_binary() -> str | None:
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).exists()), None)


def start_mosquitto(tmp: Path) -> Mosquitto | None:
    """Start mosquitto on a free port; None when it is not installed. Ready = accepts a connection."""
    exe = mosquitto_binary()
    if exe is None:
        return None
    port = free_port()
    conf = tmp / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n", encoding="utf-8")
    proc = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"mosquitto exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return Mosquitto(port, proc)
        except OSError:
            continue  # not listening yet: poll again
    proc.kill()
    raise RuntimeError("mosquitto did not start listening")


HAPROXY = shutil.which("haproxy")


class Haproxy:
    """haproxy in the foreground: frontend on an inherited socket, one backend server line."""

    def __init__(self, tmp: Path, frontend: socket.socket, server_line: str) -> None:
        fd = frontend.fileno()
        config = tmp / "haproxy.cfg"
        config.write_text(
            "global\n"
            "    maxconn 16\n"
            "defaults\n"
            "    mode tcp\n"
            f"    timeout connect {HANG_GUARD_SECONDS}s\n"
            f"    timeout client {HANG_GUARD_SECONDS}s\n"
            f"    timeout server {HANG_GUARD_SECONDS}s\n"
            "frontend fe\n"
            f"    bind fd@{fd}\n"
            "    unique-id-format %ci:%cp\n"
            "    default_backend be\n"
            "backend be\n"
            f"    {server_line}\n",
            encoding="utf-8",
        )
        assert HAPROXY is not None
        check = subprocess.run([HAPROXY, "-c", "-f", str(config)], pass_fds=(fd,), capture_output=True, text=True,
                               timeout=HANG_GUARD_SECONDS, check=False)
        assert check.returncode == 0, check.stdout + check.stderr
        self.log = (tmp / "haproxy.log").open("wb")
        self.proc = subprocess.Popen([HAPROXY, "-db", "-f", str(config)], pass_fds=(fd,), stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=subprocess.STDOUT)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(HANG_GUARD_SECONDS)
        self.log.close()
