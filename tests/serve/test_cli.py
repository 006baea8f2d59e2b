"""``arouter serve`` as users run it: a subprocess, signals, logs on stderr, one-line errors."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys

import pytest

from artemis_routing_cli.protocols.mqtt import MqttClient
from tests.cli.helpers import REPO, arouter
from tests.conftest import broker_xml
from tests.peers import free_port

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, recv_until_closed

pytestmark = pytest.mark.network


def wait_until_listening(proc: subprocess.Popen, port: int) -> None:
    while True:  # poll connect until the listener is up
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        try:
            socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD).close()
            return
        except ConnectionRefusedError:
            continue


def test_serve_redirects_logs_json_and_stops_on_sigterm(tmp_path):
    config = tmp_path / "broker.xml"
    config.write_text(broker_xml(ROUTER_CORE), encoding="utf-8")
    port = free_port()
    args = [sys.executable, "-m", "artemis_routing_cli", "serve", "-c", str(config), "--listen", f"127.0.0.1:{port}",
            "--router", "by-client", "--no-monitor", "--log-format", "json",
            *[a for n in NODE_IDS for a in ("--node-id", n)]]
    proc = subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "NO_COLOR": "1"})
    try:
        wait_until_listening(proc, port)
        client = MqttClient()
        with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
            sock.sendall(client.connect("FOO1"))
            [connack] = client.receive_data(recv_until_closed(sock))
        assert connack.server_reference == "10.0.0.2:61618"
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=HANG_GUARD)
    assert proc.returncode == 0, err
    records = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    events = [r["event"] for r in records]
    assert "listening" in events and "route" in events and events[-1] == "stopping"
    [route] = [r for r in records if r["event"] == "route"]
    assert route["message"].startswith("AMQ221085: Route /127.0.0.1:") and route["target"] == "target2"


@pytest.mark.parametrize(("args", "message"), [
    (["--log-format", "xml"], "--log-format 'xml': choose text or json"),
    (["--listen", "nowhere", "--router", "by-client"], "--listen 'nowhere': expected HOST:PORT"),
    (["--listen", "127.0.0.1:0", "--router", "nope"], "no connection router named 'nope'"),
    (["--management-user", "admin", "--management", "127.0.0.1:0"], "AROUTER_MANAGEMENT_PASSWORD"),
    ([], "no acceptor carries router=NAME"),
    (["--jolokia", "ftp://{host}/jolokia"], "--jolokia 'ftp://{host}/jolokia': must start with http://"),
    (["--jolokia", "http://{host}:8161/{nope}"], "unknown placeholder {nope}"),
    (["--jolokia", "http://{host}:8161/console/jolokia", "--no-monitor"], "drop --no-monitor"),
])
def test_usage_errors_are_one_line_and_exit_2(tmp_path, args, message):
    config = tmp_path / "broker.xml"
    config.write_text(broker_xml(ROUTER_CORE), encoding="utf-8")
    run = arouter("serve", "-c", str(config), *args, env={"AROUTER_MANAGEMENT_PASSWORD": ""})
    assert run.code == 2
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.err
