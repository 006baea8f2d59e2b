"""First-bytes protocol detection, as an Artemis acceptor's ProtocolHandler decides.

The broker waits until it holds 8 bytes, then asks each protocol manager ``isProtocol(first 8)``:

* AMQP: ``AMQP``;
* CORE: ``ARTEMIS``;
* MQTT: byte 0x10 (CONNECT, no flags), a remaining-length varint that ends within 4 bytes, a
  0x00 length MSB, then - only if the length LSB is 4 or 6 - ``M`` ``Q``. Any other LSB is
  accepted as MQTT too. When the varint uses all 4 bytes and ``M`` follows, the broker reads
  past its 8-byte window, throws, and closes the connection;
* OpenWire: a 4-byte size, type 0x01 (WireFormatInfo), then as much of ``ActiveMQ`` as fits in
  the window, i.e. ``Act``;
* STOMP: ``CONNECT`` or ``STOMP``.

Before that it closes connections that open with a PROXY protocol header (when the acceptor
does not expect one) and switches to HTTP for ``GET``/``POST``/... prefixes. When nothing
matches, the broker serves the bytes as CORE without the handshake (``FALLBACK_PROTOCOL``), or as
HORNETQ when the acceptor serves HORNETQ (every acceptor without ``protocols=`` does): its manager
is CORE's and takes clients without a handshake. :func:`detect_on_acceptor` asks only the
managers of one acceptor, as the broker does.
"""

from __future__ import annotations

from artemis_routing_cli.errors import ProtocolError

__all__ = ["ACCEPTOR_ORDER", "FALLBACK_PROTOCOL", "NEEDED", "UnexpectedProxyHeader", "detect_on_acceptor",
           "detect_protocol", "is_http", "need_more"]

# ProtocolHandler.ProtocolDecoder.decode: "if (in.readableBytes() < 8) return;"
NEEDED = 8

# ActiveMQClient.DEFAULT_CORE_PROTOCOL: what the broker uses when no isProtocol() matched
# (unless a HORNETQ acceptor, which accepts headerless clients, is configured).
FALLBACK_PROTOCOL = "CORE"

# HAProxyMessageEnforcer.isProxyProtocol: the first 4 bytes of a v1 ("PROX") or v2 header.
_PROXY_PREFIXES = (b"PROX", b"\r\n\r\n")

# ProtocolDecoder.isHttp: two-letter prefixes of HTTP methods (CONNECT is deliberately absent).
_HTTP_PREFIXES = (b"GE", b"PO", b"PU", b"HE", b"OP", b"PA", b"DE", b"TR")

_OPENWIRE_MAGIC = b"ActiveMQ"


class UnexpectedProxyHeader(ProtocolError):
    """The first bytes are a PROXY protocol header where protocol detection runs: the broker logs
    AMQ224152 (``proxyProtocolViolation``, "uses proxyProtocolEnabled=false, but connection used PROXY
    Protocol") and closes the connection. ProtocolDecoder checks this at every detection, inside a
    WebSocket too, whatever the acceptor's ``proxyProtocolEnabled`` (its message says ``false``)."""


_WIREFORMAT_INFO = 0x01
_MQTT_CONNECT = 0x10


def need_more(first_bytes: bytes) -> bool:
    """True while the broker would still wait for more bytes before deciding."""
    return len(first_bytes) < NEEDED


def is_http(first_bytes: bytes) -> bool:
    """The broker would switch this connection to its HTTP/WebSocket handling."""
    return first_bytes[:2] in _HTTP_PREFIXES


def detect_protocol(first_bytes: bytes) -> str | None:
    """``AMQP``, ``CORE``, ``MQTT``, ``OPENWIRE``, ``STOMP`` or None (HTTP or no match).

    Only the first ``NEEDED`` bytes count. Raises ProtocolError where the broker would close the
    connection (PROXY header, MQTT probe reading past the window); raises ValueError when fewer
    than ``NEEDED`` bytes are given (check ``need_more`` first).
    """
    if need_more(first_bytes):
        raise ValueError(f"need {NEEDED} bytes to detect a protocol, got {len(first_bytes)}")
    head = bytes(first_bytes[:NEEDED])
    if head[0] == _MQTT_CONNECT:
        # no PROXY, HTTP, AMQP, CORE or STOMP opening starts with 0x10: only MQTT, or an OpenWire size
        if _is_mqtt(head):
            return "MQTT"
    else:
        if head[:4] in _PROXY_PREFIXES:
            raise UnexpectedProxyHeader("connection opened with a PROXY protocol header")
        if is_http(head):
            return None
        if head.startswith(b"AMQP"):
            return "AMQP"
        if head.startswith(b"ARTEMIS"):
            return "CORE"
    if head[4] == _WIREFORMAT_INFO and head[5:] == _OPENWIRE_MAGIC[: NEEDED - 5]:
        return "OPENWIRE"
    if head.startswith(b"CONNECT") or head.startswith(b"STOMP"):
        return "STOMP"
    return None


def _is_mqtt(head: bytes) -> bool:
    """MQTTProtocolManager.isProtocol over exactly ``NEEDED`` bytes."""
    if head[0] != _MQTT_CONNECT:
        return False
    pos = 1
    for _ in range(4):
        byte = head[pos]
        pos += 1
        if byte & 0x80 == 0:
            break
    else:
        return False  # remaining length longer than 4 bytes
    if head[pos] != 0:  # protocol name length, MSB
        return False
    pos += 1
    lsb = head[pos]
    pos += 1
    if lsb in (4, 6):
        if head[pos] != ord("M"):
            return False
        pos += 1
        if pos >= len(head):
            raise ProtocolError("MQTT detection read past the 8-byte window (broker closes the connection)")
        if head[pos] != ord("Q"):
            return False
    return True


#: The order the broker asks an acceptor's protocol managers (``isProtocol``): its protocol map is
#: a ConcurrentHashMap, which a JVM iterates in this order. Only MQTT and OpenWire openings can
#: both match (MQTT wins when the acceptor serves both).
ACCEPTOR_ORDER = ("CORE", "MQTT", "AMQP", "HORNETQ", "STOMP", "OPENWIRE")


def _is_protocol(protocol: str, head: bytes) -> bool:
    if protocol == "CORE":
        return head.startswith(b"ARTEMIS")
    if protocol == "MQTT":
        return _is_mqtt(head)
    if protocol == "AMQP":
        return head.startswith(b"AMQP")
    if protocol == "HORNETQ":  # HornetQProtocolManager: a HornetQ client's "HORNETQ" prologue
        return head.startswith(b"HORNETQ")
    if protocol == "STOMP":
        return head.startswith(b"CONNECT") or head.startswith(b"STOMP")
    return head[4] == _WIREFORMAT_INFO and head[5:] == _OPENWIRE_MAGIC[: NEEDED - 5]


def detect_on_acceptor(first_bytes: bytes, protocols: tuple[str, ...] | None, *, http: bool = True) -> str | None:
    """The protocol an acceptor serving ``protocols`` (None: every one) hands a connection to.

    ProtocolHandler asks only the acceptor's own managers, in :data:`ACCEPTOR_ORDER`; when none
    claims the bytes, the first that accepts a client without a handshake takes them (HORNETQ,
    when the acceptor serves it), else CORE - even when the acceptor does not serve CORE: then
    the broker finds no manager, logs it and leaves the connection open, unanswered. None for
    HTTP (``is_http``). Raises ProtocolError like :func:`detect_protocol` (a PROXY header:
    :class:`UnexpectedProxyHeader`; the MQTT probe reading past the window - only when the acceptor
    serves MQTT).

    ``http=False`` is the detection inside a WebSocket (``new ProtocolDecoder(false, false)``): HTTP
    is not looked for, so an HTTP-looking payload is asked of the managers like any other bytes
    (and ends up with HORNETQ or CORE); a PROXY header is still refused.
    """
    if protocols is None:
        if http:  # every manager: detect_protocol's order gives the same answers, faster
            found = detect_protocol(first_bytes)
            if found is not None or is_http(first_bytes):
                return found
            return "HORNETQ"  # its own prologue, or nobody's: HORNETQ accepts clients without a handshake
        protocols = ACCEPTOR_ORDER
    if need_more(first_bytes):
        raise ValueError(f"need {NEEDED} bytes to detect a protocol, got {len(first_bytes)}")
    head = bytes(first_bytes[:NEEDED])
    if head[:4] in _PROXY_PREFIXES:
        raise UnexpectedProxyHeader("connection opened with a PROXY protocol header")
    if http and is_http(head):
        return None
    for protocol in ACCEPTOR_ORDER:
        if protocol in protocols and _is_protocol(protocol, head):
            return protocol
    return "HORNETQ" if "HORNETQ" in protocols else FALLBACK_PROTOCOL
