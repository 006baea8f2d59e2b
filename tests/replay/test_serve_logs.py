"""``arouter replay`` on the route lines ``arouter serve`` wrote (text and JSON) for real paho-mqtt clients."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tests.cli.helpers import REPO
from tests.peers import free_port
from tests.real_clients import HANG_GUARD_SECONDS
from tests.serve.test_cli import wait_until_listening

from .helpers import CONFIG, reasons, replay_json

pytestmark = pytest.mark.network
NODES = ("--node-id", "self=3f98e277-4cbd-47ad-9c90-a9587403e430",
         "--node-id", "dead=c7a2ea20-b2f1-4c94-ae05-319acb5c7427")
CLIENTS = [f"client-{i}" for i in range(12)]


def mqtt5(port: int, client_id: str) -> int:
    """One real MQTT 5 CONNECT; the CONNACK's reason code."""
    import paho.mqtt.client as paho

    client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=paho.MQTTv5)
    codes: list[int] = []
    client.on_connect = lambda c, u, f, rc, p: codes.append(rc.value)
    client.connect("127.0.0.1", port, keepalive=10)
    while not codes:  # the hang guard is serve's handshake timeout and the test's own
        client.loop(timeout=0.5)
    client.disconnect()
    return codes[0]


def serve_log(fmt: str, tmp_path) -> str:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "artemis_routing_cli", "serve", "-c", str(CONFIG), "--listen",
                             f"127.0.0.1:{port}", "--router", "by-cid", "--no-monitor", *NODES, "--log-format", fmt],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "NO_COLOR": "1"})
    try:
        wait_until_listening(proc, port)
        assert {mqtt5(port, c) for c in CLIENTS} == {0x9C}  # every client redirected
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=HANG_GUARD_SECONDS)
    path = tmp_path / f"serve.{fmt}.log"
    path.write_text(err)
    return str(path)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_serve_route_lines_agree_and_drift_when_the_config_says_otherwise(fmt, tmp_path):
    log = serve_log(fmt, tmp_path)
    doc = replay_json(log, *NODES, code=0)
    assert doc["decisions"] == len(CLIENTS) and reasons(doc, "by-cid") == {("agrees", "serve"): len(CLIENTS)}
    sent = {t["actual"]: t["count"] for t in doc["routers"]["by-cid"]["targets"]}
    assert set(sent) == {"self", "dead"} and sum(sent.values()) == len(CLIENTS)  # CONSISTENT_HASH splits them
    # replayed as if self had been down: every connection serve sent to self drifts, the others agree
    doc = replay_json(log, *NODES, "--down", "self", code=1)
    assert doc["counts"]["drift"] == sent["self"] and doc["counts"]["agrees"] == sent["dead"]
    assert {s["key"] for s in doc["samples"].get("drift:", [])} <= set(CLIENTS)
