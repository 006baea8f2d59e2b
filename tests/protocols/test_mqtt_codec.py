"""Byte-level tests of the MQTT codec; packets are built by hand from the MQTT 3.1.1 and 5 specs."""

from __future__ import annotations

import pytest

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.mqtt import (
    SERVER_REFERENCE,
    SESSION_EXPIRY_INTERVAL,
    USER_PROPERTY,
    Connack,
    ConnectReceived,
    MqttClient,
    MqttServer,
    PacketReceived,
    Will,
    build_connect,
    encode_varint,
    parse_connack,
)


def s(text: bytes) -> bytes:
    """A UTF-8 string / binary field: 2-byte length then the bytes."""
    return len(text).to_bytes(2, "big") + text


def packet(first: int, body: bytes) -> bytes:
    assert len(body) < 128  # one-byte remaining length keeps the hand-built packets readable
    return bytes([first, len(body)]) + body


V5_CONNECT = packet(
    0x10,
    s(b"MQTT")
    + b"\x05"  # protocol level 5
    + b"\xc2"  # user name, password, clean start
    + b"\x00\x3c"  # keep alive 60
    + b"\x0c"  # properties length 12
    + b"\x11\x00\x00\x00\x78"  # session expiry interval 120
    + b"\x26"
    + s(b"k")
    + s(b"v")  # user property k=v
    + s(b"cid1")
    + s(b"u")
    + s(b"pw"),
)

V311_CONNECT_WITH_WILL = packet(
    0x10,
    s(b"MQTT") + b"\x04" + b"\x2e" + b"\x00\x0a" + s(b"client-7") + s(b"will/topic") + s(b"bye"),
)


def test_decode_v5_connect():
    server = MqttServer()
    [event] = server.receive_data(V5_CONNECT)
    assert event == ConnectReceived(
        protocol_name="MQTT",
        protocol_level=5,
        clean_start=True,
        keep_alive=60,
        client_id="cid1",
        username="u",
        password=b"pw",
        will=None,
        properties={SESSION_EXPIRY_INTERVAL: 120, USER_PROPERTY: [("k", "v")]},
    )
    assert event.password_present and event.is_v5
    assert "pw" not in repr(event)


def test_decode_v311_connect_with_will():
    [event] = MqttServer().receive_data(V311_CONNECT_WITH_WILL)
    assert (event.protocol_level, event.client_id, event.username, event.password) == (4, "client-7", None, None)
    assert event.will == Will("will/topic", b"bye", qos=1, retain=True)
    assert event.keep_alive == 10


def test_decode_v31_connect_ignores_the_reserved_bit_like_netty():
    data = packet(0x10, s(b"MQIsdp") + b"\x03" + b"\x03" + b"\x00\x00" + s(b"c31"))
    [event] = MqttServer().receive_data(data)
    assert (event.protocol_name, event.protocol_level, event.client_id) == ("MQIsdp", 3, "c31")


def test_fixed_header_flags_of_connect_are_ignored_like_netty():
    data = bytes([0x1F]) + V5_CONNECT[1:]
    [event] = MqttServer().receive_data(data)
    assert event.client_id == "cid1"


def test_connect_split_into_single_bytes_and_pipelined_packets():
    server = MqttServer()
    events = []
    for byte in V5_CONNECT + b"\xc0\x00":  # CONNECT then PINGREQ
        events += server.receive_data(bytes([byte]))
    assert [type(e) for e in events] == [ConnectReceived, PacketReceived]
    assert events[1] == PacketReceived(12)


def test_connect_with_multi_byte_remaining_length():
    client_id = b"x" * 200
    body = s(b"MQTT") + b"\x04\x02\x00\x00" + s(client_id)
    data = b"\x10" + bytes([len(body) % 128 | 0x80, len(body) // 128]) + body
    [event] = MqttServer().receive_data(data)
    assert event.client_id == "x" * 200


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (packet(0x30, s(b"t") + b"m"), "first MQTT packet must be CONNECT"),
        (packet(0x10, s(b"MQTT") + b"\x06\x02\x00\x00" + s(b"c")), "unsupported MQTT protocol"),
        (packet(0x10, s(b"MQIsdp") + b"\x04\x02\x00\x00" + s(b"c")), "unsupported MQTT protocol"),
        (packet(0x10, s(b"MQTT") + b"\x04\x03\x00\x00" + s(b"c")), "reserved flag"),
        (packet(0x10, s(b"MQIsdp") + b"\x03\x02\x00\x00" + s(b"")), "1 to 23 characters"),
        (packet(0x10, s(b"MQIsdp") + b"\x03\x02\x00\x00" + s(b"c" * 24)), "1 to 23 characters"),
        (packet(0x10, s(b"MQTT") + b"\x05\x02\x00\x00\x02\x7f\x00" + s(b"c")), "unknown MQTT property"),
        (packet(0x10, s(b"MQTT") + b"\x05\x02\x00\x00\x09\x11\x00" + s(b"c")), "run past the end"),
        (packet(0x10, s(b"MQTT") + b"\x05\x02\x00\x00\x03\x11\x00\x00" + s(b"c")), "runs past the declared"),
        (packet(0x10, s(b"MQTT") + b"\x04\x02\x00\x00" + s(b"c") + b"!"), "unexpected byte"),
        (packet(0x10, s(b"MQTT") + b"\x04\xc2\x00\x00" + s(b"c")), "ends in the middle"),
        (b"\x10\xff\xff\xff\xff\x01", "longer than 4 bytes"),
        (b"\x10\xff\xff\xff\x7f", "larger than the 1048576 allowed"),
        (V5_CONNECT + V5_CONNECT, "second MQTT CONNECT"),
    ],
)
def test_server_rejects_malformed_connects(data, message):
    with pytest.raises(ProtocolError, match=message):
        MqttServer().receive_data(data)


def test_redirect_v5_carries_server_reference():
    server = MqttServer()
    server.receive_data(V5_CONNECT)
    # CONNACK, remaining 13: flags 0, reason 0x9C, properties length 10: 0x1C "b2:1884"
    assert server.redirect("b2", 1884) == b"\x20\x0d\x00\x9c\x0a\x1c" + s(b"b2:1884")


def test_redirect_and_refusals_for_v311_and_v31_have_no_properties():
    for connect in (V311_CONNECT_WITH_WILL, packet(0x10, s(b"MQIsdp") + b"\x03\x02\x00\x00" + s(b"c"))):
        server = MqttServer()
        server.receive_data(connect)
        assert server.redirect("b2", 1884) == b"\x20\x02\x00\x9c"
        for status, code in [("REFUSED_USE_ANOTHER", b"\x9c"), ("REFUSED_UNAVAILABLE", b"\x88")]:
            server = MqttServer()
            server.receive_data(connect)
            assert server.refuse(status) == b"\x20\x02\x00" + code


def test_refusals_for_v5_have_an_empty_property_block():
    for status, code in [("REFUSED_USE_ANOTHER", b"\x9c"), ("REFUSED_UNAVAILABLE", b"\x88")]:
        server = MqttServer()
        server.receive_data(V5_CONNECT)
        assert server.refuse(status) == b"\x20\x03\x00" + code + b"\x00"
    server = MqttServer()
    server.receive_data(V5_CONNECT)
    with pytest.raises(ValueError):
        server.refuse("OK")


def test_server_answers_once():
    server = MqttServer()
    with pytest.raises(RuntimeError):
        server.redirect("h", 1)
    server.receive_data(V5_CONNECT)
    server.redirect("h", 1)
    with pytest.raises(RuntimeError):
        server.refuse("REFUSED_UNAVAILABLE")


def test_build_connect_v5_and_v311():
    assert build_connect("cid1", username="u", password="pw", properties={SESSION_EXPIRY_INTERVAL: 120}) == packet(
        0x10, s(b"MQTT") + b"\x05\xc2\x00\x3c" + b"\x05\x11\x00\x00\x00\x78" + s(b"cid1") + s(b"u") + s(b"pw")
    )
    assert build_connect("c", protocol_level=4, keep_alive=0, clean_start=False) == packet(
        0x10, s(b"MQTT") + b"\x04\x00\x00\x00" + s(b"c")
    )
    with pytest.raises(ValueError):
        build_connect("c", protocol_level=4, properties={SESSION_EXPIRY_INTERVAL: 1})


def test_build_connect_round_trips_through_the_server():
    data = build_connect("probe", protocol_level=3, username="bob", password=b"\x00\xff")
    [event] = MqttServer().receive_data(data)
    assert (event.protocol_name, event.client_id, event.username, event.password) == (
        "MQIsdp",
        "probe",
        "bob",
        b"\x00\xff",
    )


def test_parse_connack():
    v5 = parse_connack(b"\x20\x0d\x00\x9c\x0a\x1c" + s(b"b2:1884"))
    assert v5 == Connack(False, 0x9C, {SERVER_REFERENCE: "b2:1884"})
    assert v5.server_reference == "b2:1884"
    assert v5.reason_name == "Use another server"
    assert parse_connack(b"\x20\x02\x01\x00", protocol_level=4) == Connack(True, 0, {})
    # a 3.1.1-only server answers a v5 CONNECT with a 2-byte CONNACK
    assert parse_connack(b"\x20\x02\x00\x01", protocol_level=5).reason_code == 0x01
    assert Connack(False, 0x42).reason_name == "unknown code 0x42"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x20\x02\x00", "incomplete"),
        (b"\x20\x02\x00\x00\x00", "bytes after"),
        (b"\xd0\x00", "expected CONNACK"),
        (b"\x20\x02\x02\x00", "reserved bits"),
        (b"\x20\x03\x00\x00\x05", "run past the end"),
    ],
)
def test_parse_connack_rejects_malformed(data, message):
    with pytest.raises(ProtocolError, match=message):
        parse_connack(data)


def test_client_reads_connack_bytewise_and_later_packets():
    client = MqttClient(protocol_level=5)
    assert client.connect("probe-1") == build_connect("probe-1")
    events = []
    for byte in b"\x20\x03\x00\x00\x00" + b"\xe0\x00":
        events += client.receive_data(bytes([byte]))
    assert events == [Connack(False, 0, {}), PacketReceived(14)]
    assert client.disconnect() == b"\xe0\x00"
    with pytest.raises(ProtocolError, match="second CONNACK"):
        client.receive_data(b"\x20\x03\x00\x00\x00")


def test_client_rejects_a_non_connack_answer():
    client = MqttClient(protocol_level=4)
    client.connect("c")
    with pytest.raises(ProtocolError, match="answered CONNECT with MQTT packet type 13"):
        client.receive_data(b"\xd0\x00")


@pytest.mark.parametrize(
    ("value", "wire"),
    [(0, b"\x00"), (127, b"\x7f"), (128, b"\x80\x01"), (16383, b"\xff\x7f"), (268_435_455, b"\xff\xff\xff\x7f")],
)
def test_variable_byte_integer_examples_from_the_spec(value, wire):
    assert encode_varint(value) == wire
