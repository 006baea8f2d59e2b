"""The broker's UDP discovery datagram (sans-IO): decode what a broadcast group sends.

A broker with a ``<broadcast-group>`` sends, every ``broadcast-period`` ms, one datagram to the
group address and port (``BroadcastGroupImpl.broadcastConnectors``), written with the CORE buffer
encodings (see :mod:`artemis_routing_cli.protocols.core_buffer`):

* the sender's node id (String),
* a unique id of this broadcaster (String; two senders with the same node id but different
  unique ids make the receiver log "multiple servers broadcasting the same node id"),
* int32 number of connectors, then each connector as a TransportConfiguration: name, factory
  class, int32 parameter count, then key, type byte (0 boolean, 1 int, 2 long, 3 String), value.

The receiver (``DiscoveryGroup``) reads into a 64 KiB buffer and ignores whatever follows the
last connector; it drops datagrams carrying its own node id, and keeps **one** entry per node id:
each connector of a datagram replaces the previous one, so the last connector listed wins.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config.model import DEFAULT_CONNECTOR_HOST, DEFAULT_CONNECTOR_PORT
from ..errors import ProtocolError
from ..protocols.core_buffer import Reader, TransportConfig, Writer

#: UDPBroadcastEndpointFactory.receiveBroadcast reads into a buffer of this many bytes.
MAX_DATAGRAM_SIZE = 65535


@dataclass(frozen=True)
class Broadcast:
    """One decoded discovery datagram."""

    node_id: str
    unique_id: str
    connectors: tuple[TransportConfig, ...]

    @property
    def connector(self) -> TransportConfig | None:
        """The connector the receiver keeps for this node (the last one; DiscoveryGroup)."""
        return self.connectors[-1] if self.connectors else None


def decode_broadcast(data: bytes) -> Broadcast:
    """Decode one datagram; raises ProtocolError when it is not in the broker's format."""
    reader = Reader(bytes(data))
    node_id = reader.string()
    unique_id = reader.string()
    count = reader.int()
    if count < 0:
        raise ProtocolError(f"discovery datagram announces {count} connectors")
    connectors = tuple(reader.transport_config() for _ in range(count))
    return Broadcast(node_id, unique_id, connectors)


def encode_broadcast(broadcast: Broadcast) -> bytes:
    """The datagram a broker's broadcast group sends for ``broadcast`` (for doubles and tests)."""
    writer = Writer().string(broadcast.node_id).string(broadcast.unique_id).int(len(broadcast.connectors))
    for connector in broadcast.connectors:
        writer.transport_config(connector)
    return writer.getvalue()


def connector_host(connector: TransportConfig) -> str:
    """Host of a Netty connector's params (TransportConstants default: localhost)."""
    host = connector.params.get("host")
    return str(host) if host not in (None, "") else DEFAULT_CONNECTOR_HOST


def connector_port(connector: TransportConfig) -> int:
    """Port of a Netty connector's params (int or string; default 61616)."""
    port = connector.params.get("port")
    if isinstance(port, bool) or port in (None, ""):
        return DEFAULT_CONNECTOR_PORT
    try:
        return int(port)  # type: ignore[arg-type]
    except ValueError:
        raise ProtocolError(f"connector {connector.name!r} has a port that is not a number: {port!r}") from None


def connector_flag(connector: TransportConfig, key: str) -> bool:
    """A boolean connector parameter, read like the broker (Boolean or a string ``true``)."""
    value = connector.params.get(key)
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and value.strip().lower() == "true"


def connector_param(connector: TransportConfig, key: str) -> str | None:
    value = connector.params.get(key)
    return None if value is None else str(value)
