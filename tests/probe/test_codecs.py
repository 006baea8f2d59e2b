"""Sans-IO parts of the probe: the broadcast datagram, Jolokia request/answer, the readiness rule."""

from __future__ import annotations

import json
import struct

import pytest

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.probe import jolokia, readiness
from artemis_routing_cli.probe.broadcast import (
    Broadcast,
    connector_flag,
    connector_host,
    connector_port,
    decode_broadcast,
    encode_broadcast,
)
from artemis_routing_cli.probe.model import Check, Credentials, Endpoint, Handshake, Management
from artemis_routing_cli.protocols.core_buffer import NETTY_CONNECTOR_FACTORY, TransportConfig


def java_short_string(text: str) -> bytes:
    """ActiveMQBuffer.writeString for fewer than 9 UTF-16 units: int32 length, then the units."""
    assert len(text) < 9
    return struct.pack(f">i{len(text)}H", len(text), *(ord(c) for c in text))


def java_utf_string(text: str) -> bytes:
    """writeString for 9..4094 ASCII units: int32 length, u16 byte count, the bytes."""
    assert 9 <= len(text) < 0xFFF
    data = text.encode("ascii")
    return struct.pack(">iH", len(text), len(data)) + data


def test_decodes_a_datagram_built_byte_by_byte_like_broadcast_group_impl():
    factory = NETTY_CONNECTOR_FACTORY
    datagram = (
        java_utf_string("node-aaaa-1") + java_short_string("u1") + struct.pack(">i", 1)
        + java_short_string("netty") + java_utf_string(factory) + struct.pack(">i", 3)
        + java_short_string("host") + b"\x03" + java_short_string("10.0.0.5")
        + java_short_string("port") + b"\x01" + struct.pack(">i", 61617)
        + java_utf_string("sslEnabled") + b"\x00" + b"\xff"
        + b"\x00" * 100  # the receiver reads a 64 KiB buffer: trailing zeros are ignored
    )
    b = decode_broadcast(datagram)
    assert (b.node_id, b.unique_id) == ("node-aaaa-1", "u1")
    [c] = b.connectors
    assert (c.name, c.factory_class_name) == ("netty", factory)
    assert (connector_host(c), connector_port(c), connector_flag(c, "sslEnabled")) == ("10.0.0.5", 61617, True)


def test_round_trip_and_the_last_connector_is_the_one_kept():
    b = Broadcast("n1", "u", (TransportConfig("a", params={"host": "h1", "port": "1"}),
                              TransportConfig("b", params={"host": "h2", "port": "2"})))
    decoded = decode_broadcast(encode_broadcast(b))
    assert decoded == b
    assert decoded.connector is not None and decoded.connector.name == "b"


def test_connector_defaults_are_the_netty_defaults():
    c = TransportConfig("x")
    assert (connector_host(c), connector_port(c), connector_flag(c, "sslEnabled")) == ("localhost", 61616, False)


@pytest.mark.parametrize("data", [
    b"",
    b"\x00\x00\x00\x05ab",  # a string longer than the datagram
    b"\x00\x00\x00\x01\x00a\x00\x00\x00\x01\x00b\xff\xff\xff\xff",  # negative connector count
])
def test_malformed_datagrams_are_protocol_errors(data):
    with pytest.raises(ProtocolError):
        decode_broadcast(data)


def test_jolokia_request_reads_the_broker_mbean_pattern_with_auth_and_origin():
    body = json.loads(jolokia.request_body())
    assert body == {"type": "read", "mbean": "org.apache.activemq.artemis:broker=*",
                    "attribute": ["Active", "NodeID", "ConnectionCount"]}
    url = jolokia.url_for("http://{host}:8161/console/jolokia", Endpoint("b", "broker1", 61616))
    headers = jolokia.request_headers(url, Credentials("u", "p"))
    assert url == "http://broker1:8161/console/jolokia"
    assert headers["Origin"] == "http://broker1:8161"
    assert headers["Authorization"] == "Basic dTpw"


def test_jolokia_answer_for_the_pattern_read():
    answer = {"status": 200, "value": {
        'org.apache.activemq.artemis:broker="b1"': {"Active": True, "NodeID": "n-1", "ConnectionCount": 4}}}
    m = jolokia.parse_response(200, json.dumps(answer).encode())
    assert m == Management(active=True, node_id="n-1", connection_count=4, broker_name="b1")


@pytest.mark.parametrize(("status", "body", "fragment"), [
    (401, b"", "HTTP 401"),
    (200, b'{"status": 403, "error": "Origin null is not allowed"}', "Jolokia error 403"),
    (200, b'{"status": 200, "value": {}}', "no broker MBean"),
    (500, b"<html>", "without Jolokia JSON"),
])
def test_jolokia_failures_become_one_line(status, body, fragment):
    m = jolokia.parse_response(status, body)
    assert m.error is not None and fragment in m.error
    assert m.active is None


@pytest.mark.parametrize(("template", "ok"), [
    ("http://{host}:8161/console/jolokia", True),
    ("https://{name}.example:{port}/j", True),
    ("ftp://{host}/", False),
    ("http://{hots}/", False),
    ("http://{host/", False),
])
def test_jolokia_template_check(template, ok):
    assert (jolokia.check_template(template) is None) is ok


OK_HANDSHAKE = Handshake("amqp", True, "open")


@pytest.mark.parametrize(("check", "needs_count", "ready", "via_mgmt"), [
    (Check(False, error="connection refused"), False, False, False),
    (Check(True, 1.0, handshake=Handshake("mqtt", False, "CONNACK 0x86")), False, False, False),
    (Check(True, 1.0, handshake=OK_HANDSHAKE), False, True, False),
    (Check(True, 1.0), False, True, False),
    (Check(True, 1.0, management=Management(active=True, connection_count=3)), True, True, True),
    (Check(True, 1.0, management=Management(active=False, connection_count=3)), False, False, True),
    (Check(True, 1.0, management=Management(active=True)), True, False, True),
    (Check(True, 1.0, management=Management(active=True)), False, True, True),
    (Check(True, 1.0, management=Management(error="HTTP 401")), False, False, True),
])
def test_readiness_rule(check, needs_count, ready, via_mgmt):
    verdict = readiness.judge(check, needs_connection_count=needs_count)
    assert (verdict.ready, verdict.via_management) == (ready, via_mgmt)
    if not via_mgmt and ready:
        assert "without the management API" in verdict.reason


def test_only_least_connections_needs_the_connection_count():
    assert readiness.policy_needs_connection_count("LEAST_CONNECTIONS")
    assert not readiness.policy_needs_connection_count("ROUND_ROBIN")
    assert not readiness.policy_needs_connection_count(None)


def test_masked_passwords_are_not_sent_and_not_shown():
    creds = Credentials("router", "ENC(-5a2376c61c668aaf)")
    assert creds.masked and creds.usable() == Credentials("router", None)
    assert "5a23" not in repr(Credentials("router", "ENC(-5a2376c61c668aaf)"))
