"""The fast path's one-pass hello readers (protocols/mqtt_quick.py, amqp_quick.py) against the full
codecs, the reference: on valid, random and mutated bytes, whatever a quick reader accepts the codec
decodes to the same facts, and nothing the codec refuses is accepted."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.amqp import (
    AMQP_HEADER,
    AmqpServer,
    Open,
    OpenReceived,
    ProtocolHeaderReceived,
    encode_open,
)
from artemis_routing_cli.protocols.amqp_quick import SHORT_OPEN_HEADS, QuickOpen, quick_open
from artemis_routing_cli.protocols.mqtt import (
    PROTOCOL_LEVEL_311,
    USER_PROPERTY,
    ConnectReceived,
    MqttServer,
    build_connect,
)
from artemis_routing_cli.protocols.mqtt_quick import CLEAN_5_HEADS, QuickConnect, quick_connect
from tests.protocols.mutation import mutated

FUZZ = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MQTT_LIMIT = 4096
AMQP_LIMIT = 4096

CONNECTS = [
    build_connect("cid"),
    build_connect("cid", username="u", password="p"),
    build_connect("", clean_start=False),
    build_connect("x" * 200, username="é" * 70, password=b"\xff" * 3),  # two-byte remaining length
    build_connect("cid", protocol_level=PROTOCOL_LEVEL_311, username="u"),
    build_connect("cid", protocol_level=PROTOCOL_LEVEL_311, password="p"),
    build_connect("c", protocol_level=3),  # MQTT 3.1: the codec's
    build_connect("cid", properties={USER_PROPERTY: [("k", "v")]}),  # properties: the codec's
    b"\x10\x15\x00\x04MQTT\x05\x0e\x00\x00\x00\x00\x01c\x00\x00\x01t\x00\x01m",  # a will: the codec's
]
# the quick shape: these must be read by the quick reader (the serve bench's and the clients' usual hello)
QUICK_CONNECTS = CONNECTS[:6]


def _open(container_id: str, hostname: str | None = None) -> bytes:
    return AMQP_HEADER + encode_open(Open(container_id, hostname))


def _list32_open(container_id: bytes, hostname: bytes | None) -> bytes:
    """A short Open written with list32 and str32 (what some encoders do)."""
    items = b"\xb1" + len(container_id).to_bytes(4, "big") + container_id
    count = 1
    if hostname is not None:
        items += b"\xb1" + len(hostname).to_bytes(4, "big") + hostname
        count = 2
    body = b"\x00\x53\x10\xd0" + (4 + len(items)).to_bytes(4, "big") + count.to_bytes(4, "big") + items
    return AMQP_HEADER + (8 + len(body)).to_bytes(4, "big") + b"\x02\x00\x00\x00" + body


OPENS = [
    _open("bench-1"),
    _open("c" * 300),  # str32
    _open("cid", "broker.example"),
    _open(""),
    _list32_open(b"cid", None),
    _list32_open(b"cid", b"host"),
    AMQP_HEADER + encode_open(Open("cid", max_frame_size=1024, channel_max=7)),  # the codec's
    AMQP_HEADER + encode_open(Open("cid", properties={"k": "v"})),  # the codec's
]
QUICK_OPENS = OPENS[:6]


def full_connect(data: bytes) -> QuickConnect | None:
    """The codec's reading of ``data`` as the fast path uses it; None when it refuses or it is no
    single CONNECT."""
    try:
        events = MqttServer(max_packet_size=MQTT_LIMIT).receive_data(data)
    except ProtocolError:
        return None
    if len(events) != 1 or not isinstance(events[0], ConnectReceived):
        return None
    event = events[0]
    return QuickConnect(event.protocol_level, event.clean_start, event.client_id, event.username)


def full_open(data: bytes) -> QuickOpen | None:
    try:
        events = AmqpServer(max_frame_size=AMQP_LIMIT).receive_data(data)
    except ProtocolError:
        return None
    if (len(events) != 2 or not isinstance(events[0], ProtocolHeaderReceived) or events[0].sasl
            or not isinstance(events[1], OpenReceived)):
        return None
    return QuickOpen(events[1].container_id, events[1].hostname)


def check_mqtt(data: bytes) -> None:
    quick = quick_connect(data, MQTT_LIMIT)
    if quick is not None:
        assert quick == full_connect(data)


def check_amqp(data: bytes) -> None:
    quick = quick_open(data, AMQP_LIMIT)
    if quick is not None:
        assert quick == full_open(data)


@pytest.mark.parametrize("data", QUICK_CONNECTS)
def test_the_plain_connects_are_read_quickly_and_as_the_codec_reads_them(data: bytes) -> None:
    quick = quick_connect(data, MQTT_LIMIT)
    assert quick is not None
    assert quick == full_connect(data)


@pytest.mark.parametrize("data", CONNECTS[6:])
def test_other_connects_are_left_to_the_codec(data: bytes) -> None:
    assert full_connect(data) is not None
    assert quick_connect(data, MQTT_LIMIT) is None


def test_a_connect_over_the_limit_or_with_more_bytes_is_left_to_the_codec() -> None:
    data = build_connect("cid")
    assert quick_connect(data, len(data) - 3) is None  # the remaining length is over the limit
    assert quick_connect(data + b"\xc0\x00", MQTT_LIMIT) is None  # a PINGREQ behind it
    assert quick_connect(data[:-1], MQTT_LIMIT) is None


@pytest.mark.parametrize("data", QUICK_OPENS)
def test_the_short_opens_are_read_quickly_and_as_the_codec_reads_them(data: bytes) -> None:
    quick = quick_open(data, AMQP_LIMIT)
    assert quick is not None
    assert quick == full_open(data)


@pytest.mark.parametrize("data", OPENS[6:])
def test_other_opens_are_left_to_the_codec(data: bytes) -> None:
    assert full_open(data) is not None
    assert quick_open(data, AMQP_LIMIT) is None


def test_an_open_over_the_frame_limit_or_with_more_bytes_is_left_to_the_codec() -> None:
    data = _open("cid")
    assert quick_open(data, len(data) - 9) is None
    assert quick_open(data, 0) is not None  # 0: no limit
    assert quick_open(data + b"\x00\x00\x00\x08\x02\x00\x00\x00", AMQP_LIMIT) is None  # an empty frame behind it
    assert quick_open(data[:-1], AMQP_LIMIT) is None


def test_invalid_utf8_in_an_amqp_string_is_left_to_the_codec_which_refuses_it() -> None:
    data = _list32_open(b"\xff\xfe", None)
    assert full_open(data) is None
    assert quick_open(data, AMQP_LIMIT) is None


@FUZZ
@given(mutated(CONNECTS))
def test_mutated_connects_read_quickly_equal_the_codec(data: bytes) -> None:
    check_mqtt(data)


@FUZZ
@given(st.binary(max_size=64).map(lambda tail: b"\x10" + bytes([len(tail)]) + tail))
def test_random_connect_bodies_read_quickly_equal_the_codec(data: bytes) -> None:
    check_mqtt(data)


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_read_quickly_equal_the_mqtt_codec(data: bytes) -> None:
    check_mqtt(data)


@FUZZ
@given(mutated(OPENS))
def test_mutated_opens_read_quickly_equal_the_codec(data: bytes) -> None:
    check_amqp(data)


@FUZZ
@given(st.binary(max_size=64).map(
    lambda tail: AMQP_HEADER + (15 + len(tail)).to_bytes(4, "big") + b"\x02\x00\x00\x00\x00\x53\x10" + tail))
def test_random_open_bodies_read_quickly_equal_the_codec(data: bytes) -> None:
    check_amqp(data)


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_read_quickly_equal_the_amqp_codec(data: bytes) -> None:
    check_amqp(data)


def _random_id(rng: random.Random, n: int, valid: bool) -> bytes:
    """``n`` bytes: valid UTF-8 (some two-byte characters), or random bytes."""
    if not valid:
        return bytes(rng.randrange(256) for _ in range(n))
    text = ""
    while len(text.encode("utf-8")) < n:
        text += rng.choice("abcXYZ019-_.\u00e9") if n - len(text.encode("utf-8")) >= 2 else "a"
    return text.encode("utf-8")


def test_the_commonest_connect_of_every_size_is_read_by_its_head_as_the_codec_reads_it() -> None:
    """``CLEAN_5_HEADS``: the commonest CONNECT (MQTT 5, clean start, a client id only) by its size, what
    ``build_connect`` writes for it; read with two comparisons, as the codec reads it, and its limit kept."""
    rng = random.Random(21)
    for n in range(0, 115):
        for valid in (True, False):
            client_id = _random_id(rng, n, valid)
            data = build_connect("x" * n, keep_alive=rng.randrange(65536))
            data = data[:15] + client_id
            assert data[:10] == CLEAN_5_HEADS[len(data)][0] and data[12:15] == CLEAN_5_HEADS[len(data)][1]
            quick = quick_connect(data, MQTT_LIMIT)
            assert quick is not None and quick == full_connect(data)
            assert quick_connect(data, len(data) - 3) is None  # over the packet limit: the codec's
            for flags in (0x00, 0x80, 0x04, 0x03):  # other flags: the general read or the codec
                other = data[:9] + bytes((flags,)) + data[10:]
                check_mqtt(other)


def test_the_commonest_open_of_every_size_is_read_by_its_head_as_the_codec_reads_it() -> None:
    """``SHORT_OPEN_HEADS``: the commonest hello (header, an Open of a str8 container-id only) by its
    size, what ``encode_open`` writes for it; read with one comparison, as the codec reads it (invalid
    UTF-8: refused by both), and the frame limit kept."""
    rng = random.Random(21)
    for n in range(0, 253):
        for valid in (True, False):
            container_id = _random_id(rng, n, valid)
            data = _open("x" * n)
            data = data[:24] + container_id
            assert data[:24] == SHORT_OPEN_HEADS[len(data)]
            quick = quick_open(data, AMQP_LIMIT)
            assert quick == full_open(data)
            assert (quick is None) == (not valid and full_open(data) is None)
            assert quick_open(data, len(data) - 9) is None  # over the frame limit: the codec's
            assert quick_open(data, 0) == quick  # 0: no limit
