"""First-bytes detection, case by case from the broker's isProtocol() implementations."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.detect import (
    FALLBACK_PROTOCOL,
    NEEDED,
    UnexpectedProxyHeader,
    detect_on_acceptor,
    detect_protocol,
    is_http,
    need_more,
)


@pytest.mark.parametrize(
    ("first", "expected"),
    [
        (b"AMQP\x00\x01\x00\x00", "AMQP"),
        (b"AMQP\x03\x01\x00\x00", "AMQP"),  # SASL header
        (b"ARTEMIS\x00\x00\x00\x15", "CORE"),
        # MQTT 3.1.1/5 CONNECT: 0x10, remaining length, 0x00 0x04 "MQTT"
        (b"\x10\x1a\x00\x04MQTT", "MQTT"),
        (b"\x10\xff\x01\x00\x04MQT", "MQTT"),  # two-byte remaining length
        (b"\x10\x80\x80\x01\x00\x04MQ", "MQTT"),  # three-byte remaining length
        (b"\x10\x1a\x00\x06MQIs", "MQTT"),  # MQTT 3.1 "MQIsdp"
        (b"\x10\x1a\x00\x05abcd", "MQTT"),  # other name lengths are not checked by the broker
        (b"\x10\x1a\x00\x04MXTT", None),
        (b"\x10\x1a\x01\x04MQTT", None),  # length MSB must be 0
        (b"\x20\x1a\x00\x04MQTT", None),  # CONNACK, not CONNECT
        (b"\x10\x80\x80\x80\x80\x00\x04M", None),  # remaining length longer than 4 bytes
        (b"\x00\x00\x01\x06\x01Act", "OPENWIRE"),
        (b"\x00\x00\x01\x06\x01ActiveMQ", "OPENWIRE"),
        (b"\x00\x00\x01\x06\x02Act", None),
        (b"\x00\x00\x01\x06\x01Acx", None),
        (b"CONNECT\n", "STOMP"),
        (b"STOMP\naccept", "STOMP"),
        (b"GET / HTTP/1.1", None),
        (b"HORNETQ\x00", None),
        (b"\x00" * 8, None),
    ],
)
def test_detection(first: bytes, expected: str | None) -> None:
    assert detect_protocol(first) == expected


def test_needs_eight_bytes() -> None:
    assert NEEDED == 8
    assert need_more(b"AMQP") and need_more(b"ARTEMIS")
    assert not need_more(b"ARTEMIS\x00")
    with pytest.raises(ValueError):
        detect_protocol(b"AMQP")


def test_http_prefixes_are_recognised() -> None:
    assert is_http(b"POST /x HTTP/1.1") and is_http(b"OPTIONS ")
    assert not is_http(b"CONNECT\n")  # CONNECT stays STOMP


@pytest.mark.parametrize("first", [b"PROXY TCP4 1.2.3.4", b"\r\n\r\n\x00\r\nQUIT\n"])
def test_proxy_header_closes(first: bytes) -> None:
    with pytest.raises(ProtocolError):
        detect_protocol(first)


def test_mqtt_probe_reading_past_the_window_closes() -> None:
    with pytest.raises(ProtocolError):
        detect_protocol(b"\x10\x80\x80\x80\x01\x00\x04M")


def test_a_real_size_prefixed_wireformat_info() -> None:
    body = b"\x01ActiveMQ" + struct.pack(">i", 12)
    assert detect_protocol(struct.pack(">i", len(body)) + body) == "OPENWIRE"


def test_fallback_is_core() -> None:
    assert FALLBACK_PROTOCOL == "CORE"


@given(st.binary(min_size=0, max_size=64))
def test_fuzz_only_documented_outcomes(data: bytes) -> None:
    if need_more(data):
        with pytest.raises(ValueError):
            detect_protocol(data)
        return
    try:
        result = detect_protocol(data)
    except ProtocolError:
        return
    assert result in (None, "AMQP", "CORE", "MQTT", "OPENWIRE", "STOMP")
    assert detect_protocol(data[:NEEDED] + b"tail") == result  # only the first 8 bytes count


# --- one acceptor's managers only (ProtocolHandler's loop over the acceptor's protocol map) ---------
MQTT_AND_OPENWIRE = b"\x10\x00\x00\x05\x01Act"  # a CONNECT probe with name length 5 *and* a WireFormatInfo


@pytest.mark.parametrize(
    ("first", "protocols", "expected"),
    [
        (b"AMQP\x00\x01\x00\x00", None, "AMQP"),
        (b"HORNETQ\x00", None, "HORNETQ"),  # HornetQProtocolManager.isProtocol
        (b"HORNETQ\x00", ("CORE",), "CORE"),  # CORE alone takes it without a handshake... as a frame
        (b"\x00\x00\x00\x15\x1f\x00\x00\x00", None, "HORNETQ"),  # headerless: HORNETQ accepts no handshake
        (b"\x00\x00\x00\x15\x1f\x00\x00\x00", ("CORE", "AMQP"), "CORE"),  # no HORNETQ: CORE by default
        (b"\x10\x1a\x00\x04MQTT", ("AMQP",), "CORE"),  # MQTT is not asked: the CORE fallback (unserved)
        (b"AMQP\x00\x01\x00\x00", ("MQTT", "CORE"), "CORE"),
        (MQTT_AND_OPENWIRE, None, "MQTT"),  # a JVM's ConcurrentHashMap asks MQTT before OPENWIRE
        (MQTT_AND_OPENWIRE, ("OPENWIRE",), "OPENWIRE"),
        (b"GET / HTTP/1.1", ("AMQP",), None),  # HTTP comes before the managers
    ],
)
def test_detection_on_an_acceptor(first: bytes, protocols: tuple[str, ...] | None, expected: str | None) -> None:
    assert detect_on_acceptor(first, protocols) == expected


def test_the_mqtt_probe_only_closes_when_the_acceptor_serves_mqtt() -> None:
    past_the_window = b"\x10\x80\x80\x80\x01\x00\x04M"
    with pytest.raises(ProtocolError):
        detect_on_acceptor(past_the_window, ("MQTT",))
    assert detect_on_acceptor(past_the_window, ("AMQP", "HORNETQ")) == "HORNETQ"
    with pytest.raises(ProtocolError):
        detect_on_acceptor(b"PROXY TCP4 1.2.3.4", ("AMQP",))


OPENINGS = [b"", b"AMQP", b"ARTEMIS", b"HORNETQ", b"\x10", b"\x10\x00\x00\x05\x01Act", b"CONNECT", b"STOMP",
            b"GET ", b"PROX", b"\r\n\r\n", b"\x00\x00\x01\x06\x01Act"]


@given(st.builds(lambda head, tail: (head + tail).ljust(NEEDED, b"\x00"), st.sampled_from(OPENINGS),
                 st.binary(max_size=12)))
def test_every_manager_in_the_brokers_order_is_detect_protocols_answer(data: bytes) -> None:
    """detect_on_acceptor(None) takes detect_protocol's quick path: the same as asking all six."""
    every = ("AMQP", "CORE", "HORNETQ", "MQTT", "OPENWIRE", "STOMP")
    try:
        expected = detect_on_acceptor(data, every)
    except ProtocolError:
        with pytest.raises(ProtocolError):
            detect_on_acceptor(data, None)
        return
    assert detect_on_acceptor(data, None) == expected


def test_inside_a_websocket_http_is_not_looked_for_and_a_proxy_header_is_still_refused() -> None:
    """``new ProtocolDecoder(false, false)`` on frame payloads: HTTP-looking bytes go to the managers."""
    assert detect_on_acceptor(b"GET / HTTP/1.1", None, http=False) == "HORNETQ"
    assert detect_on_acceptor(b"GET / HTTP/1.1", ("AMQP", "CORE"), http=False) == "CORE"
    assert detect_on_acceptor(b"\x10\x1a\x00\x04MQTT", None, http=False) == "MQTT"
    with pytest.raises(UnexpectedProxyHeader):
        detect_on_acceptor(b"PROXY TCP4 1.2.3.4", None, http=False)
