"""The management HTTP API: Jolokia-shaped router MBean operations, /metrics and /healthz."""

from __future__ import annotations

import base64
import json
import socket
import urllib.error
import urllib.request
from urllib.parse import quote

import pytest

from artemis_routing_cli.protocols.mqtt import MqttClient
from artemis_routing_cli.routing.targets import state_from_options
from tests.cli.helpers import arouter

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops, recv_until_closed

pytestmark = pytest.mark.network

MBEAN = 'org.apache.activemq.artemis:broker="localhost",component=connection-routers,name="by-client"'


def get(port: int, path: str, auth: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if auth:
        request.add_header("Authorization", "Basic " + base64.b64encode(auth.encode()).decode())
    try:
        with urllib.request.urlopen(request, timeout=HANG_GUARD) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def post(port: int, payload: object) -> object:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/console/jolokia", data=json.dumps(payload).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=HANG_GUARD) as response:
        return json.loads(response.read())


@pytest.fixture
def running(serve):
    return serve(ROUTER_CORE, routers=["by-client"], management="127.0.0.1:0", state=state_from_options(NODE_IDS))


@pytest.mark.parametrize("key", ["FOO1", "BAR-42", "LOCAL-9"])
def test_get_target_as_json_answers_what_simulate_management_answers(running, tmp_path, key):
    path = f"/console/jolokia/exec/{quote(MBEAN)}/getTargetAsJSON/{quote(key)}"
    status, body = get(running.management_port, path)
    answer = json.loads(body)
    assert status == 200 and answer["status"] == 200
    assert answer["request"] == {"type": "exec", "mbean": MBEAN, "operation": "getTargetAsJSON", "arguments": [key]}
    assert isinstance(answer["timestamp"], int)
    value = json.loads(answer["value"])

    cli = arouter("simulate", "-c", str(tmp_path / "broker.xml"), "-r", "by-client", "--management",
                  "-k", key, "-f", "json", *[a for n in NODE_IDS for a in ("--node-id", n)])
    assert cli.code == 0, cli.err
    [expected] = json.loads(cli.out)["results"]
    assert value["nodeID"] == expected["node_id"]
    assert value["local"] == expected["local"]
    if expected["local"]:
        assert value["connector"] is None
    else:
        connector = value["connector"]
        assert f'{connector["params"]["host"]}:{connector["params"]["port"]}' == expected["address"]
        assert connector["name"] == expected["target"]
        assert list(connector["params"]) == ["port", "host"]  # Java HashMap order
        assert connector["extraProps"] == {}


def test_get_target_composite_and_null_for_a_refusal(serve):
    running = serve(ROUTER_CORE, routers=["refuser"], management="127.0.0.1:0", state=state_from_options(NODE_IDS))
    answers = post(running.management_port, [
        {"type": "exec", "mbean": MBEAN, "operation": "getTarget(java.lang.String)", "arguments": ["FOO1"]},
        {"type": "exec", "mbean": MBEAN.replace("by-client", "refuser"), "operation": "getTarget",
         "arguments": ["FOO1"]},
        {"type": "exec", "mbean": MBEAN.replace("localhost", "other"), "operation": "getTarget",
         "arguments": ["FOO1"]},
    ])
    composite, refused, missing = answers
    assert composite["status"] == 200
    assert composite["value"]["nodeID"] == "22222222-2222-2222-2222-222222222222"
    assert composite["value"]["connector"]["params"]["port"] == {"key": "port", "value": "61618"}
    assert refused["status"] == 200 and refused["value"] is None
    assert missing["status"] == 404 and missing["error_type"] == "javax.management.InstanceNotFoundException"


@on_both_loops
def test_setting_the_local_target_filter_changes_live_routing(running):
    port = running.management_port
    set_answer = post(port, {"type": "exec", "mbean": MBEAN, "operation": "setLocalTargetFilter",
                             "arguments": ["FOO.*"]})
    assert set_answer["status"] == 200 and set_answer["value"] is None
    got = post(port, {"type": "exec", "mbean": MBEAN, "operation": "getLocalTargetFilter", "arguments": []})
    assert got["value"] == "FOO.*"
    target = post(port, {"type": "exec", "mbean": MBEAN, "operation": "getTargetAsJSON", "arguments": ["FOO1"]})
    assert json.loads(target["value"])["local"] is True
    post(port, {"type": "exec", "mbean": MBEAN, "operation": "setTargetKeyFilter", "arguments": ["^[A-Z]+"]})
    read = post(port, {"type": "read", "mbean": MBEAN})
    assert read["value"] == {"LocalTargetFilter": "FOO.*", "TargetKeyFilter": "^[A-Z]+"}
    bad = post(port, {"type": "exec", "mbean": MBEAN, "operation": "setLocalTargetFilter", "arguments": ["(("]})
    assert bad["status"] == 500 and "PatternSyntaxException" in bad["error_type"]


@on_both_loops
def test_metrics_count_redirects_and_healthz_answers(running):
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(MqttClient().connect("FOO1"))
        recv_until_closed(sock)
    status, body = get(running.management_port, "/metrics")
    text = body.decode()
    assert status == 200
    assert 'arouter_redirects_total{protocol="MQTT",router="by-client",target="target2"} 1' in text
    assert 'arouter_connections_total{listener="listen-1",protocol="MQTT"} 1' in text
    status, body = get(running.management_port, "/healthz")
    assert status == 200 and json.loads(body)["status"] == "ok"


def test_basic_auth_is_required_when_configured(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], management="127.0.0.1:0", management_user="admin",
                    management_password="pw")
    assert get(running.management_port, "/metrics")[0] == 401
    assert get(running.management_port, "/metrics", "admin:wrong")[0] == 401
    assert get(running.management_port, "/metrics", "admin:pw")[0] == 200
    assert get(running.management_port, "/healthz")[0] == 200
