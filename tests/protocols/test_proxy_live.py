"""The PROXY decoder against a real haproxy over real sockets on loopback.

haproxy listens on a socket this test opened and hands over (``bind fd@N``), so a client can connect
before haproxy has started: no waiting for a port. haproxy then connects to our backend socket and
writes its PROXY header (v1 ``send-proxy`` or v2 ``send-proxy-v2`` with TLVs) before the client's bytes.
Skipped when haproxy is not installed (``apt-get install haproxy``; CI's ``.ci/run`` installs it).
"""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from artemis_routing_cli.protocols.proxy import ProxyHeaderDecoder, ProxyHeaderReceived
from artemis_routing_cli.routing.keys import source_ip_key
from tests.peers import HAPROXY, Haproxy, ipv6_loopback

pytestmark = [
    pytest.mark.network,
    pytest.mark.skipif(HAPROXY is None, reason="haproxy is not installed (apt-get install haproxy)"),
]

#: Guard against a hung peer, not a synchronisation device: a passing test never waits for it.
HANG_GUARD_SECONDS = 20
AMQP = b"AMQP\x00\x01\x00\x00"


@pytest.fixture
def backend() -> Iterator[socket.socket]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)
    sock.settimeout(HANG_GUARD_SECONDS)
    yield sock
    sock.close()


def frontend_socket(family: socket.AddressFamily) -> socket.socket:
    sock = socket.socket(family)
    sock.bind(("::1" if family == socket.AF_INET6 else "127.0.0.1", 0))
    sock.listen(4)
    return sock


def read_header(conn: socket.socket, payload_length: int) -> ProxyHeaderReceived:
    """Decode the header from the backend side, then read until the client's payload is all there."""
    decoder = ProxyHeaderDecoder()
    header = None
    while header is None:
        data = conn.recv(65536)
        assert data, "haproxy closed before the PROXY header was complete"
        header = decoder.receive_data(data)
    rest = header.remaining
    while len(rest) < payload_length:
        data = conn.recv(65536)
        assert data, "haproxy closed before the client's bytes arrived"
        rest += data
    return dataclasses.replace(header, remaining=rest)


def proxied_connection(tmp_path: Path, backend: socket.socket, family: socket.AddressFamily,
                       options: str) -> tuple[ProxyHeaderReceived, tuple[str, int], tuple[str, int]]:
    """One client connection through haproxy; returns the header and the client's and frontend's addresses."""
    frontend = frontend_socket(family)
    haproxy = Haproxy(tmp_path, frontend, f"server s1 127.0.0.1:{backend.getsockname()[1]} {options}")
    try:
        with socket.socket(family) as client:
            client.settimeout(HANG_GUARD_SECONDS)
            client.connect(frontend.getsockname()[:2])  # queued in the backlog until haproxy accepts
            client.sendall(AMQP)
            conn, _ = backend.accept()
            with conn:
                conn.settimeout(HANG_GUARD_SECONDS)
                header = read_header(conn, len(AMQP))
            return header, client.getsockname()[:2], frontend.getsockname()[:2]
    finally:
        haproxy.stop()
        frontend.close()


def test_v1_ipv4(tmp_path, backend):
    header, (chost, cport), (fhost, fport) = proxied_connection(tmp_path, backend, socket.AF_INET, "send-proxy")
    assert (header.version, header.command, header.protocol) == ("V1", "PROXY", "TCP4")
    assert header.remote_address == f"{chost}:{cport}" == f"127.0.0.1:{cport}"
    assert header.proxy_address == f"{fhost}:{fport}"
    assert header.remaining == AMQP


def test_v2_ipv4_with_tlvs(tmp_path, backend):
    header, (_, cport), (_, fport) = proxied_connection(
        tmp_path, backend, socket.AF_INET, "send-proxy-v2 proxy-v2-options crc32c,unique-id"
    )
    assert (header.version, header.command, header.protocol) == ("V2", "PROXY", "TCP4")
    assert header.remote_address == f"127.0.0.1:{cport}"
    assert header.proxy_address == f"127.0.0.1:{fport}"
    tlvs = {tlv.type: tlv.value for tlv in header.tlvs}
    assert 0x03 in tlvs  # PP2_TYPE_CRC32C
    assert tlvs.get(0x05) == f"127.0.0.1:{cport}".encode()  # PP2_TYPE_UNIQUE_ID, from unique-id-format
    assert header.remaining == AMQP
    assert source_ip_key(header.remote_address) == "127.0.0.1"


@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback here")
def test_v1_ipv6_is_kept_as_haproxy_writes_it(tmp_path, backend):
    header, (_, cport), (_, fport) = proxied_connection(tmp_path, backend, socket.AF_INET6, "send-proxy")
    assert header.protocol == "TCP6"
    assert header.remote_address == f"::1:{cport}"  # the text of the line, compressed as haproxy wrote it
    assert header.proxy_address == f"::1:{fport}"
    assert source_ip_key(header.remote_address) == "::1"


@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback here")
def test_v2_ipv6_is_rendered_uncompressed(tmp_path, backend):
    header, (_, cport), _ = proxied_connection(tmp_path, backend, socket.AF_INET6, "send-proxy-v2")
    assert header.protocol == "TCP6"
    assert header.remote_address == f"0:0:0:0:0:0:0:1:{cport}"  # Netty's ipBytesToString
    assert source_ip_key(header.remote_address) == "0:0:0:0:0:0:0:1"


def test_v2_health_check_is_local(tmp_path, backend):
    """haproxy's health checks with check-send-proxy carry a v2 LOCAL header: the broker stores null:0."""
    frontend = frontend_socket(socket.AF_INET)
    haproxy = Haproxy(tmp_path, frontend, f"server s1 127.0.0.1:{backend.getsockname()[1]} "
                                          "send-proxy-v2 check check-send-proxy inter 60s")
    try:
        conn, _ = backend.accept()  # the first check starts as haproxy starts
        with conn:
            conn.settimeout(HANG_GUARD_SECONDS)
            header = read_header(conn, 0)  # a health check sends nothing after its header
    finally:
        haproxy.stop()
        frontend.close()
    assert (header.version, header.command, header.protocol) == ("V2", "LOCAL", "UNKNOWN")
    assert header.remote_address == "null:0"
    assert source_ip_key(header.remote_address) == "null"
