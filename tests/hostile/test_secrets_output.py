"""Values of ``${}`` whose name says secret (from the environment, ``-D``, broker properties) and included
files that are not broker XML stay out of what simulate, probe, serve and analyze print, write and answer,
unless ``--show-values``; passwords always do (redact_output). Names and routing settings (a router from an
included broker XML file, a ``${ROUTER_FILTER}``) are always shown. Each test plants distinct values and
looks for them everywhere the command writes: stdout, stderr, output files, management answers, serve's log."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from artemis_routing_cli.protocols.mqtt import MqttClient
from tests.cli.helpers import REPO, Run

from .helpers import XI, assert_clean, capped

ENV_HOST = "envhost-planted-0"
ENV_FILTER = "envfilter-planted-1"
PROP_HOST = "prophost-planted-2"
INCLUDED = "LOCALincluded-planted-3"
URL_PASSWORD = "urlpassword-planted-4"
CLUSTER_PASSWORD = "clusterpassword-planted-5"
PROPS_FILTER = "propsfilter-planted-6"
PROPS_PASSWORD = "propspassword-planted-7"
VALUES = (ENV_HOST, ENV_FILTER, PROP_HOST, INCLUDED)  # shown with --show-values
PASSWORDS = (URL_PASSWORD, CLUSTER_PASSWORD, PROPS_PASSWORD)  # never shown
ENV = {"T1HOST_SECRET": ENV_HOST, "FILTER_TOKEN": f"^{ENV_FILTER}|FOO.*", "PROPS_SECRET": f"{PROPS_FILTER}|FOO.*",
       "NO_COLOR": "1"}

BROKER = f"""<?xml version="1.0" encoding="UTF-8"?>
<configuration xmlns="urn:activemq" {XI}><core xmlns="urn:activemq:core">
  <cluster-user>cluster-admin</cluster-user>
  <cluster-password>{CLUSTER_PASSWORD}</cluster-password>
  <connectors>
    <connector name="t1">tcp://${{T1HOST_SECRET}}:61617?user=u;password={URL_PASSWORD}</connector>
    <connector name="t2">tcp://${{t2host_secret}}:61618</connector>
    <connector name="t3">tcp://literal-host.example.net:61619</connector>
  </connectors>
  <acceptors><acceptor name="a">tcp://127.0.0.1:61616?router=r1;protocols=MQTT,CORE</acceptor></acceptors>
  <connection-routers>
    <connection-router name="r1">
      <key-type>CLIENT_ID</key-type>
      <key-filter>${{FILTER_TOKEN}}</key-filter>
      <local-target-filter><xi:include href="ltf.txt" parse="text"/></local-target-filter>
      <policy name="CONSISTENT_HASH"/>
      <pool><static-connectors><connector-ref>t1</connector-ref><connector-ref>t2</connector-ref>
        <connector-ref>t3</connector-ref></static-connectors></pool>
    </connection-router>
    <connection-router name="r2">
      <key-type>CLIENT_ID</key-type>
      <policy name="FIRST_ELEMENT"/>
      <pool><static-connectors><connector-ref>t3</connector-ref></static-connectors></pool>
    </connection-router>
    <xi:include href="more-routers.xml"/>
  </connection-routers>
</core></configuration>
"""


# Broker XML in an included file, and a routing setting from a ${} whose name says nothing secret:
# configuration, always shown.
MORE_ROUTERS = """<connection-router xmlns="urn:activemq:core" name="included-router">
  <key-type>USER_NAME</key-type>
  <key-filter>${ROUTER_FILTER}</key-filter>
  <policy name="CONSISTENT_HASH"/>
  <pool><static-connectors><connector-ref>t3</connector-ref></static-connectors></pool>
</connection-router>
"""


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    (tmp_path / "ltf.txt").write_text(INCLUDED)
    (tmp_path / "more-routers.xml").write_text(MORE_ROUTERS)
    (tmp_path / "broker.xml").write_text(BROKER)
    (tmp_path / "extra.properties").write_text("connectionRouters.r2.keyFilter=${PROPS_SECRET}\n"
                                               f"clusterPassword={PROPS_PASSWORD}\n")
    return tmp_path


def _args(d: Path, *more: str) -> list[str]:
    return ["-c", str(d / "broker.xml"), "-D", f"t2host_secret={PROP_HOST}", *more]


def _nothing_planted(text: str, *, values_shown: bool = False) -> None:
    for secret in PASSWORDS + (() if values_shown else VALUES + (PROPS_FILTER,)):
        assert secret not in text, secret


@pytest.mark.parametrize("fmt", [["-e"], ["-f", "json"], ["-e", "-f", "json"]], ids=["explain", "json", "json-e"])
def test_simulate_shows_references_not_values(planted: Path, fmt: list[str]) -> None:
    run = capped("simulate", *_args(planted, "-k", "CLIENT_ID=FOO1", *fmt), cwd=planted, env=ENV)
    assert_clean(run, 0)
    _nothing_planted(run.out + run.err)
    assert "${FILTER_TOKEN}" in run.out and "<from ltf.txt>" in run.out  # the reference, where the value was
    if "json" in fmt:
        json.loads(run.out)  # still JSON
    shown = capped("simulate", *_args(planted, "-k", "CLIENT_ID=FOO1", "--show-values", *fmt), cwd=planted, env=ENV)
    assert_clean(shown, 0)
    _nothing_planted(shown.out + shown.err, values_shown=True)
    assert ENV_FILTER in shown.out and INCLUDED in shown.out


@pytest.mark.parametrize("fmt", [["-f", "text"], ["-f", "json"], ["-e", "-f", "json"]], ids=["table", "json", "json-e"])
def test_names_and_routing_settings_are_shown(planted: Path, fmt: list[str]) -> None:
    """A router split into an included broker XML file and a routing setting from a plain ${}: every
    name, key type, policy and filter is shown (not <from FILE>), as is the JSON router field; the
    secrets are still hidden."""
    env = {**ENV, "ROUTER_FILTER": "^tenant-[a-z]+"}
    run = capped("simulate", *_args(planted, "-k", "USER_NAME=tenant-abc7", "-k", "CLIENT_ID=FOO1", *fmt),
                 cwd=planted, env=env)
    assert_clean(run, 0)
    _nothing_planted(run.out + run.err)
    assert "<from more-routers.xml>" not in run.out + run.err
    for shown in ("included-router", "USER_NAME", "tenant-abc", "r2"):
        assert shown in run.out, shown
    if "-e" in fmt:
        assert "^tenant-[a-z]+" in run.out and "CONSISTENT_HASH" in run.out
    if "json" in fmt:
        assert {r["router"] for r in json.loads(run.out)["results"]} >= {"included-router", "r2"}
    checked = capped("validate", "--no-settings", "-f", "json", str(planted / "broker.xml"), cwd=planted, env=env)
    assert "<value from" not in checked.out and "<from " not in checked.out


def test_simulate_broker_properties_values_and_passwords(planted: Path) -> None:
    run = capped("simulate", *_args(planted, "--properties", str(planted / "extra.properties"), "-r", "r2",
                                    "-k", "CLIENT_ID=FOO1", "-e"), cwd=planted, env=ENV)
    assert_clean(run, 0)
    _nothing_planted(run.out + run.err)
    assert "literal-host.example.net" in run.out  # written in broker.xml: an operator needs it
    assert "${PROPS_SECRET}" in run.out


MASKED_FILTER = "3bdfd94fe8cdf710e7fefa72f809ea90"  # ENC() of "defaultmasked", default key (tests/config/properties)


def test_simulate_hides_a_value_decoded_from_enc(planted: Path) -> None:
    """A broker property written as ENC(...) was masked by its writer: what the broker decodes it to is
    hidden like a password, also with --show-values."""
    (planted / "masked.properties").write_text(f"connectionRouters.r2.keyFilter=ENC({MASKED_FILTER})\n")
    for more in ((), ("--show-values",)):
        run = capped("simulate", *_args(planted, "--properties", str(planted / "masked.properties"), "-r", "r2",
                                        "-k", "CLIENT_ID=FOO1", "-e", *more), cwd=planted, env=ENV)
        assert_clean(run, 0)
        assert "defaultmasked" not in run.out + run.err
        assert "<masked value hidden>" in run.out


def test_simulate_batch_output_file(planted: Path) -> None:
    (planted / "keys.txt").write_text("FOO1\nLOCALx\nbar\n")
    out = planted / "records.jsonl"
    run = capped("simulate", *_args(planted, "--keys-file", str(planted / "keys.txt"), "-o", str(out)),
                 cwd=planted, env=ENV)
    assert_clean(run, 0)
    written = out.read_text()
    _nothing_planted(run.out + run.err + written)
    assert all(json.loads(line) for line in written.splitlines())


def test_probe_output_and_saved_targets(planted: Path) -> None:
    saved = planted / "targets.json"
    run = capped("probe", *_args(planted, "-t", "0.5", "-p", "none", "-f", "json", "--save", str(saved)),
                 cwd=planted, env=ENV)
    assert_clean(run)
    _nothing_planted(run.out + run.err + saved.read_text())
    assert "${T1HOST_SECRET}" in run.out and "${t2host_secret}" in run.out


# -- serve ---------------------------------------------------------------------------------------
MBEAN = 'org.apache.activemq.artemis:broker="localhost",component=connection-routers,name="r1"'


@dataclass
class Served:
    port: int
    management: int
    proc: subprocess.Popen[str]

    def ask(self, operation: str, *arguments: str) -> tuple[str, object]:
        body = json.dumps({"type": "exec", "mbean": MBEAN, "operation": operation, "arguments": list(arguments)})
        raw = _http(self.management, f"POST /console/jolokia HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}"
                                     f"\r\n\r\n{body}")
        text = raw.partition("\r\n\r\n")[2]
        return text, json.loads(text).get("value")


def _http(port: int, request: str) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request.encode())
        chunks = []
        while data := sock.recv(65536):
            chunks.append(data)
    return b"".join(chunks).decode()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def serving(planted: Path) -> Iterator[callable]:
    procs: list[subprocess.Popen[str]] = []

    def start(*extra: str) -> Served:
        port, management = _free_port(), _free_port()
        env = {**os.environ, **ENV, "PYTHONPATH": str(REPO)}
        env.pop("AROUTER_DEBUG", None)
        proc = subprocess.Popen([sys.executable, "-m", "artemis_routing_cli", "serve", *_args(planted),
                                 "--listen", f"127.0.0.1:{port}", "-r", "r1", "--no-monitor", "--loop", "asyncio",
                                 "--management", f"127.0.0.1:{management}", *extra],
                                cwd=planted, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        procs.append(proc)
        assert proc.stderr is not None
        for line in proc.stderr:  # the log says when both are listening
            if "management on http://" in line:
                return Served(port, management, proc)
        pytest.fail(f"serve ended: {proc.wait()}")

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def _stop(served: Served) -> str:
    served.proc.terminate()
    out, err = served.proc.communicate(timeout=60)
    return out + err


def test_serve_log_and_management_answers(serving) -> None:
    served = serving()
    key_filter_text, key_filter = served.ask("getTargetKeyFilter")
    local_text, local = served.ask("getLocalTargetFilter")
    target_text, _ = served.ask("getTargetAsJSON", "FOO1")
    metrics = _http(served.management, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    with socket.create_connection(("127.0.0.1", served.port), timeout=30) as client:
        client.sendall(MqttClient().connect("FOO1"))
        answered = client.recv(65536)
    log = _stop(served)
    assert answered  # the client was routed and logged
    assert key_filter == "${FILTER_TOKEN}" and local == "<from ltf.txt>"
    _nothing_planted(key_filter_text + local_text + target_text + metrics + log)


def test_serve_show_values_shows_values_never_passwords(serving) -> None:
    served = serving("--show-values")
    _, key_filter = served.ask("getTargetKeyFilter")
    target_text, _ = served.ask("getTargetAsJSON", "FOO1")
    log = _stop(served)
    assert key_filter == f"^{ENV_FILTER}|FOO.*"
    _nothing_planted(target_text + log, values_shown=True)


# -- analyze (real Spark) --------------------------------------------------------------------------
@pytest.mark.spark
def test_analyze_summary_and_report(planted: Path) -> None:
    pytest.importorskip("pyspark")
    (planted / "keys.txt").write_text("".join(f"FOO{i}\nLOCAL{i}\nbar{i}\n" for i in range(50)))
    report = planted / "report.html"
    env = {**os.environ, **ENV, "PYTHONWARNINGS": "ignore", "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "artemis_routing_cli", "analyze",
                           *_args(planted, "--keys", str(planted / "keys.txt"), "-r", "r1", "-f", "json",
                                  "--report", str(report), "--conf", "spark.sql.shuffle.partitions=2")],
                          cwd=planted, env=env, capture_output=True, text=True, timeout=900, check=False)
    run = Run(proc.returncode, proc.stdout, proc.stderr)  # no memory cap: the JVM reserves more
    assert_clean(run, 0)
    _nothing_planted(run.out + run.err + report.read_text())
    assert json.loads(run.out)["routers"]


@pytest.mark.parametrize("keys_name", ["keys.txt", "keys.csv"])
def test_simulate_batch_keys_that_are_secrets(planted: Path, keys_name: str) -> None:
    """A key that happens to be a password is hidden in the records, to stdout and to ``-o`` alike
    (before, ``-o`` wrote a text file's records as bytes around the guard)."""
    keys = [f"k{i}" for i in range(3000)] + [CLUSTER_PASSWORD, URL_PASSWORD] + [f"m{i}" for i in range(3000)]
    head = "key\n" if keys_name.endswith(".csv") else ""
    (planted / keys_name).write_text(head + "\n".join(keys) + "\n")
    out = planted / "records.jsonl"
    to_file = capped("simulate", *_args(planted, "--keys-file", str(planted / keys_name), "-r", "r2", "-o", str(out)),
                     cwd=planted, env=ENV)
    assert_clean(to_file, 0)
    to_stdout = capped("simulate", *_args(planted, "--keys-file", str(planted / keys_name), "-r", "r2"),
                       cwd=planted, env=ENV)
    assert_clean(to_stdout, 0)
    for written in (out.read_text(), to_stdout.out):
        _nothing_planted(written)
        records = [json.loads(line) for line in written.splitlines()]
        hidden = ["<cluster-password hidden>", "<password hidden>"]
        assert [r["key"] for r in records] == keys[:3000] + hidden + keys[3002:]
