"""A real MQTT 5 client (paho-mqtt) against ``arouter serve``, and one that follows the Server
Reference to a real mosquitto broker."""

from __future__ import annotations

import threading

import pytest

from artemis_routing_cli.routing.targets import state_from_options

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops

mqtt = pytest.importorskip("paho.mqtt.client", reason="paho-mqtt is not installed")
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
