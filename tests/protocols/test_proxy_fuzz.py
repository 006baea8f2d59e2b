"""Fuzzing the PROXY header decoder: any input raises ProtocolError or nothing, always ends, holds no
more than the header limits, and the result never depends on how a short header was split."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.proxy import (
    V1_MAX_LENGTH,
    V2_MAX_LENGTH,
    V2_SIGNATURE,
    ProxyHeaderDecoder,
    ProxyState,
    build_v1_header,
    build_v2_header,
)
from tests.protocols.mutation import mutated

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

HEADERS = [
    build_v1_header(),
    build_v1_header("TCP6", "2001:db8::1", "::1", 1, 65535),
    build_v1_header("UNKNOWN"),
    build_v2_header(),
    build_v2_header("TCP6", "::1", "fe80::2", tlvs=[(0x20, b"\x01" + bytes(4) + b"\x21\x00\x03TLS"), (0x05, b"id")]),
    build_v2_header("UNIX_STREAM", "/a", "/b"),
    build_v2_header(command="LOCAL"),
]


def drive(data: bytes, cuts: list[int]) -> tuple[str, object]:
    """Feed ``data`` in pieces; returns ("header", event with everything after it) or ("error"/"more", None)."""
    decoder = ProxyHeaderDecoder()
    bounds = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    try:
        for start, end in zip(bounds, bounds[1:], strict=False):
            header = decoder.receive_data(data[start:end])
            if header is not None:
                assert decoder.state is ProxyState.DONE
                assert header.remote_address.endswith(f":{header.source_port}")
                return "header", (header.version, header.remote_address, header.proxy_address, header.tlvs,
                                  header.remaining + data[end:])
            limit = V1_MAX_LENGTH if not data.startswith(V2_SIGNATURE) else V2_MAX_LENGTH
            assert decoder.buffered <= limit
        return "more", None
    except ProtocolError:
        assert decoder.state is ProxyState.FAILED
        assert decoder.buffered == 0
        return "error", None


@FUZZ
@given(st.sampled_from([b"", b"PROXY ", b"PROXY TCP4 ", V2_SIGNATURE, V2_SIGNATURE + b"\x21\x11"]),
       st.binary(max_size=300), st.lists(st.integers(0, 300), max_size=4))
def test_random_bytes_after_each_prefix(prefix, data, cuts):
    drive(prefix + data, cuts)


@FUZZ
@given(mutated(HEADERS), st.binary(max_size=8), st.lists(st.integers(0, 200), max_size=4))
def test_mutated_headers(header, after, cuts):
    outcome, result = drive(header + after, cuts)
    if outcome == "header":
        assert result is not None


@FUZZ
@given(mutated(HEADERS), st.lists(st.integers(0, 200), max_size=6))
def test_split_does_not_change_a_short_header(header, cuts):
    """Below the v1 line limit, chunking cannot matter (above it, Netty's own quirk makes it matter)."""
    one_piece = drive(header, [])
    if len(header) <= V1_MAX_LENGTH:
        assert drive(header, cuts) == one_piece


def test_unmutated_headers_are_valid():
    for header in HEADERS:
        assert drive(header, [])[0] == "header"


@FUZZ
@given(st.sampled_from(HEADERS), st.binary(min_size=1, max_size=64))
def test_safe_read_size_never_reads_past_the_header(header, after):
    """What TLS after a header needs (serve's proxy_gate): reading ``safe_read_size()`` bytes at a time
    ends exactly at the header's last byte, whatever follows it."""
    decoder = ProxyHeaderDecoder()
    stream = header + after
    pos = 0
    while True:
        size = decoder.safe_read_size()
        assert size >= 1 and pos + size <= len(header)
        received = decoder.receive_data(stream[pos:pos + size])
        pos += size
        if received is not None:
            assert pos == len(header) and received.remaining == b""
            return


@FUZZ
@given(mutated(HEADERS), st.binary(max_size=8))
def test_safe_read_size_on_broken_headers_always_ends(header, after):
    """Reading by ``safe_read_size`` ends on any input: a header, an error, or the end of the bytes."""
    decoder = ProxyHeaderDecoder()
    stream = header + after
    pos = 0
    try:
        while pos < len(stream):
            size = decoder.safe_read_size()
            assert size >= 1
            if decoder.receive_data(stream[pos:pos + size]) is not None:
                return
            pos += size
    except ProtocolError:
        assert decoder.state is ProxyState.FAILED
