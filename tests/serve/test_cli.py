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
from artemis_routing_cli.serve.loops import uvloop_version
from tests.cli.helpers import REPO, arouter
from tests.conftest import broker_xml
from tests.peers import free_port

from .conftest import EVENT_LOOPS, HANG_GUARD, NODE_IDS, ROUTER_CORE, recv_until_closed

pytestmark = pytest.mark.network


def wait_until_listening(proc: subprocess.Popen, port: int) -> None:
    while True:  # poll connect until the listener is up
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        try:
            socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD).close()
            return
        except ConnectionRefusedError:
            continue


#: ``python -c`` this, then arouter's arguments: arouter on a Python where ``import uvloop`` fails.
WITHOUT_UVLOOP = ("import runpy, sys; sys.modules['uvloop'] = None; "
                  "runpy.run_module('artemis_routing_cli', run_name='__main__', alter_sys=True)")


def serve_once(config, *extra: str, python: tuple[str, ...] = ("-m", "artemis_routing_cli")) -> list[dict]:
    """Run ``arouter serve`` in a subprocess, redirect one MQTT client, stop it with SIGTERM; its
    JSON log records."""
    port = free_port()
    args = [sys.executable, *python, "serve", "-c", str(config), "--listen", f"127.0.0.1:{port}",
            "--router", "by-client", "--no-monitor", "--log-format", "json",
            *[a for n in NODE_IDS for a in ("--node-id", n)], *extra]
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
    return [json.loads(line) for line in err.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("loop", EVENT_LOOPS)
def test_serve_redirects_logs_json_and_stops_on_sigterm(tmp_path, loop):
    config = tmp_path / "broker.xml"
    config.write_text(broker_xml(ROUTER_CORE), encoding="utf-8")
    records = serve_once(config, "--loop", loop)
    events = [r["event"] for r in records]
    assert "listening" in events and "route" in events and events[-1] == "stopping"
    [route] = [r for r in records if r["event"] == "route"]
    assert route["message"].startswith("AMQ221085: Route 127.0.0.1:") and route["target"] == "target2"
    [running] = [r for r in records if "loop" in r]
    assert running["loop"].split()[0] == loop and running["message"].endswith(f"(--loop {loop})")


@pytest.mark.skipif(uvloop_version() is None, reason="uvloop is not installed")
def test_the_default_loop_is_uvloop_when_it_is_installed(tmp_path):
    config = tmp_path / "broker.xml"
    config.write_text(broker_xml(ROUTER_CORE), encoding="utf-8")
    [running] = [r for r in serve_once(config) if "loop" in r]
    assert running["message"] == f"event loop: uvloop {uvloop_version()} (--loop auto)"


def test_uvloop_is_a_default_dependency_where_it_installs():
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    from packaging.requirements import Requirement

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    [uvloop] = [r for r in map(Requirement, project["dependencies"]) if r.name == "uvloop"]
    assert uvloop.marker is not None

    def installs(platform: str, implementation: str) -> bool:
        return uvloop.marker.evaluate({"sys_platform": platform, "platform_python_implementation": implementation})

    assert installs("linux", "CPython") and installs("darwin", "CPython")
    assert not installs("win32", "CPython") and not installs("linux", "PyPy")


def test_without_uvloop_the_default_loop_is_asyncio_and_says_how_to_get_uvloop(tmp_path):
    config = tmp_path / "broker.xml"
    config.write_text(broker_xml(ROUTER_CORE), encoding="utf-8")
    [running] = [r for r in serve_once(config, python=("-c", WITHOUT_UVLOOP)) if "loop" in r]
    assert running["loop"].startswith("asyncio ")
    assert running["message"].endswith("(--loop auto: uvloop is not installed (a dependency of arouter on "
                                       "CPython: pip install uvloop) for a faster loop)")


def test_loop_uvloop_without_uvloop_is_a_usage_error(tmp_path):
    config = tmp_path / "broker.xml"
    config.write_text(broker_xml(ROUTER_CORE), encoding="utf-8")
    run = subprocess.run([sys.executable, "-c", WITHOUT_UVLOOP, "serve", "-c", str(config), "--listen",
                          "127.0.0.1:0", "--router", "by-client", "--loop", "uvloop"],
                         cwd=REPO, capture_output=True, text=True, timeout=HANG_GUARD)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        "arouter: --loop uvloop: uvloop is not installed (pip install uvloop; not available on Windows or PyPy)"]


@pytest.mark.parametrize(("args", "message"), [
    (["--log-format", "xml"], "--log-format 'xml': choose text or json"),
    (["--listen", "nowhere", "--router", "by-client"], "--listen 'nowhere': expected HOST:PORT"),
    (["--listen", "127.0.0.1:0", "--router", "nope"], "no connection router named 'nope'"),
    (["--management-user", "admin", "--management", "127.0.0.1:0"], "AROUTER_MANAGEMENT_PASSWORD"),
    ([], "no acceptor carries router=NAME"),
    (["--jolokia", "ftp://{host}/jolokia"], "--jolokia 'ftp://{host}/jolokia': must start with http://"),
    (["--jolokia", "http://{host}:8161/{nope}"], "unknown placeholder {nope}"),
    (["--jolokia", "http://{host}:8161/console/jolokia", "--no-monitor"], "drop --no-monitor"),
    (["--loop", "tokio"], "--loop 'tokio': choose auto, asyncio or uvloop"),
    # roles come with the Subject a validated login sets: no user check, no roles (ROLE_NAME is NULL)
    (["--roles-file", "roles.properties", "--listen", "127.0.0.1:0", "--router", "by-role"],
     "--roles-file needs --users-file"),
])
def test_usage_errors_are_one_line_and_exit_2(tmp_path, args, message):
    config = tmp_path / "broker.xml"
    config.write_text(broker_xml(ROUTER_CORE), encoding="utf-8")
    run = arouter("serve", "-c", str(config), *args, env={"AROUTER_MANAGEMENT_PASSWORD": ""})
    assert run.code == 2
    lines = run.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], run.err
