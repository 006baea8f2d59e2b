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

NETTY = "org.apache.activemq.artemis.core.remoting.impl.netty.NettyConnectorFactory"
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
    assert composite["value"]["connector"]["params"] == {"port": "61618", "host": "10.0.0.2"}
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
def test_management_filters_are_blank_as_the_broker_says(running):
    """setLocalTargetFilter drops a filter whose String.trim() is empty, setTargetKeyFilter one that
    isBlank(); a filter that does not compile is refused and the old one stays."""
    port = running.management_port

    def call(operation: str, *args: object) -> dict:
        return post(port, {"type": "exec", "mbean": MBEAN, "operation": operation, "arguments": list(args)})

    assert call("setLocalTargetFilter", "\u2003")["status"] == 200  # trim() keeps U+2003: a real filter
    assert call("getLocalTargetFilter")["value"] == "\u2003"
    assert call("setLocalTargetFilter", " \t")["status"] == 200
    assert call("getLocalTargetFilter")["value"] is None
    assert call("setTargetKeyFilter", "\u2003")["status"] == 200  # isBlank() is true for U+2003
    assert call("getTargetKeyFilter")["value"] is None
    assert call("setTargetKeyFilter", "\u00a0")["status"] == 200  # a no-break space is not whitespace to Java
    assert call("getTargetKeyFilter")["value"] == "\u00a0"
    bad = call("setTargetKeyFilter", "[a-")
    assert bad["status"] == 500 and "PatternSyntaxException" in bad["error_type"]
    assert call("getTargetKeyFilter")["value"] == "\u00a0"


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


MASKED = """
  <mask-password>true</mask-password>
  <connectors>
    <connector name="t3">tcp://10.0.0.3:61619?sslEnabled=true;foo.bar=baz;amqpCredits=1000;novalue</connector>
  </connectors>
  <connection-routers>
    <connection-router name="r3"><key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>
      <pool><static-connectors><connector-ref>t3</connector-ref></static-connectors></pool></connection-router>
  </connection-routers>
"""
R3 = MBEAN.replace("by-client", "r3")
CODEC = "org.apache.activemq.artemis.utils.DefaultSensitiveStringCodec"


def pairs(body: bytes) -> list:
    """The JSON with every object as its list of (key, value) pairs, to see the order keys come in."""
    return json.loads(body, object_pairs_hook=list)


def test_get_target_is_written_as_jolokia_writes_the_composite_data(serve):
    running = serve(MASKED, routers=["r3"], management="127.0.0.1:0", state=state_from_options(["t3=33333333"]))
    status, body = get(running.management_port, f"/console/jolokia/exec/{quote(R3)}/getTarget/FOO1")
    assert status == 200
    assert b", " not in body and b": " not in body  # Jolokia's JSONWriter writes compact JSON
    answer = dict(pairs(body))
    assert [k for k, _ in pairs(body)] == ["request", "value", "status", "timestamp"]  # HashMap order
    # CompositeData keys and the params map come out in HashMap order; params is the MXBean-style
    # TabularData (rows key/value) Jolokia flattens; Objects.toString turns the Boolean into "true";
    # extraProps are not part of getTarget
    assert answer["value"] == [
        ("connector", [("name", "t3"), ("factoryClassName", NETTY),
                       ("params", [("port", "61619"), ("sslEnabled", "true"), ("host", "10.0.0.3"),
                                   ("activemq.passwordcodec", CODEC), ("activemq.usemaskedpassword", "true")])]),
        ("nodeID", "33333333"),
        ("local", False),
    ]


def test_get_target_as_json_is_transport_configuration_to_json(serve):
    running = serve(MASKED, routers=["r3"], management="127.0.0.1:0", state=state_from_options(["t3=33333333"]))
    status, body = get(running.management_port, f"/console/jolokia/exec/{quote(R3)}/getTargetAsJSON/FOO1")
    value = json.loads(body)["value"]
    assert value == (
        '{"nodeID":"33333333","local":false,"connector":{"name":"t3","factoryClassName":"' + NETTY + '",'
        '"params":{"port":"61619","sslEnabled":"true","host":"10.0.0.3","activemq.passwordcodec":"' + CODEC + '",'
        '"activemq.usemaskedpassword":true},"extraProps":{"amqpCredits":"1000","foo.bar":"baz","novalue":null}}}')


SECRETS = """
  <connectors>
    <connector name="t4">tcp://10.0.0.4:61620?sslEnabled=true;trustStorePassword=s3cret;keyStorePassword=k3y;secretPassword=x</connector>
  </connectors>
  <connection-routers>
    <connection-router name="r4"><key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>
      <pool><static-connectors><connector-ref>t4</connector-ref></static-connectors></pool></connection-router>
  </connection-routers>
"""


def test_management_answers_never_show_connector_passwords(serve):
    """Unlike the broker, which answers them in clear (docs/fidelity.md): arouter never shows a password."""
    running = serve(SECRETS, routers=["r4"], management="127.0.0.1:0", state=state_from_options(["t4=44444444"]))
    r4 = MBEAN.replace("by-client", "r4")
    _, composite = get(running.management_port, f"/console/jolokia/exec/{quote(r4)}/getTarget/FOO1")
    _, as_json = get(running.management_port, f"/console/jolokia/exec/{quote(r4)}/getTargetAsJSON/FOO1")
    params = json.loads(composite)["value"]["connector"]["params"]
    connector = json.loads(json.loads(as_json)["value"])["connector"]
    assert params["trustStorePassword"] == params["keyStorePassword"] == "****"
    assert connector["params"]["trustStorePassword"] == connector["params"]["keyStorePassword"] == "****"
    assert connector["extraProps"]["secretPassword"] == "****"  # not a transport key: an extraProp, masked too
    assert params["sslEnabled"] == "true" and params["host"] == "10.0.0.4"
    for body in (composite, as_json):
        assert b"s3cret" not in body and b"k3y" not in body


@on_both_loops
def test_blank_filters_set_through_management_are_the_broker_s(running):
    """setTargetKeyFilter drops a String.isBlank() text (U+2003), keeps a NBSP; setLocalTargetFilter
    drops a text String.trim() empties, and keeps U+2003 (a one-character pattern)."""
    port = running.management_port

    def set_and_read(operation: str, value: str) -> dict:
        post(port, {"type": "exec", "mbean": MBEAN, "operation": operation, "arguments": [value]})
        return post(port, {"type": "read", "mbean": MBEAN})["value"]

    assert set_and_read("setTargetKeyFilter", "\u2003")["TargetKeyFilter"] is None
    assert set_and_read("setTargetKeyFilter", "\u00a0")["TargetKeyFilter"] == "\u00a0"
    assert set_and_read("setLocalTargetFilter", "\u2003")["LocalTargetFilter"] == "\u2003"
    assert set_and_read("setLocalTargetFilter", " \t")["LocalTargetFilter"] is None
