"""Fuzzing the MQTT codec: random and mutated input raises ProtocolError or nothing, and always ends."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.mqtt import (
    PROTOCOL_LEVEL_5,
    PROTOCOL_LEVEL_311,
    SERVER_REFERENCE,
    USER_PROPERTY,
    ConnectReceived,
    MqttClient,
    MqttServer,
    build_connack,
    build_connect,
    parse_connack,
)
from tests.protocols.mutation import mutated

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

CONNECTS = [
    build_connect("cid", username="u", password="p", properties={USER_PROPERTY: [("k", "v")]}),
    build_connect("cid", protocol_level=PROTOCOL_LEVEL_311, username="u"),
    build_connect("c", protocol_level=3),
    # a v5 CONNECT with a will: flags 0x0e (will, qos 1, clean), empty will properties
    b"\x10\x15\x00\x04MQTT\x05\x0e\x00\x00\x00\x00\x01c\x00\x00\x01t\x00\x01m",
]
CONNACKS = [
    build_connack(0x9C, PROTOCOL_LEVEL_5, {SERVER_REFERENCE: "h:1"}),
    build_connack(0x88, PROTOCOL_LEVEL_311),
]


def drive_server(data: bytes, split: int) -> None:
    server = MqttServer(max_packet_size=4096)
    try:
        for chunk in (data[:split], data[split:]):
            for event in server.receive_data(chunk):
                if isinstance(event, ConnectReceived):
                    server.redirect("h", 1)
    except ProtocolError:
        pass


def drive_client(data: bytes, split: int, level: int) -> None:
    client = MqttClient(level)
    client.connect("probe")
    try:
        client.receive_data(data[:split])
        client.receive_data(data[split:])
    except ProtocolError:
        pass


@FUZZ
@given(st.binary(max_size=300), st.integers(0, 300))
def test_server_random_bytes(data, split):
    drive_server(data, split)
    drive_server(b"\x10" + data, split)


@FUZZ
@given(mutated(CONNECTS), st.integers(0, 60))
def test_server_mutated_connects(data, split):
    drive_server(data, split)


@FUZZ
@given(mutated(CONNACKS) | st.binary(max_size=100), st.integers(0, 60), st.sampled_from([3, 4, 5]))
def test_client_mutated_and_random_connacks(data, split, level):
    drive_client(data, split, level)
    try:
        parse_connack(data, level)
    except ProtocolError:
        pass


def test_unmutated_baselines_are_valid():
    for connect in CONNECTS:
        [event] = MqttServer().receive_data(connect)
        assert isinstance(event, ConnectReceived)
    assert parse_connack(CONNACKS[0]).server_reference == "h:1"
    assert parse_connack(CONNACKS[1], PROTOCOL_LEVEL_311).reason_code == 0x88
