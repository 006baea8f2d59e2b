"""CORE packet types, frame layout and the bodies the redirect listener and probe need.

Frame (PacketImpl.encode / ActiveMQFrameDecoder2): int32 length of what follows, int8 packet
type, int64 channel id, body. Channel 0 carries pings, topology and disconnects; channel 1
carries session creation and failover checks.
"""

from __future__ import annotations

import struct

from artemis_routing_cli.protocols.core_buffer import TransportConfig, Writer

# The handshake a CORE client writes before its first frame (ActiveMQClientProtocolManager).
HANDSHAKE = b"ARTEMIS"

# PacketImpl.PACKET_HEADERS_SIZE minus the length field: type byte + channel id.
FRAME_HEADER_AFTER_LENGTH = 1 + 8

# Channel ids (ChannelImpl.CHANNEL_ID): PING=0, SESSION=1; client sessions start at USER=10.
CHANNEL_PING = 0
CHANNEL_SESSION = 1
FIRST_USER_CHANNEL = 10

# Packet types (PacketImpl).
PING = 10
DISCONNECT = 11
EXCEPTION = 20
CREATESESSION = 30
CREATESESSION_RESP = 31
REATTACH_SESSION = 32
REATTACH_SESSION_RESP = 33
CLUSTER_TOPOLOGY = 110
SUBSCRIBE_TOPOLOGY = 112
SUBSCRIBE_TOPOLOGY_V2 = 113
CLUSTER_TOPOLOGY_V2 = 114
CLUSTER_TOPOLOGY_V3 = 122
DISCONNECT_V2 = 124
CHECK_FOR_FAILOVER = -4
CHECK_FOR_FAILOVER_REPLY = -5
CLUSTER_TOPOLOGY_V4 = -17
CREATESESSION_V2 = -18
DISCONNECT_V3 = -19

# Every type byte PacketImpl defines; anything else makes the broker's decoder fail.
KNOWN_PACKET_TYPES = frozenset(
    [10, 11, 12, 13, 20, 21, 22, 30, 31, 32, 33, 34, 35, 36]
    + list(range(39, 47))
    + list(range(49, 83))
    + list(range(90, 102))
    + [103, 104, 105, 106, 110, 111, 112, 113, 114, 115, 116, 120, 121, 122, 124, 125, 126, 127]
    + list(range(-22, 0))
)

# Protocol versions (PacketImpl / activemq-version.properties of Artemis 2.37+ incl. 2.4x).
ARTEMIS_2_18_0_VERSION = 131  # CREATESESSION_V2, DISCONNECT_V3, CLUSTER_TOPOLOGY_V4, routing
SERVER_VERSION = 136  # incrementingVersion a 2.4x broker announces
COMPATIBLE_CLIENT_VERSIONS = frozenset(range(121, 137))  # compatibleVersionList 121..136


def supports(packet_type: int, version: int) -> bool:
    """ChannelImpl.supports: can a peer at ``version`` understand ``packet_type``?"""
    if packet_type == CLUSTER_TOPOLOGY_V2:
        return version >= 122
    if packet_type in (CLUSTER_TOPOLOGY_V3, DISCONNECT_V2):
        return version >= 125
    if packet_type in (CLUSTER_TOPOLOGY_V4, CREATESESSION_V2, DISCONNECT_V3):
        return version >= ARTEMIS_2_18_0_VERSION
    return True


# ActiveMQExceptionType codes.
EXC_INTERNAL_ERROR = 0
EXC_INCOMPATIBLE_CLIENT_SERVER_VERSIONS = 108
EXC_REMOTE_DISCONNECT = 119
EXC_ROUTING_EXCEPTION = 222

# DisconnectReason type bytes.
DISCONNECT_REASONS = {
    0: "REDIRECT",
    1: "REDIRECT_ON_CRITICAL_ERROR",
    2: "SCALE_DOWN",
    3: "SCALE_DOWN_ON_CRITICAL_ERROR",
    4: "SHUT_DOWN",
    5: "SHUT_DOWN_ON_CRITICAL_ERROR",
}
REASON_REDIRECT = 0


def frame(packet_type: int, channel_id: int, body: bytes = b"") -> bytes:
    """One CORE frame."""
    return struct.pack(">ibq", FRAME_HEADER_AFTER_LENGTH + len(body), packet_type, channel_id) + body


def ping(connection_ttl: int) -> bytes:
    return frame(PING, CHANNEL_PING, struct.pack(">q", connection_ttl))


def subscribe_topology_v2(cluster_connection: bool, client_version: int) -> bytes:
    body = Writer().boolean(cluster_connection).int(client_version).getvalue()
    return frame(SUBSCRIBE_TOPOLOGY_V2, CHANNEL_PING, body)


def cluster_topology_single_node(node_id: str, unique_event_id: int, channel_version: int) -> bytes:
    """What a non-clustered acceptor answers to SUBSCRIBE_TOPOLOGY: one 'node up', last=true,
    with no connectors, in the newest format the client understands (CoreProtocolManager)."""
    w = Writer().boolean(False).string(node_id)  # exit=false, nodeID
    if supports(CLUSTER_TOPOLOGY_V4, channel_version):
        w.long(unique_event_id).boolean(False).boolean(False).boolean(True)
        w.nullable_string(None).nullable_string(None).int(SERVER_VERSION)
        return frame(CLUSTER_TOPOLOGY_V4, CHANNEL_PING, w.getvalue())
    if supports(CLUSTER_TOPOLOGY_V2, channel_version):
        w.long(unique_event_id).boolean(False).boolean(False).boolean(True).nullable_string(None)
        return frame(CLUSTER_TOPOLOGY_V2, CHANNEL_PING, w.getvalue())
    w.boolean(False).boolean(False).boolean(True)
    return frame(CLUSTER_TOPOLOGY, CHANNEL_PING, w.getvalue())


def check_failover_reply(ok_to_failover: bool) -> bytes:
    return frame(CHECK_FOR_FAILOVER_REPLY, CHANNEL_SESSION, Writer().boolean(ok_to_failover).getvalue())


def reattach_session_response(last_confirmed_command_id: int, reattached: bool) -> bytes:
    body = Writer().int(last_confirmed_command_id).boolean(reattached).getvalue()
    return frame(REATTACH_SESSION_RESP, CHANNEL_SESSION, body)


def exception(code: int, message: str | None, channel_id: int = CHANNEL_SESSION) -> bytes:
    """ActiveMQExceptionMessage (type 20): int32 exception type code, nullable String message."""
    return frame(EXCEPTION, channel_id, Writer().int(code).nullable_string(message).getvalue())


def disconnect_v3(
    node_id: str | None, reason: int, target_node_id: str | None, target: TransportConfig | None
) -> bytes:
    """DisconnectMessage_V3 on channel 0."""
    w = Writer().nullable_simple_string(node_id).byte(reason).nullable_simple_string(target_node_id)
    if target is None:
        w.boolean(False)
    else:
        w.boolean(True).transport_config(target)
    return frame(DISCONNECT_V3, CHANNEL_PING, w.getvalue())


def create_session(
    *,
    name: str,
    session_channel_id: int,
    version: int,
    username: str | None,
    password: str | None,
    min_large_message_size: int,
    xa: bool,
    auto_commit_sends: bool,
    auto_commit_acks: bool,
    window_size: int,
    pre_acknowledge: bool,
    default_address: str | None,
    client_id: str | None,
    v2: bool,
) -> bytes:
    """CreateSessionMessage (type 30) or, with ``v2``, CreateSessionMessage_V2 (type -18)."""
    w = Writer().string(name).long(session_channel_id).int(version)
    w.nullable_string(username).nullable_string(password).int(min_large_message_size)
    w.boolean(xa).boolean(auto_commit_sends).boolean(auto_commit_acks).int(window_size)
    w.boolean(pre_acknowledge).nullable_string(default_address)
    if v2:
        w.nullable_string(client_id)
    return frame(CREATESESSION_V2 if v2 else CREATESESSION, CHANNEL_SESSION, w.getvalue())
