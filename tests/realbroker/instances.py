"""Real Artemis broker instances for the tests: created from the distribution (``artemis create``),
run in the background (``bin/artemis run``), stopped whatever happens.

Each instance gets a small heap, listens on its own loopback address only (its acceptors, and its
web console with Jolokia, which the tests read), and logs to ``log/artemis.log`` in its folder. A
broker is started when its log says ``AMQ221007`` (active) or refused when its process ends first."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.artemis_dist import artemis_home
from tests.realbroker.brokerxml import PASSWORD, USER

#: Guard against a hung broker, not a synchronisation device: a passing test never waits for it.
HANG_GUARD_SECONDS = 120
ACTIVE = "AMQ221007"
WEB_STARTED = "AMQ241001"
NODE_ID = re.compile(r"AMQ221001: .*?nodeID=([0-9a-f-]{36})")
#: The heap of every test broker (the created profile's -Xms512M would exceed it).
HEAP = "-Xms64M -Xmx256M"


def create(folder: Path, host: str, web_port: int | None) -> Path:
    """``artemis create`` an instance in ``folder`` and fit it for the tests (heap, web binding; no web
    console when ``web_port`` is None)."""
    home = artemis_home()
    done = subprocess.run(
        [str(home / "bin" / "artemis"), "create", "--silent", "--user", USER, "--password", PASSWORD,
         "--allow-anonymous", "--host", host, "--java-memory", "256M", "--no-autotune",
         *(["--no-web"] if web_port is None else []), str(folder)],
        capture_output=True, text=True, timeout=HANG_GUARD_SECONDS, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    etc = folder / "etc"
    profile = etc / "artemis.profile"
    text = profile.read_text(encoding="utf-8")
    profile.write_text(re.sub(r"-Xms\S+ -Xmx\S+", HEAP, text), encoding="utf-8")
    if web_port is None:
        return folder
    bootstrap = etc / "bootstrap.xml"
    text = bootstrap.read_text(encoding="utf-8")
    bootstrap.write_text(re.sub(r'uri="http://[^"]*"', f'uri="http://{host}:{web_port}"', text), encoding="utf-8")
    access = etc / "jolokia-access.xml"
    text = access.read_text(encoding="utf-8")
    access.write_text(text.replace("<allow-origin>*://localhost*</allow-origin>",
                                   "<allow-origin>*://localhost*</allow-origin>"
                                   "<allow-origin>*://127.0.0.*</allow-origin>"), encoding="utf-8")
    return folder


def enable_router_debug(folder: Path) -> None:
    """The router's DEBUG lines (key, ready targets, the policy's pick) into log/artemis.log."""
    path = folder / "etc" / "log4j2.properties"
    with path.open("a", encoding="utf-8") as out:
        out.write("\nlogger.arouter_routing.name=org.apache.activemq.artemis.core.server.routing\n"
                  "logger.arouter_routing.level=DEBUG\n")


@dataclass
class Running:
    """A broker process of an instance, started by :func:`start`."""

    folder: Path
    proc: subprocess.Popen[bytes]
    console: Path
    node_id: str = ""
    lines: list[str] = field(default_factory=list)

    def log_text(self) -> str:
        return self.console.read_text(encoding="utf-8", errors="replace")

    def log_size(self) -> int:
        """Where ``log/artemis.log`` ends now: :meth:`log_since` reads what the broker writes after."""
        return (self.folder / "log" / "artemis.log").stat().st_size

    def log_since(self, mark: int) -> list[str]:
        with (self.folder / "log" / "artemis.log").open("rb") as log:
            log.seek(mark)
            return log.read().decode("utf-8", errors="replace").splitlines()

    def stop(self) -> None:
        if self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(HANG_GUARD_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def launch(folder: Path, *args: str, java_args: str = "") -> Running:
    """``bin/artemis run ARGS`` in the background, its output in ``console.log``."""
    console = folder / "console.log"
    env = dict(os.environ, JAVA_ARGS_APPEND=java_args)
    with console.open("wb") as out:
        proc = subprocess.Popen([str(folder / "bin" / "artemis"), "run", *args], stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    return Running(folder, proc, console)


def wait_logged(broker: Running, *marks: str) -> bool:
    """True once the broker's output holds every one of ``marks`` (AMQ221007: active; AMQ241001: the web
    console listens), False when its process ends before that."""
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while time.monotonic() < deadline:
        text = broker.log_text()
        if all(mark in text for mark in marks):
            found = NODE_ID.search(text)
            broker.node_id = found.group(1) if found else ""
            return True
        try:
            broker.proc.wait(0.2)  # paced by the JVM: did it end instead of starting?
            return False
        except subprocess.TimeoutExpired:
            continue
    broker.stop()
    raise RuntimeError(f"the broker in {broker.folder} neither started nor ended:\n{broker.log_text()[-3000:]}")


def port_block(hosts: list[str], size: int = 10) -> int:
    """A block of ``size`` ports free on every host of ``hosts`` (loopback addresses) right now."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + size > 65535:
            continue
        if all(_free(host, base + n) for host in hosts for n in range(size)):
            return base
    raise RuntimeError("no free port block on the loopback addresses")


def _free(host: str, port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True
