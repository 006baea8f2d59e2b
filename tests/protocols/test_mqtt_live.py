"""The MQTT codec against real MQTT stacks over real sockets on 127.0.0.1.

Server side: paho-mqtt clients (MQTT 5 and 3.1.1) connect to MqttServer.
Client side: MqttClient connects to a real mosquitto broker started for this module.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from artemis_routing_cli.protocols.mqtt import (
    PROTOCOL_LEVEL_5,
    PROTOCOL_LEVEL_31,
    PROTOCOL_LEVEL_311,
    SUCCESS,
    Connack,
    ConnectReceived,
    MqttClient,
    MqttServer,
)
from tests.real_clients import import_peer

mqtt = import_peer("paho.mqtt.client", "paho-mqtt")
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

pytestmark = pytest.mark.network

#: Guard against a hung peer, not a synchronisation device: a passing test never waits for it.
HANG_GUARD_SECONDS = 20


class OneShotListener:
    """Serves one MQTT connection with MqttServer in a thread, answering CONNECT with ``decide``."""

    def __init__(self, decide: Callable[[MqttServer], bytes]) -> None:
        self.decide = decide
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.sock.settimeout(HANG_GUARD_SECONDS)
        self.port = self.sock.getsockname()[1]
        self.connect: ConnectReceived | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            conn, _ = self.sock.accept()
            with conn:
                conn.settimeout(HANG_GUARD_SECONDS)
                server = MqttServer()
                while self.connect is None:
                    data = conn.recv(65536)
                    if not data:
                        return
                    for event in server.receive_data(data):
                        if isinstance(event, ConnectReceived):
                            self.connect = event
                conn.sendall(self.decide(server))
                # then close, as the broker does after a routing CONNACK
        except BaseException as exc:  # reported by the test through self.error
            self.error = exc
        finally:
            self.sock.close()

    def join(self) -> None:
        self.thread.join(HANG_GUARD_SECONDS)
        assert not self.thread.is_alive()
        if self.error is not None:
            raise self.error


def paho_connect(port: int, protocol: int) -> tuple:
    """Connect a paho client once (no reconnect) and return (reason_code, properties)."""
    result: list = []
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="paho-1", protocol=protocol)
    client.username_pw_set("alice", "secret")

    def on_connect(_client, _userdata, _flags, reason_code, properties):
        result.append((reason_code, properties))

    client.on_connect = on_connect
    client.connect("127.0.0.1", port, keepalive=30)
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while not result and time.monotonic() < deadline:
        client.loop(timeout=0.5)  # returns as soon as the socket has something to read
    client.disconnect()
    assert result, "paho never saw a CONNACK"
    return result[0]


def test_paho_v5_is_redirected_with_server_reference():
    listener = OneShotListener(lambda server: server.redirect("broker2.example", 1884))
    reason, properties = paho_connect(listener.port, mqtt.MQTTv5)
    listener.join()
    assert reason.value == 0x9C
    assert reason.getName() == "Use another server"
    assert properties.ServerReference == "broker2.example:1884"
    assert listener.connect is not None
    assert (listener.connect.protocol_level, listener.connect.client_id) == (5, "paho-1")
    assert (listener.connect.username, listener.connect.password) == ("alice", b"secret")


def test_paho_v5_refused_as_unavailable():
    listener = OneShotListener(lambda server: server.refuse("REFUSED_UNAVAILABLE"))
    reason, properties = paho_connect(listener.port, mqtt.MQTTv5)
    listener.join()
    assert reason.value == 0x88
    assert not hasattr(properties, "ServerReference")


@pytest.mark.parametrize("protocol", ["MQTTv311", "MQTTv31"])
def test_paho_v3_gets_the_brokers_v5_code_and_no_reference(protocol):
    listener = OneShotListener(lambda server: server.redirect("broker2.example", 1884))
    reason, _properties = paho_connect(listener.port, getattr(mqtt, protocol))
    listener.join()
    assert listener.connect is not None
    assert listener.connect.protocol_level == (4 if protocol == "MQTTv311" else 3)
    # 0x9C is not in the 3.1.1 return-code table: paho reports a failure it cannot name
    assert reason.is_failure


# --- client side against mosquitto ---------------------------------------------------------


@pytest.fixture(scope="module")
def mosquitto_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    from tests.peers import start_mosquitto

    broker = start_mosquitto(tmp_path_factory.mktemp("mosquitto"))
    if broker is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    yield broker.port
    broker.stop()


def probe(port: int, client: MqttClient, client_id: str, **options: object) -> Connack:
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD_SECONDS) as sock:
        sock.sendall(client.connect(client_id, **options))
        while client.connack is None:
            data = sock.recv(65536)
            assert data, "mosquitto closed without a CONNACK"
            client.receive_data(data)
        sock.sendall(client.disconnect())
    return client.connack


def test_v5_probe_against_mosquitto(mosquitto_port):
    connack = probe(mosquitto_port, MqttClient(PROTOCOL_LEVEL_5), "probe-v5")
    assert connack.reason_code == SUCCESS
    assert connack.server_reference is None
    assert connack.properties  # mosquitto announces its limits as MQTT 5 properties


@pytest.mark.parametrize("level", [PROTOCOL_LEVEL_311, PROTOCOL_LEVEL_31])
def test_v3_probes_against_mosquitto(mosquitto_port, level):
    connack = probe(mosquitto_port, MqttClient(level), "probe-v3", username="any", password="thing")
    assert (connack.reason_code, connack.properties) == (SUCCESS, {})


def test_v311_refusal_from_mosquitto_is_reported(mosquitto_port):
    # an empty client id without a clean session is refused with 0x02 (MQTT-3.1.3-8)
    connack = probe(mosquitto_port, MqttClient(PROTOCOL_LEVEL_311), "", clean_start=False)
    assert connack.reason_code == 0x02
    assert connack.reason_name == "Identifier rejected (3.x)"
