"""Byte-level tests of the PROXY protocol decoder: headers from the spec (haproxy's proxy-protocol.txt)
and built by hand, checked against what Netty's HAProxyMessage hands the broker."""

from __future__ import annotations

import dataclasses
import struct

import pytest

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.detect import detect_protocol, is_http
from artemis_routing_cli.protocols.proxy import (
    V1_MAX_LENGTH,
    V2_MAX_LENGTH,
    V2_SIGNATURE,
    ProxyHeaderDecoder,
    ProxyHeaderReceived,
    ProxyState,
    ProxyTlv,
    build_v1_header,
    build_v2_header,
    is_valid_ipv4,
    is_valid_ipv6,
)
from artemis_routing_cli.protocols.websocket import (
    BINARY,
    DataReceived,
    Upgraded,
    WebSocketServer,
    build_upgrade_request,
    client_frame,
)
from artemis_routing_cli.routing.keys import source_ip_key

AMQP = b"AMQP\x00\x01\x00\x00"


def decode(data: bytes) -> ProxyHeaderReceived:
    decoder = ProxyHeaderDecoder()
    header = decoder.receive_data(data)
    assert header is not None, "header incomplete"
    assert decoder.state is ProxyState.DONE
    return header


def decode_bytewise(data: bytes) -> ProxyHeaderReceived:
    decoder = ProxyHeaderDecoder()
    for i in range(len(data)):
        header = decoder.receive_data(data[i : i + 1])
        if header is not None:
            return dataclasses.replace(header, remaining=header.remaining + data[i + 1 :])
        assert decoder.buffered <= V2_MAX_LENGTH
    raise AssertionError("header never completed")


def refused(data: bytes, match: str | None = None) -> None:
    decoder = ProxyHeaderDecoder()
    with pytest.raises(ProtocolError, match=match):
        decoder.receive_data(data)
    assert decoder.state is ProxyState.FAILED
    with pytest.raises(ProtocolError):
        decoder.receive_data(b"more")


# --- v1 -------------------------------------------------------------------------------------


def test_v1_tcp4_spec_example():
    header = decode(b"PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n" + AMQP)
    assert (header.version, header.command, header.protocol) == ("V1", "PROXY", "TCP4")
    assert header.remote_address == "192.168.0.1:56324"
    assert header.proxy_address == "192.168.0.11:443"
    assert header.remaining == AMQP
    assert header.header_length == len(b"PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n")
    assert source_ip_key(header.remote_address) == "192.168.0.1"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("2001:DB8::1", "2001:DB8::1"),  # kept as written: no lower-casing, no expansion
        ("::1", "::1"),
        ("0:0:0:0:0:0:0:1", "0:0:0:0:0:0:0:1"),
        ("[::1]", "[::1]"),  # NetUtil accepts brackets
        ("fe80::1%eth0", "fe80::1%eth0"),  # ... and a scope
        ("::ffff:192.0.2.1", "::ffff:192.0.2.1"),
    ],
)
def test_v1_tcp6_addresses_are_kept_as_written(source, expected):
    header = decode(build_v1_header("TCP6", source, "::2", 1234, 61616))
    assert header.source_address == expected
    assert header.remote_address == f"{expected}:1234"
    # the broker's SOURCE_IP key cuts at the last colon, so it sees the address as written
    assert source_ip_key(header.remote_address) == expected


def test_v1_ipv4_with_leading_zeros_is_kept():
    header = decode(build_v1_header("TCP4", "010.001.000.001", "10.0.0.2"))
    assert header.remote_address == "010.001.000.001:56324"


@pytest.mark.parametrize(
    "line", [b"PROXY UNKNOWN\r\n", b"PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535\r\n"]
)
def test_v1_unknown_has_no_addresses(line):
    header = decode(line + AMQP)
    assert (header.protocol, header.source_address, header.source_port) == ("UNKNOWN", None, 0)
    assert header.remote_address == "null:0"  # Java: null + ":" + 0
    assert header.proxy_address == "null:0"
    assert header.remaining == AMQP


@pytest.mark.parametrize(("text", "port"), [("+80", 80), ("080", 80), ("65535", 65535), ("1", 1)])
def test_v1_ports_are_parsed_as_java_integers(text, port):
    header = decode(f"PROXY TCP4 1.2.3.4 5.6.7.8 {text} {text}\r\n".encode())
    assert (header.source_port, header.destination_port) == (port, port)
    assert header.remote_address == f"1.2.3.4:{port}"


def test_v1_trailing_space_is_dropped_like_java_split():
    assert decode(b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2 \r\n").destination_port == 2


@pytest.mark.parametrize(
    "line",
    [
        b"PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n",  # 5 parts
        b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n",  # 7 parts
        b"PROXY  TCP4 1.2.3.4 5.6.7.8 1 2\r\n",  # an empty part
        b"PROXY TCP4 1.2.3.4 5.6.7.8 0 2\r\n",  # port 0 (v2 allows it, v1 does not)
        b"PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n",
        b"PROXY TCP4 1.2.3.4 5.6.7.8 -1 2\r\n",
        b"PROXY TCP4 1.2.3.4 5.6.7.8 8a 2\r\n",
        b"PROXY TCP4 256.2.3.4 5.6.7.8 1 2\r\n",
        b"PROXY TCP4 ::1 5.6.7.8 1 2\r\n",  # the family must match
        b"PROXY TCP6 1.2.3.4 ::1 1 2\r\n",
        b"PROXY TCP6 1::2::3 ::1 1 2\r\n",
        b"PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n",  # a valid name, but not for v1
        b"PROXY tcp4 1.2.3.4 5.6.7.8 1 2\r\n",  # enum names are case-sensitive
        b"PROXY\r\n\r\n\r\n\r\n\r\n\r\n",
        b"PROXYTCP4 1.2.3.4 5.6.7.8 1 2\r\n",
        b"\r\n\r\nPROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n",  # v2's first 4 bytes, then not v2: an empty line
    ],
)
def test_v1_malformed_lines(line):
    refused(line)


def test_v1_line_limit_and_its_chunking_quirk():
    line = b"PROXY UNKNOWN " + b"x" * (V1_MAX_LENGTH - 14)
    assert len(line) == V1_MAX_LENGTH
    assert decode(line + b"\r\n").protocol == "UNKNOWN"  # 108 bytes before CRLF, in one read: accepted
    with pytest.raises(ProtocolError, match="exceeds the allowed maximum"):
        ProxyHeaderDecoder().receive_data(line + b"\r")  # 109 bytes held without CRLF: Netty gives up
    refused(line + b"x\r\n", "exceeds")
    shorter = line[:-1] + b"\r\n"
    assert decode_bytewise(shorter).protocol == "UNKNOWN"  # 107 + CRLF is fine in any chunking


def test_v1_lone_lf_is_not_a_line_end():
    decoder = ProxyHeaderDecoder()
    assert decoder.receive_data(b"PROXY UNKNOWN\n") is None
    with pytest.raises(ProtocolError):
        decoder.receive_data(b"x" * V1_MAX_LENGTH)


def test_v1_fed_byte_by_byte():
    data = build_v1_header("TCP6", "::1", "::1", 40000, 5672) + AMQP
    assert decode_bytewise(data) == decode(data)
    assert decode_bytewise(data).remaining == AMQP


# --- the enforcer ---------------------------------------------------------------------------


@pytest.mark.parametrize("opening", [b"GET / HTTP/1.1\r\n", AMQP, b"PROX"[:3] + b"Z", b"\r\n\r\t"])
def test_no_proxy_header_is_refused_after_four_bytes(opening):
    decoder = ProxyHeaderDecoder()
    assert decoder.receive_data(opening[:3]) is None
    with pytest.raises(ProtocolError, match="did not start with a PROXY"):
        decoder.receive_data(opening[3:4])


def test_waits_for_thirteen_bytes_before_choosing_a_version():
    decoder = ProxyHeaderDecoder()
    assert decoder.receive_data(V2_SIGNATURE) is None  # 12 bytes
    assert decoder.state is ProxyState.READING


# --- v2 -------------------------------------------------------------------------------------


def test_v2_tcp4():
    header = decode(build_v2_header("TCP4", "192.0.2.1", "198.51.100.7", 56324, 61616) + AMQP)
    assert (header.version, header.command, header.protocol) == ("V2", "PROXY", "TCP4")
    assert header.remote_address == "192.0.2.1:56324"
    assert header.proxy_address == "198.51.100.7:61616"
    assert header.remaining == AMQP
    assert header.header_length == 16 + 12


@pytest.mark.parametrize(
    ("source", "rendered"),
    [
        ("2001:db8::1", "2001:db8:0:0:0:0:0:1"),  # Netty's ipBytesToString: no zero compression
        ("::1", "0:0:0:0:0:0:0:1"),
        ("::", "0:0:0:0:0:0:0:0"),
        ("::ffff:1.2.3.4", "0:0:0:0:0:ffff:102:304"),  # no dotted tail either
        ("FE80::ABCD", "fe80:0:0:0:0:0:0:abcd"),  # lower-case hex, no leading zeros
    ],
)
def test_v2_ipv6_rendering(source, rendered):
    header = decode(build_v2_header("TCP6", source, "::1", 5000, 0))
    assert header.remote_address == f"{rendered}:5000"
    assert header.proxy_address == "0:0:0:0:0:0:0:1:0"  # port 0 passes in v2
    assert source_ip_key(header.remote_address) == rendered


def test_v2_udp_is_accepted_like_tcp():
    header = decode(build_v2_header("UDP4", "10.0.0.1", "10.0.0.2", 1, 2))
    assert (header.protocol, header.remote_address) == ("UDP4", "10.0.0.1:1")


def test_v2_unix_addresses():
    header = decode(build_v2_header("UNIX_STREAM", "/run/client.sock", "/run/broker\xe9.sock"))
    assert header.remote_address == "/run/client.sock:0"
    assert header.proxy_address == "/run/broker\xe9.sock:0"  # bytes above 0x7F read as Latin-1
    full = "p" * 108  # no NUL at all: all 108 bytes
    assert decode(build_v2_header("UNIX_DGRAM", full, "")).source_address == full


def test_v2_local_and_unknown_have_no_addresses():
    local = decode(build_v2_header(command="LOCAL") + AMQP)
    assert (local.command, local.protocol, local.remote_address) == ("LOCAL", "UNKNOWN", "null:0")
    assert local.remaining == AMQP
    # a LOCAL header may still carry an address block and TLVs: skipped unread
    block = V2_SIGNATURE + b"\x20\x11" + struct.pack(">H", 15) + bytes(12) + b"\x01\x00\x09"
    assert decode(block + AMQP).remaining == AMQP
    unknown = decode(V2_SIGNATURE + b"\x21\x00" + struct.pack(">H", 3) + b"abc")
    assert (unknown.command, unknown.protocol, unknown.remote_address) == ("PROXY", "UNKNOWN", "null:0")


def test_v2_tlvs_are_read_and_kept():
    ssl = b"\x01" + struct.pack(">I", 0) + b"\x21\x00\x07TLSv1.3" + b"\x22\x00\x02cn"
    header = decode(build_v2_header(tlvs=[(0x01, b"amqp"), (0x02, b"broker.example"), (0x20, ssl),
                                          (0x03, b"\x00\x00\x00\x00"), (0xE0, b"")]) + AMQP)
    # the last TLV has an empty value: 3 bytes, under readNextTLV's 4-byte minimum, so Netty skips it
    assert [t.type for t in header.tlvs] == [0x01, 0x02, 0x20, 0x03]
    assert header.tlvs[1] == ProxyTlv(0x02, b"broker.example")
    assert [(c.type, c.value) for c in header.tlvs[2].children] == [(0x21, b"TLSv1.3"), (0x22, b"cn")]
    assert header.remaining == AMQP


@pytest.mark.parametrize("tail", [b"\x01", b"\x01\x00", b"\x01\x00\x05"])
def test_v2_one_to_three_trailing_bytes_are_ignored(tail):
    body = build_v2_header(tlvs=[(0x04, b"")])
    patched = body[:14] + struct.pack(">H", 15 + len(tail)) + body[16:] + tail + AMQP
    header = decode(patched)
    assert [t.type for t in header.tlvs] == [0x04]
    assert header.remaining == AMQP


def nested_ssl(depth: int) -> bytes:
    """``depth`` SSL TLVs, each inside the previous one, with a NOOP TLV in the innermost."""
    value = b"\x04\x00\x00\x00"  # a NOOP TLV (3 bytes) and one byte, so the innermost has >= 4 bytes
    for _ in range(depth):
        value = b"\x20" + struct.pack(">H", 5 + len(value)) + b"\x01" + bytes(4) + value
    return value


def test_v2_tlv_nesting_limit():
    assert len(nested_ssl(129)) < V2_MAX_LENGTH
    body = build_v2_header()
    for depth, ok in ((128, True), (129, False)):
        tlvs = nested_ssl(depth)
        data = body[:14] + struct.pack(">H", 12 + len(tlvs)) + body[16:] + tlvs
        if ok:
            assert decode(data).tlvs[0].type == 0x20
        else:
            refused(data, "nesting")


@pytest.mark.parametrize(
    ("tlvs", "match"),
    [
        (b"\x01\x00\x09abc", "runs past"),  # longer than what is left
        (b"\x20\x00\x04" + bytes(4), "SSL TLV"),  # no room for client and verify
        (b"\x20\x00\x09" + b"\x01" + bytes(4) + b"\x21\x00\x05x", "runs past"),  # inner TLV overruns the SSL one
    ],
)
def test_v2_bad_tlvs(tlvs, match):
    body = build_v2_header()
    refused(body[:14] + struct.pack(">H", 12 + len(tlvs)) + body[16:] + tlvs, match)


@pytest.mark.parametrize(
    ("ver_cmd", "family", "length", "match"),
    [
        (0x11, 0x11, 12, "version 1"),
        (0x31, 0x11, 12, "version"),
        (0x22, 0x11, 12, "command"),
        (0x21, 0x13, 12, "address family"),
        (0x21, 0x41, 12, "address family"),
        (0x21, 0x11, 8, "IPv4"),
        (0x21, 0x21, 20, "IPv6"),
        (0x21, 0x31, 200, "UNIX"),
    ],
)
def test_v2_malformed(ver_cmd, family, length, match):
    refused(V2_SIGNATURE + bytes([ver_cmd, family]) + struct.pack(">H", length) + bytes(length), match)


def test_v2_version_byte_one_is_read_as_a_text_line():
    refused(V2_SIGNATURE + b"\x01\x11\x00\x0c" + bytes(12))


def test_v2_largest_header():
    tlv = (0xEE, bytes(0xFFFF - 12 - 3))
    data = build_v2_header(tlvs=[tlv])
    assert len(data) == V2_MAX_LENGTH
    header = decode_bytewise(data + b"x")
    assert header.header_length == V2_MAX_LENGTH
    assert header.remaining == b"x"


def test_v2_fed_byte_by_byte_and_in_one_piece_agree():
    data = build_v2_header("TCP6", "2001:db8::7", "2001:db8::8", 1, 2, tlvs=[(0x05, b"id")]) + AMQP
    assert decode_bytewise(data) == decode(data)


# --- after the header -----------------------------------------------------------------------


def test_decoder_is_done_after_the_header():
    decoder = ProxyHeaderDecoder()
    decoder.receive_data(build_v1_header())
    assert decoder.header is not None
    with pytest.raises(RuntimeError):
        decoder.receive_data(AMQP)


def test_address_validators_spot_checks():
    assert is_valid_ipv4("255.255.255.255") and not is_valid_ipv4("1.2.3")
    assert is_valid_ipv6("::") and is_valid_ipv6("[fe80::1%2]") and not is_valid_ipv6("1:2:3:4:5:6:7:8:9")


def test_layers_proxy_then_websocket_then_inner_protocol():
    """The order serve/ must follow: PROXY header, (TLS,) HTTP upgrade, frames, inner detection."""
    stream = (
        build_v2_header("TCP4", "203.0.113.9", "10.0.0.1", 40000, 61616)
        + build_upgrade_request(subprotocols=["amqp"])
        + client_frame(BINARY, AMQP[:3])
        + client_frame(BINARY, AMQP[3:])
    )
    header = decode(stream)
    assert source_ip_key(header.remote_address) == "203.0.113.9"
    assert is_http(header.remaining[:8])
    events = WebSocketServer().receive_data(header.remaining)
    assert isinstance(events[0], Upgraded)
    assert events[0].subprotocol == "amqp"
    payload = b"".join(e.data for e in events if isinstance(e, DataReceived))
    assert detect_protocol(payload) == "AMQP"
