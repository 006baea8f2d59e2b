"""A small fleet of real Artemis brokers, each started with its STATEFUL_SET_ORDINAL, confirms the homes
``arouter fleet`` gives a sample of client ids (the real distribution: tests/artemis_dist.py).

The pods run one after the other (a pod's answer depends on nothing but its own config and ordinal),
each with the shard broker.xml of tests/fleet/data on an MQTT acceptor; every client id of the sample
is sent as an MQTT 3.1.1 CONNECT, and the pod's CONNACK says whether it took it (return code 0) or
refused it (0x9C, use another server)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from artemis_routing_cli.cli.fleet_keys import key_homes
from artemis_routing_cli.cli.fleet_options import FleetOptions
from artemis_routing_cli.cli.fleet_pods import replica_specs
from artemis_routing_cli.cli.keys_file import load_keys
from artemis_routing_cli.fleet.count import pods_of
from artemis_routing_cli.fleet.pods import load_pods
from tests.artemis_dist import DEFAULT_VERSION, artemis_home
from tests.peers import free_port
from tests.real_clients import HANG_GUARD_SECONDS

DATA = Path(__file__).parent / "data"
PODS = 3
# client ids of every residue, both hash signs ("a" and "test" hash negative), and the NULL literal
SAMPLE = [f"client-{i}" for i in range(12)] + ["a", "test", "NULL", "héllo"]


def _connect(port: int, client_id: str) -> int:
    """The return code of the broker's CONNACK to an MQTT 3.1.1 CONNECT with this client id."""
    cid = client_id.encode("utf-8")
    body = b"\x00\x04MQTT\x04\x02\x00\x3c" + len(cid).to_bytes(2, "big") + cid
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD_SECONDS) as s:
        s.sendall(b"\x10" + bytes([len(body)]) + body)
        data = b""
        while len(data) < 4:
            part = s.recv(4 - len(data))
            assert part, f"the broker closed the connection without a CONNACK for {client_id!r}"
            data += part
    assert data[:2] == b"\x20\x02", data
    return data[3]


def _wait_listening(port: int, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + HANG_GUARD_SECONDS  # a hang guard, not a speed limit
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text(errors="replace")[-3000:]
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)  # polling a port the broker has not opened yet
    pytest.fail(f"the broker did not listen on {port}: {log.read_text(errors='replace')[-3000:]}")


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = artemis_home(DEFAULT_VERSION)
    where = tmp_path_factory.mktemp("fleet-broker") / "instance"
    subprocess.run([str(home / "bin" / "artemis"), "create", str(where), "--user", "u", "--password", "p",
                    "--allow-anonymous", "--silent", "--no-web", "--no-autotune", "--no-amqp-acceptor",
                    "--no-hornetq-acceptor", "--no-stomp-acceptor"],
                   check=True, capture_output=True, timeout=HANG_GUARD_SECONDS * 3)
    return where


def _pod_answers(instance: Path, ordinal: int) -> dict[str, int]:
    port = free_port()
    xml = (DATA / "shard-broker.xml").read_text(encoding="utf-8").replace(
        "<core xmlns=\"urn:activemq:core\">",
        "<core xmlns=\"urn:activemq:core\">\n    <persistence-enabled>false</persistence-enabled>\n"
        "    <security-enabled>false</security-enabled>").replace(
        "tcp://0.0.0.0:61616?router=partition", f"tcp://127.0.0.1:{port}?protocols=MQTT;router=partition")
    (instance / "etc" / "broker.xml").write_text(xml, encoding="utf-8")
    log = instance / f"pod-{ordinal}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([str(instance / "bin" / "artemis"), "run"], stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "STATEFUL_SET_ORDINAL": str(ordinal)})
        try:
            _wait_listening(port, proc, log)
            return {k: _connect(port, k) for k in SAMPLE}
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=HANG_GUARD_SECONDS)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_real_brokers_take_the_keys_fleet_says(instance: Path, tmp_path: Path) -> None:
    keys = tmp_path / "keys.txt"
    keys.write_text("\n".join(SAMPLE) + "\n", encoding="utf-8")
    opts = FleetOptions(config=str(DATA / "shard-broker.xml"), replicas=str(PODS), keys=str(keys))
    pods = load_pods(replica_specs(opts, PODS), (2, 40))
    names = [p.name for p in pods]
    homes = [pods_of(int(m), names) for _, chunk, _, _ in key_homes("partition", pods, load_keys(str(keys)), opts,
                                                                     {}, []) for m in chunk]
    for ordinal in range(PODS):
        answers = _pod_answers(instance, ordinal)
        assert set(answers.values()) <= {0x00, 0x9C}, answers
        took = {k for k, code in answers.items() if code == 0}
        assert took == {k for k, h in zip(SAMPLE, homes, strict=True) if f"pod-{ordinal}" in h}, ordinal
