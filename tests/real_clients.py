"""Real third-party clients and brokers the tests run: where to find them, and what happens when
one is missing - a skip on a developer's machine, a failure in CI (``CI=true``), never a silent
pass."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.peers import free_port, stop_process

JS_DIR = Path(__file__).parent / "js"
NODE = shutil.which("node")

#: Guard against a hung client, not a synchronisation device: a passing test never waits for it.
HANG_GUARD_SECONDS = 120


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


# Starts the reason of every skip for a missing peer: the run's summary lists them (tests/conftest.py).
PEER_MISSING = "peer missing: "


def need(available: bool, what: str) -> None:
    """Skip (fail in CI) when a real peer is missing: ``what`` says which and how to install it."""
    if available:
        return
    if in_ci():
        pytest.fail(f"{what} is missing in CI (.ci/run installs it)")
    pytest.skip(f"{PEER_MISSING}{what} is not installed")


def node_script(name: str, package: str) -> list[str]:
    """``node tests/js/NAME`` once ``package`` is installed under tests/js/node_modules (``npm ci``)."""
    need(NODE is not None, "node (/usr/bin/node)")
    need((JS_DIR / "node_modules" / package / "package.json").is_file(),
         f"the npm package {package} (cd tests/js && npm ci)")
    assert NODE is not None
    return [NODE, str(JS_DIR / name)]


def run_json_lines(command: list[str]) -> list[dict]:
    """Run a client program that prints one JSON object a line; its outcomes, in order."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=HANG_GUARD_SECONDS, check=False)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


# -- ActiveMQ Classic (Debian package activemq): a real OpenWire and MQTT 3.1.1 broker --------------------

ACTIVEMQ_JAR = Path("/usr/share/activemq/bin/activemq.jar")
#: The MQTT transport of the Debian broker needs these from /usr/share/java (libmqtt-client-java).
ACTIVEMQ_MQTT_JARS = ("mqtt-client.jar", "hawtdispatch-transport.jar", "hawtdispatch.jar")
JAVA = shutil.which("java")


@dataclass
class ActiveMQ:
    openwire_port: int
    mqtt_port: int
    proc: subprocess.Popen[bytes]

    def stop(self) -> None:
        stop_process(self.proc, HANG_GUARD_SECONDS)


def activemq_available() -> bool:
    return (JAVA is not None and ACTIVEMQ_JAR.is_file()
            and all((Path("/usr/share/java") / jar).is_file() for jar in ACTIVEMQ_MQTT_JARS))


def start_activemq(base: Path) -> ActiveMQ:
    """A non-persistent ActiveMQ Classic broker in ``base``, OpenWire and MQTT on 127.0.0.1 only;
    ready once both ports accept connections (ActiveMQ binds them last)."""
    need(activemq_available(), "ActiveMQ Classic (apt: activemq libmqtt-client-java) and java")
    assert JAVA is not None
    for sub in ("conf", "data", "lib"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    for jar in ACTIVEMQ_MQTT_JARS:  # the broker's extension class path includes ACTIVEMQ_BASE/lib
        link = base / "lib" / jar
        if not link.exists():
            link.symlink_to(Path("/usr/share/java") / jar)
    openwire_port, mqtt_port = free_port(), free_port()
    uri = (f"broker:(tcp://127.0.0.1:{openwire_port},mqtt://127.0.0.1:{mqtt_port})"
           "?persistent=false&useJmx=false&brokerName=arouter-test")
    proc = subprocess.Popen(
        [JAVA, "-Xmx256m", "-Dactivemq.home=/usr/share/activemq", f"-Dactivemq.base={base}",
         f"-Dactivemq.conf={base / 'conf'}", f"-Dactivemq.data={base / 'data'}", "-jar", str(ACTIVEMQ_JAR),
         "start", uri],
        cwd=base, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    waiting = [openwire_port, mqtt_port]
    while waiting and time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", waiting[0]), timeout=1):
                waiting.pop(0)
        except OSError:
            try:  # paced by the JVM: did it exit instead of starting?
                code = proc.wait(0.2)
            except subprocess.TimeoutExpired:
                continue
            raise RuntimeError(f"ActiveMQ exited with {code}") from None
    if waiting:
        proc.kill()
        raise RuntimeError("ActiveMQ did not start listening")
    return ActiveMQ(openwire_port, mqtt_port, proc)


# -- the ActiveMQ Classic OpenWire client (activemq-client.jar of the Debian package) ---------------------

JAVA_DIR = Path(__file__).parent / "java"
OPENWIRE_CLIENT_JARS = ("activemq-client.jar", "geronimo-jms_1.1_spec.jar", "hawtbuf.jar", "slf4j-api.jar",
                        "slf4j-nop.jar", "geronimo-j2ee-management-1.1-spec.jar")


def openwire_client() -> list[str]:
    """``java OpenWireRedirects`` compiled (once, tests/javacache.py) against the Debian activemq-client jars."""
    javac = shutil.which("javac")
    jars = [Path("/usr/share/java") / jar for jar in OPENWIRE_CLIENT_JARS]
    need(javac is not None and JAVA is not None, "a JDK (javac)")
    need(all(jar.is_file() for jar in jars), "the ActiveMQ Classic client (apt: activemq)")
    assert javac is not None and JAVA is not None
    classpath = ":".join(str(jar) for jar in jars)
    from tests.javacache import compiled

    classes = compiled(JAVA_DIR / "OpenWireRedirects.java", options=("-cp", classpath), timeout=HANG_GUARD_SECONDS)
    return [JAVA, "-cp", f"{classes}:{classpath}", "OpenWireRedirects"]


def import_peer(module: str, what: str) -> Any:
    """``pytest.importorskip`` for a real client library, except in CI, where a missing one fails."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if in_ci():
            pytest.fail(f"{what} is missing in CI (pip install -e '.[test]')", pytrace=False)
        pytest.skip(f"{what} is not installed", allow_module_level=True)


# -- Chromium (Debian package chromium): the pages people read, rendered as a browser does ------------------

def chromium() -> str:
    """The headless browser's path (skip, or fail in CI, when it is missing)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    need(found is not None, "chromium (apt-get install chromium)")
    assert found is not None
    return found
