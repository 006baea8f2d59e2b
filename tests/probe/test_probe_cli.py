"""``arouter probe`` end to end in a subprocess: pools, quorum, exit codes, JSON, --save, secrets."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from artemis_routing_cli.probe.broadcast import Broadcast
from artemis_routing_cli.protocols.core_buffer import TransportConfig
from artemis_routing_cli.routing.targets import read_targets_file
from tests.cli.helpers import REPO, arouter
from tests.conftest import broker_xml

from .peers import Broadcaster, closed_port, free_port

pytestmark = pytest.mark.network

SECRET = "Sup3r-Secret-PW"


def write_config(tmp_path: Path, connectors: dict[str, str], routers: str, extra: str = "") -> Path:
    rows = "\n".join(f'<connector name="{n}">{u}</connector>' for n, u in connectors.items())
    core = f"<connectors>{rows}</connectors>\n{extra}\n<connection-routers>{routers}</connection-routers>"
    path = tmp_path / "broker.xml"
    path.write_text(broker_xml(core), encoding="utf-8")
    return path


def static_router(name: str, refs: list[str], quorum: int = 1, *, policy: str = "FIRST_ELEMENT",
                  local: bool = False) -> str:
    members = "".join(f"<connector-ref>{r}</connector-ref>" for r in refs)
    return (f'<connection-router name="{name}"><policy name="{policy}"/><pool>'
            f"<username>router</username><password>{SECRET}</password>"
            f"<quorum-size>{quorum}</quorum-size><local-target-enabled>{str(local).lower()}</local-target-enabled>"
            f"<static-connectors>{members}</static-connectors></pool></connection-router>")


@pytest.fixture
def two_targets(tmp_path, mosquitto):
    connectors = {"up": f"tcp://127.0.0.1:{mosquitto.port}", "down": f"tcp://127.0.0.1:{closed_port()}"}
    return connectors


def test_quorum_reached_exits_0_and_json_has_the_documented_shape(tmp_path, two_targets):
    cfg = write_config(tmp_path, two_targets, static_router("r1", ["up", "down"], quorum=1))
    run = arouter("probe", "--config", str(cfg), "--format", "json", "--protocol", "mqtt", "--timeout", "2")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    [pool] = data["pools"]
    assert (pool["router"], pool["quorum_size"], pool["ready"], pool["active"]) == ("r1", 1, 1, True)
    up, down = pool["targets"]
    for key in ("name", "host", "port", "reachable", "handshake", "ready", "node_id", "connection_count",
                "latency_ms", "error"):
        assert key in up
    assert (up["name"], up["reachable"], up["ready"], up["handshake"]["ok"]) == ("up", True, True, True)
    assert (down["name"], down["reachable"], down["ready"]) == ("down", False, False)
    assert "refused" in down["error"]
    assert "without the management API" in up["readiness"]


def test_quorum_missed_exits_1(tmp_path, two_targets):
    cfg = write_config(tmp_path, two_targets, static_router("r1", ["up", "down"], quorum=2))
    run = arouter("probe", "--config", str(cfg), "--protocol", "mqtt", "--timeout", "2")
    assert run.code == 1, run.err
    assert "INACTIVE" in run.out and "1 ready, quorum-size 2" in run.out


def test_save_writes_the_targets_file_simulate_reads_and_no_secret_leaks(tmp_path, two_targets, jolokia):
    jolokia.password = SECRET
    cfg = write_config(tmp_path, two_targets, static_router("r1", ["up", "down"], local=True,
                                                            policy="LEAST_CONNECTIONS"))
    saved = tmp_path / "targets.json"
    run = arouter("probe", "--config", str(cfg), "--protocol", "mqtt", "--timeout", "2", "--save", str(saved),
                  "--jolokia", f"http://{{host}}:{jolokia.port}/console/jolokia")
    assert run.code == 0, run.err
    state = read_targets_file(str(saved))
    by_name = {t.name: t for t in state.known}
    assert list(by_name) == ["local", "up", "down"]
    assert by_name["local"].source == "local" and by_name["local"].local
    up = by_name["up"]
    assert (up.source, up.host, up.ready, up.connection_count) == ("static", "127.0.0.1", True, 7)
    assert (up.node_id, up.node_id_known) == ("11111111-2222-3333-4444-555555555555", True)
    assert not by_name["down"].ready
    assert not (tmp_path / "targets.json.tmp").exists()
    for text in (run.out, run.err, saved.read_text(encoding="utf-8")):
        assert SECRET not in text
    # the password went to the peer that needs it, and only there
    sent = {base64.b64decode(r["headers"]["Authorization"].split()[1]).decode() for r in jolokia.requests}
    assert sent == {f"router:{SECRET}"}

    simulated = arouter("simulate", "--config", str(cfg), "--router", "r1", "--key", "CLIENT_ID=abc",
                        "--targets", str(saved), "--format", "json")
    assert simulated.code == 0, simulated.err


def test_discovery_pool_members_come_from_broadcasts(tmp_path):
    group, port = "239.255.77.12", free_port()
    netty = "org.apache.activemq.artemis.core.remoting.impl.netty.NettyConnectorFactory"
    dead = closed_port()
    sender = Broadcaster.of(group, port, [
        Broadcast("node-a", "u1", (TransportConfig("c", netty, {"host": "127.0.0.1", "port": str(dead)}),)),
    ])
    groups = (f'<discovery-groups><discovery-group name="dg"><group-address>{group}</group-address>'
              f"<group-port>{port}</group-port><local-bind-address>127.0.0.1</local-bind-address>"
              "<refresh-timeout>1000</refresh-timeout></discovery-group></discovery-groups>")
    router = ('<connection-router name="d"><policy name="CONSISTENT_HASH"/><pool>'
              '<discovery-group-ref discovery-group-name="dg"/></pool></connection-router>')
    cfg = write_config(tmp_path, {"self": "tcp://127.0.0.1:61616"}, router, groups)
    saved = tmp_path / "t.json"
    try:
        run = arouter("probe", "--config", str(cfg), "--format", "json", "--timeout", "1",
                      "--discovery-timeout", "1.5", "--save", str(saved))
    finally:
        sender.stop()
    assert run.code == 1, run.err  # the one member announced is down
    [pool] = json.loads(run.out)["pools"]
    [member] = pool["targets"]
    assert (member["name"], member["node_id"], member["port"]) == ("node-a", "node-a", dead)
    [known] = read_targets_file(str(saved)).known
    assert (known.source, known.node_id, known.node_id_known) == ("discovery:dg", "node-a", True)


@pytest.mark.parametrize(("args", "fragment"), [
    (["--protocol", "smtp"], "--protocol"),
    (["--router", "nope"], "no connection router named 'nope'"),
    (["--jolokia", "http://{hots}/"], "--jolokia"),
    (["--timeout", "0"], "--timeout"),
    (["--format", "xml"], "--format"),
])
def test_usage_errors_exit_2_with_one_line(tmp_path, args, fragment):
    cfg = write_config(tmp_path, {"a": "tcp://127.0.0.1:1"}, static_router("r1", ["a"]))
    run = arouter("probe", "--config", str(cfg), *args)
    assert run.code == 2
    assert fragment in run.err
    assert len(run.err.strip().splitlines()) == 1


def test_local_target_is_probed_with_local_url(tmp_path, two_targets, mosquitto):
    cfg = write_config(tmp_path, two_targets, static_router("r1", ["down"], local=True))
    run = arouter("probe", "--config", str(cfg), "--format", "json", "--protocol", "mqtt", "--timeout", "2",
                  "--local", f"tcp://127.0.0.1:{mosquitto.port}")
    assert run.code == 0, run.err
    local, down = json.loads(run.out)["pools"][0]["targets"]
    assert (local["name"], local["probed"], local["reachable"], local["ready"]) == ("local", True, True, True)
    assert not down["ready"]


def test_watch_repeats_until_ctrl_c_and_exits_with_the_last_verdict(tmp_path, two_targets):
    cfg = write_config(tmp_path, two_targets, static_router("r1", ["up", "down"], quorum=2))
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "artemis_routing_cli", "probe", "--config", str(cfg), "--format", "json",
         "--protocol", "mqtt", "--timeout", "2", "--watch"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env,
    )
    try:
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())  # one compact JSON document per round
        assert first["pools"][0]["active"] is False
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
