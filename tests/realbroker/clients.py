"""Real clients of every protocol against a real broker's redirecting acceptor, each answer reduced to
where the client was sent: ``host:port`` (or what it was told instead)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from tests.artemis_dist import artemis_home
from tests.javacache import compiled
from tests.real_clients import HANG_GUARD_SECONDS, JAVA, need, node_script, openwire_client, run_json_lines

JAVA_DIR = Path(__file__).resolve().parents[1] / "java"
#: The CORE client follows a redirect only when it may reconnect (it reconnects to the target).
CORE_URL_OPTIONS = "reconnectAttempts=3&retryInterval=100"
#: The broker's DEBUG line with the key it resolved for a connection.
KEY_LINE = re.compile(r"KeyResolver\] keyValue for (\w+): (.*)$")


def core_client() -> list[str]:
    """``java CoreRedirects`` compiled (once, tests/javacache.py) against the distribution's lib/."""
    need(shutil.which("javac") is not None and JAVA is not None, "a JDK (javac)")
    assert JAVA is not None
    classpath = str(artemis_home() / "lib" / "*")
    classes = compiled(JAVA_DIR / "CoreRedirects.java", options=("-cp", classpath), timeout=HANG_GUARD_SECONDS)
    return [JAVA, "-Xmx128m", "-cp", f"{classes}:{classpath}", "CoreRedirects"]


def core_redirects(host: str, port: int, prefix: str, count: int, send: bool = False) -> list[dict]:
    """The Artemis CORE/JMS client, ``count`` connections with client ids PREFIX0..: where each ended up."""
    url = f"tcp://{host}:{port}?{CORE_URL_OPTIONS}"
    done = subprocess.run([*core_client(), url, str(count), prefix, *(["SEND"] if send else [])],
                          capture_output=True, text=True, timeout=HANG_GUARD_SECONDS, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def landed(remote: str) -> str:
    """``host:port`` of the CORE client's ``getRemoteAddress()`` (``name/1.2.3.4:5``)."""
    return remote.rsplit("/", 1)[-1]


def openwire_redirects(host: str, port: int, prefix: str, count: int) -> list[str]:
    """The ActiveMQ Classic failover client: ``host:port`` each connection ended up on."""
    outcomes = run_json_lines([*openwire_client(), host, str(port), str(count), prefix])
    return [o["connected"].removeprefix("tcp://").split("?")[0] for o in outcomes]


def rhea_redirects(host: str, port: int, count: int) -> list[dict]:
    """rhea (container ids rhea-0..): the redirect each connection was closed with."""
    return run_json_lines(node_script("rhea_redirects.js", "rhea") + [host, str(port), str(count)])


def broker_keys(lines: list[str]) -> list[str]:
    """The keys the broker resolved, in order, from its router DEBUG lines (``null`` is the key NULL)."""
    keys = []
    for line in lines:
        found = KEY_LINE.search(line)
        if found:
            keys.append("NULL" if found.group(2) == "null" else found.group(2))
    return keys


def paho_mqtt5(host: str, port: int, client_id: str) -> tuple[int, str | None]:
    """paho-mqtt, MQTT 5, once: (CONNACK reason code, Server Reference)."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    got: dict = {}
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)

    def on_connect(c, userdata, flags, reason_code, properties) -> None:  # noqa: ANN001 - paho's callback
        got["answer"] = (reason_code.value, getattr(properties, "ServerReference", None))
        c.disconnect()

    client.on_connect = on_connect
    client.connect(host, port, keepalive=10)
    client.loop_forever(timeout=1.0, retry_first_connection=False)
    assert "answer" in got
    return got["answer"]
