"""Clients ``--users-file`` rejects get the broker's answer for their protocol, byte-exact where the
broker's bytes are fixed: CORE code 105 (connection kept), OpenWire SecurityException (closed 2 s
later), AMQP SASL ANONYMOUS -> unauthorized-access at Open, AMQP without SASL -> SASL header."""

from __future__ import annotations

import socket
import struct

import pytest

from artemis_routing_cli.protocols.amqp import SASL_HEADER, AmqpClient, CloseReceived, OpenReceived
from artemis_routing_cli.routing.targets import state_from_options
from artemis_routing_cli.serve.decide import Peer

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, recv_until_closed
from .test_core_openwire import create_session, frame, nstring, read_frames, utf, wireformat_info

pytestmark = pytest.mark.network

SECURITY_TAIL = "SSL certificate subject DN: unavailable"


@pytest.fixture
def users_file(tmp_path):
    path = tmp_path / "users.properties"
    path.write_text("alice=s3cret\n", encoding="latin-1")
    return str(path)


def core_session_with(user: str | None, password: str | None, client_id: str) -> bytes:
    """create_session() with credentials: the double's frame, user and password spliced in."""
    plain = create_session(client_id)
    body = plain[13:]
    name_len = 4 + 2 + struct.unpack_from(">i", body)[0]  # jstring of a 36-char UUID
    head = body[: name_len + 8 + 4]
    rest = body[name_len + 8 + 4 + 2:]  # skip the two null markers (user, password)
    return frame(-18, 1, head + nstring(user) + nstring(password) + rest)


def test_core_bad_password_gets_the_security_exception_and_may_retry(serve, users_file):
    running = serve(ROUTER_CORE, routers=["by-client"], users_file=users_file, state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(b"ARTEMIS" + core_session_with("alice", "wrong", "FOO1"))
        [rejection] = read_frames(sock, 1)
        local = sock.getsockname()
        message = (f"AMQ229031: Unable to validate user from {local[0]}:{local[1]}. Username: alice; "
                   + SECURITY_TAIL)
        assert rejection == frame(20, 1, struct.pack(">i", 105) + nstring(message))
        # the broker keeps the connection: the same client retries with the right password
        sock.sendall(core_session_with("alice", "s3cret", "FOO1"))
        disconnect, _exception = read_frames(sock, 2)
        assert disconnect[4:5] == struct.pack(">b", -19)
    assert [r["user"] for r in running.records if r["event"] == "auth"] == ["alice"]
    assert [r["key"] for r in running.routes()] == ["FOO1"]
    assert all("wrong" not in str(r) for r in running.records)


def openwire_connection_info(user: str, password: str, fault_tolerant: bool) -> bytes:
    """Tight ConnectionInfo with user and password (the double's layout, activemq-client 5.19)."""
    conn_id, client_id = "ID:host-1-1", "FOO1"
    flags = (True, True, True, True, True, True, True, True, True, True, False, False, True, True,
             fault_tolerant, False, False)
    data = (struct.pack(">i", 1) + b"\x78" + utf(conn_id) + utf(client_id) + utf(password) + utf(user))
    bits = bytearray((len(flags) + 7) // 8)
    for i, flag in enumerate(flags):
        if flag:
            bits[i // 8] |= 1 << (i % 8)
    command = b"\x03" + bytes((len(bits),)) + bytes(bits) + data
    return struct.pack(">i", len(command)) + command


@pytest.mark.parametrize("fault_tolerant", [True, False])
def test_openwire_bad_password_gets_security_exception_before_the_fault_tolerance_check(
        serve, users_file, fault_tolerant):
    running = serve(ROUTER_CORE, routers=["by-client"], users_file=users_file, linger=0.05,
                    state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(wireformat_info() + openwire_connection_info("alice", "wrong", fault_tolerant))
        local = sock.getsockname()
        data = recv_until_closed(sock)
    frames = []
    while data:
        size = struct.unpack_from(">i", data)[0]
        frames.append(data[: 4 + size])
        data = data[4 + size:]
    assert [f[4] for f in frames] == [1, 2, 31]  # WireFormatInfo, BrokerInfo, ExceptionResponse
    answer = frames[2]
    assert utf("java.lang.SecurityException") + utf("User name [alice] or password is invalid.") in answer
    cause = f"AMQ229031: Unable to validate user from {local[0]}:{local[1]}. Username: alice; {SECURITY_TAIL}"
    assert utf("org.apache.activemq.artemis.api.core.ActiveMQSecurityException") + utf(cause) in answer
    assert b"wrong" not in answer
    assert running.routes() == []


def amqp_exchange(port: int, client: AmqpClient) -> list:
    events = []
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        sock.sendall(client.initiate())
        sock.settimeout(HANG_GUARD)
        while data := sock.recv(65536):
            events += client.receive_data(data)
            out = client.data_to_send()
            if out:
                sock.sendall(out)
    return events


def test_amqp_sasl_anonymous_passes_sasl_then_open_is_unauthorized(serve, users_file):
    running = serve(ROUTER_CORE, routers=["by-client"], users_file=users_file, state=state_from_options(NODE_IDS))
    client = AmqpClient("FOO1", mechanism="ANONYMOUS")
    events = amqp_exchange(running.port(), client)
    outcome = next(e for e in events if type(e).__name__ == "SaslOutcome")
    assert outcome.ok  # AnonymousServerSASL always succeeds; the user check comes at Open
    opened = next(e for e in events if isinstance(e, OpenReceived))
    assert opened.open.properties == {"amqp:connection-establishment-failed": True}
    [close] = [e for e in events if isinstance(e, CloseReceived)]
    assert close.error.condition == "amqp:unauthorized-access"
    # connection.getRemoteAddress(): SocketAddressUtil drops InetSocketAddress's leading "/"
    assert close.error.description.startswith("AMQ229031: Unable to validate user from 127.0.0.1:")
    assert close.error.description.endswith(f"Username: null; {SECURITY_TAIL}")
    assert running.routes() == []


def test_amqp_sasl_anonymous_without_users_file_is_routed(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    events = amqp_exchange(running.port(), AmqpClient("FOO1", mechanism="ANONYMOUS"))
    [close] = [e for e in events if isinstance(e, CloseReceived)]
    assert close.error.condition == "amqp:connection:redirect"


def test_amqp_without_sasl_is_asked_for_sasl_when_users_are_checked(serve, users_file):
    running = serve(ROUTER_CORE, routers=["by-client"], users_file=users_file, state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(AmqpClient("FOO1", mechanism=None).initiate())
        assert recv_until_closed(sock) == SASL_HEADER
    assert running.routes() == []


@pytest.mark.parametrize(("java", "broker"), [
    ("/10.0.0.1:5000", "10.0.0.1:5000"),
    ("/[0:0:0:0:0:0:0:1%0]:5000", "[0:0:0:0:0:0:0:1%0]:5000"),  # epoll's scope id stays
])
def test_broker_texts_use_the_remote_address_without_the_leading_slash(java, broker):
    """NettyConnection.getRemoteAddress -> SocketAddressUtil.toString (Artemis 2.43+, ARTEMIS-3915)."""
    assert Peer("listen-1", java).broker_address == broker


def test_amqp_plain_with_a_bad_password_gets_outcome_auth_then_the_amqp_header(serve, users_file):
    """Whatever the outcome, proton-j's SASL layer is done and the transport writes its AMQP header;
    a client that carries on to an Open anyway is validated again with its SASL user (and fails)."""
    running = serve(ROUTER_CORE, routers=["by-client"], users_file=users_file, state=state_from_options(NODE_IDS))
    response = b"\x00alice\x00wrong"
    init = b"\x00\x53\x41\xc0" + bytes([1 + 7 + 2 + len(response), 2]) + b"\xa3\x05PLAIN" + b"\xa0" + bytes(
        [len(response)]) + response
    open_ = b"\x00\x53\x10\xc0\x05\x01\xa1\x02c1"  # open, container-id "c1"
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(SASL_HEADER + struct.pack(">IBBH", 8 + len(init), 2, 1, 0) + init)
        outcome = b"\x00\x53\x44\xc0\x03\x01\x50\x01"  # code auth
        expected = struct.pack(">IBBH", 8 + len(outcome), 2, 1, 0) + outcome + b"AMQP\x00\x01\x00\x00"
        got = b""
        while not got.endswith(expected):
            data = sock.recv(65536)
            assert data, got
            got += data
        sock.sendall(b"AMQP\x00\x01\x00\x00" + struct.pack(">IBBH", 8 + len(open_), 2, 0, 0) + open_)
        sock.shutdown(socket.SHUT_WR)
        rest = recv_until_closed(sock)
    client = AmqpClient("c1", mechanism=None)
    client.initiate()
    events = client.receive_data(b"AMQP\x00\x01\x00\x00" + rest)
    [close] = [e for e in events if isinstance(e, CloseReceived)]
    assert close.error.condition == "amqp:unauthorized-access"
    assert close.error.description.endswith(f"Username: alice; {SECURITY_TAIL}")
    assert running.routes() == []
    assert all("wrong" not in str(r) for r in running.records)
