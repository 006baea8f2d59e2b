"""Listen on a discovery group's UDP group address and collect the members it announces.

Like the broker's UDP endpoint (``UDPBroadcastEndpointFactory.openClient`` on Linux): bind to the
group address and port, set the interface to ``local-bind-address`` when there is one, and join
the multicast group. Entries follow ``DiscoveryGroup``: one per node id (its last connector), in
the order the nodes were first heard; datagrams with the listener's own node id are dropped.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from dataclasses import dataclass, field

from ..errors import ProtocolError
from ..protocols.core_buffer import TransportConfig
from .broadcast import MAX_DATAGRAM_SIZE, decode_broadcast


@dataclass(frozen=True)
class DiscoveredNode:
    node_id: str
    connector: TransportConfig
    sender: str  # "ip:port" the datagram came from


@dataclass
class DiscoveryResult:
    nodes: list[DiscoveredNode] = field(default_factory=list)
    datagrams: int = 0
    malformed: list[str] = field(default_factory=list)  # one line per bad datagram (first few)
    own_dropped: int = 0


class DiscoveryError(Exception):
    """The group cannot be listened on (bad address, port in use without reuse, no multicast)."""


def _open_socket(group_address: str, group_port: int, local_bind_address: str | None) -> socket.socket:
    try:
        infos = socket.getaddrinfo(group_address, group_port, type=socket.SOCK_DGRAM)
    except socket.gaierror as exc:
        raise DiscoveryError(f"group address {group_address!r} cannot be resolved ({exc.strerror})") from None
    family, _, _, _, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if hasattr(socket, "SO_REUSEPORT"):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            sock.bind((addr[0], group_port))
        except OSError:
            sock.bind(("" if family == socket.AF_INET else "::", group_port))  # as the broker falls back
        group = socket.inet_pton(family, addr[0])
        if family == socket.AF_INET:
            iface = socket.inet_aton(socket.gethostbyname(local_bind_address)) if local_bind_address else \
                struct.pack("!I", socket.INADDR_ANY)
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, group + iface)
        else:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP, group + struct.pack("@I", 0))
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        raise DiscoveryError(f"cannot join {group_address}:{group_port} ({exc.strerror or exc})") from None
    return sock


class _Collector(asyncio.DatagramProtocol):
    def __init__(self, result: DiscoveryResult, own_node_id: str | None) -> None:
        self.result = result
        self.own_node_id = own_node_id
        self._index: dict[str, int] = {}

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:  # type: ignore[override]
        self.result.datagrams += 1
        sender = f"{addr[0]}:{addr[1]}"
        try:
            broadcast = decode_broadcast(data[:MAX_DATAGRAM_SIZE])
        except ProtocolError as exc:
            if len(self.result.malformed) < 3:
                self.result.malformed.append(f"{sender}: {exc}")
            return
        if self.own_node_id is not None and broadcast.node_id == self.own_node_id:
            self.result.own_dropped += 1
            return
        connector = broadcast.connector
        if connector is None:
            return
        node = DiscoveredNode(broadcast.node_id, connector, sender)
        if broadcast.node_id in self._index:
            self.result.nodes[self._index[broadcast.node_id]] = node
        else:
            self._index[broadcast.node_id] = len(self.result.nodes)
            self.result.nodes.append(node)


async def listen(
    group_address: str, group_port: int, seconds: float, *,
    local_bind_address: str | None = None, own_node_id: str | None = None,
) -> DiscoveryResult:
    """Collect announcements for ``seconds``; raises :class:`DiscoveryError` when the group cannot be joined."""
    sock = _open_socket(group_address, group_port, local_bind_address)
    result = DiscoveryResult()
    loop = asyncio.get_running_loop()
    transport, _ = await loop.create_datagram_endpoint(lambda: _Collector(result, own_node_id), sock=sock)
    try:
        await asyncio.sleep(seconds)  # the listening window itself, not a synchronisation device
    finally:
        transport.close()
    return result
