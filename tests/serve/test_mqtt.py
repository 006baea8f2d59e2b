"""A real MQTT 5 client (paho-mqtt) against ``arouter serve``, and one that follows the Server
Reference to a real mosquitto broker."""

from __future__ import annotations

import socket
import threading
import uuid

import pytest

from artemis_routing_cli.routing.targets import state_from_options
from tests.real_clients import import_peer

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops, recv_until_closed

mqtt = import_peer("paho.mqtt.client", "paho-mqtt")
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402
from paho.mqtt.packettypes import PacketTypes  # noqa: E402
from paho.mqtt.properties import Properties  # noqa: E402

pytestmark = pytest.mark.network


def mqtt5_connect(port: int, client_id: str, username: str | None = None, password: str | None = None):
    """Connect once; return (reason code, CONNACK properties)."""
    got: dict = {}
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    if username is not None:
        client.username_pw_set(username, password)

    def on_connect(c, userdata, flags, reason_code, properties):
        got["rc"] = reason_code
        got["props"] = properties
        c.disconnect()

    client.on_connect = on_connect
    client.connect("127.0.0.1", port, keepalive=10)
    client.loop_forever(timeout=1.0, retry_first_connection=False)
    assert "rc" in got
    return got["rc"], got["props"]


def server_reference(props) -> str | None:
    return getattr(props, "ServerReference", None)


@on_both_loops
def test_paho_sees_use_another_server_and_the_server_reference(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    rc, props = mqtt5_connect(running.port(), "FOO1")
    assert rc.value == 0x9C
    assert server_reference(props) == "10.0.0.2:61618"
    assert running.routes()[0]["protocol"] == "MQTT"


def test_paho_sees_server_unavailable_when_no_target_is_ready(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS, down=["target1", "target2"]))
    rc, props = mqtt5_connect(running.port(), "FOO1")
    assert rc.value == 0x88
    assert server_reference(props) is None


def test_local_target_filter_sends_the_client_to_the_local_target(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], local_target="127.0.0.1:1883",
                    state=state_from_options(NODE_IDS))
    rc, props = mqtt5_connect(running.port(), "LOCAL-7")
    assert (rc.value, server_reference(props)) == (0x9C, "127.0.0.1:1883")


def test_local_result_without_local_target_is_refused(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    rc, props = mqtt5_connect(running.port(), "LOCAL-7")
    assert (rc.value, server_reference(props)) == (0x9C, None)
    assert any("no --local-target" in r["message"] for r in running.records if r["event"] == "startup")


@on_both_loops
def test_client_follows_the_server_reference_to_a_real_broker(serve, mosquitto):
    core = f"""
      <connectors><connector name="mosq">tcp://127.0.0.1:{mosquitto.port}</connector></connectors>
      <connection-routers><connection-router name="r">
        <key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>
        <pool><static-connectors><connector-ref>mosq</connector-ref></static-connectors></pool>
      </connection-router></connection-routers>"""
    running = serve(core, routers=["r"])
    rc, props = mqtt5_connect(running.port(), "follower")
    assert rc.value == 0x9C
    host, _, port = server_reference(props).rpartition(":")
    assert (host, int(port)) == ("127.0.0.1", mosquitto.port)

    received: list[bytes] = []
    done = threading.Event()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="follower", protocol=mqtt.MQTTv5)

    def on_connect(c, userdata, flags, reason_code, properties):
        assert reason_code.value == 0
        c.subscribe("arouter/test", qos=1)

    def on_subscribe(c, userdata, mid, reason_codes, properties):
        publish_props = Properties(PacketTypes.PUBLISH)
        c.publish("arouter/test", b"hello via redirect", qos=1, properties=publish_props)

    def on_message(c, userdata, message):
        received.append(message.payload)
        done.set()
        c.disconnect()

    client.on_connect, client.on_subscribe, client.on_message = on_connect, on_subscribe, on_message
    guard = threading.Timer(HANG_GUARD, client.disconnect)  # only fires if the exchange hangs
    guard.start()
    try:
        client.connect(host, int(port), keepalive=10)
        client.loop_forever(timeout=1.0, retry_first_connection=False)
    finally:
        guard.cancel()
    assert done.is_set() and received == [b"hello via redirect"]


# -- the client id is checked before the user (MQTTProtocolHandler.handleConnect) ---------------------

def raw_connect(level: int, flags: int, payload: bytes) -> bytes:
    """A CONNECT built from the spec (no codec): name, level, flags, keep-alive 60, [MQTT 5: empty
    properties], then the payload."""
    name = b"MQIsdp" if level == 3 else b"MQTT"
    body = len(name).to_bytes(2, "big") + name + bytes((level, flags)) + (60).to_bytes(2, "big")
    if level == 5:
        body += b"\x00"
    body += payload
    assert len(body) < 128
    return bytes((0x10, len(body))) + body


def mqtt_string(text: str) -> bytes:
    data = text.encode()
    return len(data).to_bytes(2, "big") + data


def exchange(port: int, packet: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        sock.sendall(packet)
        return recv_until_closed(sock)


@on_both_loops
@pytest.mark.parametrize(("level", "answer"), [(4, b"\x20\x02\x00\x02"), (5, b"\x20\x03\x00\x85\x00")])
def test_empty_client_id_without_clean_session_is_rejected_before_the_user_check(serve, tmp_path, level, answer):
    users = tmp_path / "users.properties"
    users.write_text("alice=s3cret\n", encoding="latin-1")
    running = serve(ROUTER_CORE, routers=["by-client"], users_file=str(users), state=state_from_options(NODE_IDS))
    # user alice with a wrong password, no clean session/start (flags: user, password, nothing else)
    packet = raw_connect(level, 0xC0, mqtt_string("") + mqtt_string("alice") + mqtt_string("wrong"))
    assert exchange(running.port(), packet) == answer
    assert running.routes() == []
    assert not [r for r in running.records if r["event"] == "auth"]  # the password was never looked at
    [record] = [r for r in running.records if r.get("reason") == "client_id_rejected"]
    assert record["protocol"] == "MQTT"
    assert running.server.metrics.get("arouter_handshake_errors_total", listener="listen-1",
                                      reason="client_id_rejected") == 1


@pytest.mark.parametrize("level", [4, 5])
def test_empty_client_id_with_clean_session_gets_a_generated_id(serve, level):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    answer = exchange(running.port(), raw_connect(level, 0x02, mqtt_string("")))
    assert answer[3] == 0x9C  # Use another server (for 3.1.1 without properties: 20 02 00 9C)
    assert level == 5 or answer == b"\x20\x02\x00\x9c"
    [route] = running.routes()
    assert str(uuid.UUID(route["key"])) == route["key"]  # UUID.randomUUID().toString()


def test_paho_mqtt5_without_clean_start_and_client_id_gets_client_identifier_not_valid(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    got: dict = {}
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="", protocol=mqtt.MQTTv5)

    def on_connect(c, userdata, flags, reason_code, properties):
        got["rc"] = reason_code
        c.disconnect()

    client.on_connect = on_connect
    client.connect("127.0.0.1", running.port(), keepalive=10, clean_start=False)
    client.loop_forever(timeout=1.0, retry_first_connection=False)
    assert got["rc"].value == 0x85
    assert running.routes() == []
