"""OpenWire codec tests against commands written by hand from the activemq-client 5.19.1
marshallers (v12).

No ActiveMQ 5 Java client can be installed here, so the client is a *protocol double*: the
WireFormatInfo and ConnectionInfo a 5.19 ``failover:`` client sends are built below with
``struct`` and a hand-packed BooleanStream, independently of the codec's encoder.
"""

from __future__ import annotations

import struct

import pytest

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols import openwire_marshal as ow
from artemis_routing_cli.protocols.openwire import (
    ConnectionInfoReceived,
    KeepAliveReceived,
    OpenWireServer,
    OpenWireState,
    UnhandledCommand,
    WireFormatReceived,
)


# --- hand-written encodings (the protocol double) ---------------------------------------------
def utf(s: str) -> bytes:
    data = s.encode("utf-8")  # ASCII/BMP-without-NUL text: modified UTF-8 == UTF-8
    return struct.pack(">H", len(data)) + data


def bits(*flags: bool) -> bytes:
    """BooleanStream.marshal: size byte, then bits LSB-first."""
    data = bytearray((len(flags) + 7) // 8)
    for i, flag in enumerate(flags):
        if flag:
            data[i // 8] |= 1 << (i % 8)
    return bytes((len(data),)) + bytes(data)


def prefixed(command: bytes) -> bytes:
    return struct.pack(">i", len(command)) + command


def client_wireformat(*, tight: bool = True, version: int = 12, stack_trace: bool = True) -> bytes:
    props = [
        ("TightEncodingEnabled", b"\x01" + bytes((tight,))),
        ("CacheEnabled", b"\x01\x01"),
        ("StackTraceEnabled", b"\x01" + bytes((stack_trace,))),
        ("SizePrefixDisabled", b"\x01\x00"),
        ("MaxInactivityDuration", b"\x06" + struct.pack(">q", 30000)),
        ("CacheSize", b"\x05" + struct.pack(">i", 1024)),
        ("ProviderName", b"\x09" + utf("ActiveMQ")),
    ]
    blob = struct.pack(">i", len(props)) + b"".join(utf(k) + v for k, v in props)
    body = b"\x01" + b"ActiveMQ" + struct.pack(">i", version) + b"\x01" + struct.pack(">i", len(blob)) + blob
    return prefixed(body)


def client_connection_info_tight(
    *, fault_tolerant: bool = True, user: str = "alice", client_id: str = "ID:host-1", command_id: int = 1
) -> bytes:
    conn_id = "ID:host-40000-1-1"
    flags = (
        True,  # responseRequired
        True,  # connectionId present
        True,
        True,  # connectionId value: not null, ascii
        True,
        True,  # clientId
        True,
        True,  # password
        True,
        True,  # userName
        False,  # brokerPath null
        False,  # brokerMasterConnector
        True,  # manageable
        True,  # clientMaster
        fault_tolerant,
        False,  # failoverReconnect
        False,  # clientIp null
    )
    data = (
        struct.pack(">i", command_id)
        + b"\x78"  # ConnectionId type 120
        + struct.pack(">h", len(conn_id))
        + conn_id.encode()
        + struct.pack(">h", len(client_id))
        + client_id.encode()
        + struct.pack(">h", 6)
        + b"pa55wd"
        + struct.pack(">h", len(user))
        + user.encode()
    )
    return prefixed(b"\x03" + bits(*flags) + data)


def client_connection_info_loose(*, fault_tolerant: bool = True) -> bytes:
    body = (
        b"\x03"
        + struct.pack(">i", 1)
        + b"\x01"  # responseRequired
        + b"\x01\x78\x01"
        + utf("ID:c-1")
        + b"\x01"
        + utf("cid")
        + b"\x00"  # password null
        + b"\x01"
        + utf("bob")
        + b"\x00"  # brokerPath null
        + b"\x00\x01\x01"
        + bytes((fault_tolerant,))
        + b"\x01"  # failoverReconnect
        + b"\x01"
        + utf("10.1.2.3")
    )
    return prefixed(body)


def server() -> OpenWireServer:
    return OpenWireServer(broker_id="node-uuid", broker_name="broker-host", broker_url="/127.0.0.1:61616")


# --- WireFormatInfo -----------------------------------------------------------------------------
def test_loose_wireformat_matches_activemq_control_file() -> None:
    # tests/activemq5-unit-tests/.../openwire-control/org.apache.activemq.openwire.WireFormatInfoData.bin
    # in the Artemis repository: Java's marshalling of WireFormatInfo(version 1, CacheEnabled=true).
    control = bytes.fromhex(
        "00000026014163746976654d5100000001010000001400000001000c436163686545 6e61626c65640101".replace(" ", "")
    )
    info = ow.WireFormat(1, {"CacheEnabled": True})
    assert ow.size_prefixed(b"\x01" + ow.encode_wireformat_info(info, tight=False)) == control
    decoded = ow.decode_wireformat_info(ow.Input(control[5:]), tight=False)
    assert decoded == info


def test_server_handshake_is_the_artemis_preferred_wireformat() -> None:
    out = server().handshake_bytes()
    size, kind = struct.unpack_from(">ib", out)
    assert size == len(out) - 4 and kind == 1
    assert out[5:13] == b"ActiveMQ" and struct.unpack_from(">i", out, 13)[0] == 12
    info = ow.decode_wireformat_info(ow.Input(out[5:]), tight=False)
    assert info.properties == {
        "StackTraceEnabled": True,
        "CacheEnabled": False,
        "TcpNoDelayEnabled": True,
        "TightEncodingEnabled": True,
        "SizePrefixDisabled": False,
        "MaxInactivityDuration": 30000,
        "MaxInactivityDurationInitalDelay": 10000,
        "CacheSize": 1024,
        "MaxFrameSize": (1 << 63) - 1,
        "MaxFrameSizeEnabled": True,
        "ProviderName": "ActiveMQ",
        "ProviderVersion": "5.19.1",
        "PlatformDetails": "Java",
    }
    # longs stay longs (type 6), the cache size an int (type 5)
    assert isinstance(info.properties["MaxInactivityDuration"], ow.JavaLong)
    assert not isinstance(info.properties["CacheSize"], ow.JavaLong)


def test_negotiation_and_broker_info() -> None:
    srv = server()
    (event,) = srv.receive_data(client_wireformat(tight=True))
    assert isinstance(event, WireFormatReceived)
    assert (event.version, event.tight_encoding, event.stack_trace) == (12, True, True)
    assert srv.state is OpenWireState.OPEN
    # BrokerInfo, tight: bits = rr F, brokerId present T, id notnull T, ascii T, url T T,
    # peers F, name T T, slave/master/ft/duplex/network F x5, connectionId long 0 -> F F,
    # uploadUrl F, networkProperties F
    expected_bits = bits(False, True, True, True, True, True, False, True, True, *([False] * 9))
    expected = prefixed(
        b"\x02"
        + expected_bits
        + struct.pack(">i", 0)
        + b"\x7c"
        + struct.pack(">h", 9)
        + b"node-uuid"
        + struct.pack(">h", 16)
        + b"/127.0.0.1:61616"
        + struct.pack(">h", 11)
        + b"broker-host"
    )
    assert srv.reply(event) == expected


def test_loose_client_gets_loose_broker_info() -> None:
    srv = server()
    (event,) = srv.receive_data(client_wireformat(tight=False, version=10, stack_trace=False))
    assert (event.version, event.tight_encoding, event.stack_trace) == (10, False, False)
    expected = prefixed(
        b"\x02"
        + struct.pack(">i", 0)
        + b"\x00"
        + b"\x01\x7c\x01"
        + utf("node-uuid")
        + b"\x01"
        + utf("/127.0.0.1:61616")
        + b"\x00"
        + b"\x01"
        + utf("broker-host")
        + b"\x00" * 5
        + bytes(8)
        + b"\x00\x00"
    )
    assert srv.reply(event) == expected


@pytest.mark.parametrize(("announced", "negotiated"), [(13, 12), (0, 12), (-3, 12), (9, 9)])
def test_version_negotiation_follows_openwireformat_min(announced: int, negotiated: int) -> None:
    (event,) = server().receive_data(client_wireformat(version=announced))
    assert event.version == negotiated


@pytest.mark.parametrize("version", [1, 5])
def test_unsupported_versions(version: int) -> None:
    with pytest.raises(ProtocolError):
        server().receive_data(client_wireformat(version=version))


# --- ConnectionInfo and the routing answer ------------------------------------------------------
def test_connection_info_tight_is_decoded() -> None:
    srv = server()
    events = srv.receive_data(client_wireformat() + client_connection_info_tight())
    info = events[1]
    assert isinstance(info, ConnectionInfoReceived)
    assert (info.client_id, info.username, info.password) == ("ID:host-1", "alice", "pa55wd")
    assert info.connection_id == "ID:host-40000-1-1"
    assert info.fault_tolerant and info.manageable and info.client_master and not info.failover_reconnect
    assert info.response_required and info.command_id == 1 and info.client_ip is None
    assert "pa55wd" not in repr(info)
    assert srv.state is OpenWireState.CONNECTION_REQUESTED


def test_connection_info_loose_is_decoded() -> None:
    srv = server()
    events = srv.receive_data(client_wireformat(tight=False) + client_connection_info_loose())
    info = events[1]
    assert isinstance(info, ConnectionInfoReceived)
    assert (info.client_id, info.username, info.password, info.client_ip) == ("cid", "bob", None, "10.1.2.3")
    assert info.fault_tolerant and info.failover_reconnect


def test_byte_by_byte_feeding() -> None:
    data = client_wireformat() + client_connection_info_tight()
    whole = server().receive_data(data)
    srv = server()
    events = []
    for i in range(len(data)):
        events += srv.receive_data(data[i : i + 1])
    assert events == whole


def test_redirect_tight_connection_control_is_exact() -> None:
    srv = server()
    srv.receive_data(client_wireformat() + client_connection_info_tight())
    out = srv.redirect("10.0.0.2", 61617)
    # rr, close, exit, faultTolerant, resume, suspend: F; connectedBrokers T (ascii T);
    # reconnectTo F; rebalanceConnection T; token F
    flags = bits(False, False, False, False, False, False, True, True, False, True, False)
    expected = prefixed(b"\x12" + flags + struct.pack(">i", 0) + struct.pack(">h", 20) + b"tcp://10.0.0.2:61617")
    assert out == expected
    assert srv.close_delay_ms == 0 and srv.state is OpenWireState.CLOSED
    assert srv.receive_data(client_connection_info_tight()) == []


def test_redirect_loose_connection_control_is_exact() -> None:
    srv = server()
    srv.receive_data(client_wireformat(tight=False) + client_connection_info_loose())
    expected = prefixed(
        b"\x12"
        + struct.pack(">i", 0)
        + b"\x00"
        + b"\x00" * 5
        + b"\x01"
        + utf("tcp://h:1")
        + b"\x00"
        + b"\x01"
        + b"\x00"
    )
    assert srv.redirect("h", 1) == expected


def test_refusal_of_a_failover_client_sends_nothing() -> None:
    srv = server()
    srv.receive_data(client_wireformat() + client_connection_info_tight())
    assert srv.refuse("REFUSED_UNAVAILABLE") == b""
    assert srv.close_delay_ms == 0


@pytest.mark.parametrize("answer", ["redirect", "refuse"])
def test_non_failover_client_gets_illegal_state_exception(answer: str) -> None:
    srv = server()
    srv.receive_data(client_wireformat() + client_connection_info_tight(fault_tolerant=False, command_id=7))
    out = srv.redirect("h", 1) if answer == "redirect" else srv.refuse("REFUSED_USE_ANOTHER")
    cls, msg = b"java.lang.IllegalStateException", b"Client not fault tolerant"
    # rr F, throwable T, class T/ascii T, message T/ascii T, cause F (stack traces negotiated on)
    expected = prefixed(
        b"\x1f"
        + bits(False, True, True, True, True, True, False)
        + struct.pack(">i", 0)
        + struct.pack(">i", 7)
        + struct.pack(">h", len(cls))
        + cls
        + struct.pack(">h", len(msg))
        + msg
        + struct.pack(">h", 0)
    )
    assert out == expected
    assert srv.close_delay_ms == 2000


def test_keepalive_and_other_commands() -> None:
    srv = server()
    srv.receive_data(client_wireformat())
    events = srv.receive_data(prefixed(b"\x0a" + bits(True) + struct.pack(">i", 3)) + prefixed(b"\x0b\x00"))
    assert events == [KeepAliveReceived(3), UnhandledCommand(11)]
    assert srv.reply(events[0]) == b""


def test_answer_without_connection_info_is_a_local_error() -> None:
    with pytest.raises(RuntimeError):
        server().redirect("h", 1)


@pytest.mark.parametrize(
    "data",
    [
        struct.pack(">i", 0),
        struct.pack(">i", -1),
        struct.pack(">i", 1 << 24),
        prefixed(b"\x01" + b"ActiveMX" + bytes(5)),  # bad magic
        prefixed(b"\x01ActiveMQ"),  # truncated
        prefixed(b"\x01ActiveMQ\x00\x00\x00\x0c\x01\x00\x00\x00\x04\x00\x01\x00\x00"),  # map > 4096
    ],
)
def test_protocol_errors(data: bytes) -> None:
    with pytest.raises(ProtocolError):
        server().receive_data(data)


def _utf_bytes(text: str) -> bytes:
    return struct.pack(">h", len(text)) + text.encode("ascii")


SEC_CLASS = "java.lang.SecurityException"
SEC_CAUSE = "org.apache.activemq.artemis.api.core.ActiveMQSecurityException"


def _cause_text(user: str) -> str:
    return (f"AMQ229031: Unable to validate user from /10.0.0.9:5000. Username: {user}; "
            "SSL certificate subject DN: unavailable")


def test_security_rejection_tight_with_stack_traces_carries_the_cause() -> None:
    srv = server()
    srv.receive_data(client_wireformat() + client_connection_info_tight(command_id=9))
    out = srv.reject_security("/10.0.0.9:5000")
    # rr F; throwable T, class T/ascii T, message T/ascii T; cause T, class T/T, message T/T; null F
    expected = prefixed(
        b"\x1f"
        + bits(False, True, True, True, True, True, True, True, True, True, True, False)
        + struct.pack(">i", 0)
        + struct.pack(">i", 9)
        + _utf_bytes(SEC_CLASS) + _utf_bytes("User name [alice] or password is invalid.") + struct.pack(">h", 0)
        + _utf_bytes(SEC_CAUSE) + _utf_bytes(_cause_text("alice")) + struct.pack(">h", 0)
    )
    assert out == expected
    assert b"pa55wd" not in out
    assert srv.close_delay_ms == 2000
    assert srv.state is OpenWireState.CLOSED


def test_security_rejection_loose_without_stack_traces_sends_no_cause() -> None:
    srv = server()
    srv.receive_data(client_wireformat(tight=False, stack_trace=False) + client_connection_info_loose())
    out = srv.reject_security("/10.0.0.9:5000")
    message = "User name [bob] or password is invalid."
    expected = prefixed(b"\x1f" + struct.pack(">i", 0) + b"\x00" + struct.pack(">i", 1)
                        + b"\x01" + b"\x01" + _utf_bytes(SEC_CLASS) + b"\x01" + _utf_bytes(message))
    assert out == expected


def test_security_rejection_of_a_single_throwable_matches_the_marshaller() -> None:
    """Without stack traces the chain encoder and openwire_marshal agree byte for byte."""
    srv = server()
    srv.receive_data(client_wireformat(stack_trace=False) + client_connection_info_tight(command_id=4))
    out = srv.reject_security("/10.0.0.9:5000")
    same = ow.encode_exception_response(4, SEC_CLASS, "User name [alice] or password is invalid.",
                                        tight=True, stack_trace=False)
    assert out == ow.size_prefixed(same)


def test_security_rejection_without_response_required_is_a_connection_error() -> None:
    srv = server()
    info = bytearray(client_connection_info_tight())
    info[6] &= ~1  # clear the first BooleanStream bit: responseRequired
    srv.receive_data(client_wireformat(stack_trace=False) + bytes(info))
    out = srv.reject_security("/10.0.0.9:5000")
    same = ow.encode_connection_error(SEC_CLASS, "User name [alice] or password is invalid.",
                                      tight=True, stack_trace=False)
    assert out == ow.size_prefixed(same)
    assert srv.close_delay_ms == 2000
