"""PROXY protocol v1/v2 header decoder (sans-IO) as an Artemis acceptor with ``proxyProtocolEnabled=true`` reads it.

What the broker does (Artemis ``NettyAcceptor.initChannel``, ``HAProxyMessageEnforcer``,
``HAProxyMessageHandler``, ``ProxyProtocolUtil``; Netty 4.1.128 ``HAProxyMessageDecoder``,
``HAProxyMessage``, ``NetUtil``):

* The pipeline is ``HAProxyMessageEnforcer``, ``HAProxyMessageDecoder``, ``HAProxyMessageHandler``,
  then TLS (``sni``, ``ssl``) when ``sslEnabled``, then protocol detection. So the PROXY header comes
  first, in clear, and the TLS handshake (if any) follows it. Without ``proxyProtocolEnabled``, a
  connection that opens with ``PROX`` or ``\\r\\n\\r\\n`` is closed by protocol detection
  (``detect.detect_protocol`` raises).
* The enforcer waits for 4 bytes and closes the connection unless they are ``PROX`` (v1) or
  ``\\r\\n\\r\\n`` (v2).
* The decoder waits for 13 bytes. The 12-byte v2 signature makes the 13th byte the "version"
  (a whole byte: ``0x01`` there means a text line, which then fails); anything else is a v1 line.
* v1: the line ends at the first CRLF; a line of more than ``V1_MAX_LENGTH`` (108) bytes before
  its CRLF, or more than 108 bytes held without a CRLF, closes the connection. (So a 108-byte line
  passes only when its CRLF arrives in the same read as its last byte: the limit is the broker's,
  and so is that quirk.) The line, read as Latin-1, is split on single spaces the way Java's
  ``String.split`` does (trailing empty parts dropped): ``PROXY``, then ``TCP4``, ``TCP6`` or
  ``UNKNOWN`` (anything after ``UNKNOWN`` is ignored), then exactly source address, destination
  address, source port, destination port. Addresses must pass ``NetUtil.isValidIpV4Address`` /
  ``isValidIpV6Address`` (leading zeros, ``[::1]`` brackets and ``%scope`` pass) and are **kept as
  written**; ports are ``Integer.parseInt`` (``+80`` and ``080`` pass) in 1..65535 and are
  rendered back as numbers.
* v2: 16 bytes then as many as the length field says (at most ``V2_MAX_LENGTH``). Version nibble
  2; command LOCAL (0) or PROXY (1); family/transport one of the seven defined bytes. LOCAL and
  UNSPEC carry no address: the broker stores ``null:0``. IPv4 is dotted decimal; IPv6 is eight
  groups of lower-case hex **without zero compression** (``2001:db8:0:0:0:0:0:1``, Netty's
  ``ipBytesToString``); UNIX addresses are the bytes before the first NUL of each 108-byte field,
  as Latin-1, with port 0. UDP is accepted like TCP. TLVs follow the addresses: a TLV whose length
  runs past the header, an SSL TLV shorter than 5 bytes, or SSL TLVs nested deeper than 128 close
  the connection; fewer than 4 bytes left over are ignored (even a whole TLV with an empty value).
* The broker then sets the connection's remote address to ``sourceAddress + ":" + sourcePort``
  (what SOURCE_IP keys and logs use; ``routing.keys.source_ip_key`` cuts it at the last ``:``), its
  proxy address to ``destinationAddress + ":" + destinationPort`` and the version to ``V1``/``V2``.
  Bytes after the header go to TLS or protocol detection.

Shape (like h11): :class:`ProxyHeaderDecoder` never touches a socket. Feed bytes to
``receive_data()`` until it returns a :class:`ProxyHeaderReceived`; then hand its ``remaining``
bytes (and everything after) to the next layer. A malformed or oversized header raises
:class:`~artemis_routing_cli.errors.ProtocolError`: the broker closes the connection without a word.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.javastr import java_parse_int, java_split

__all__ = [
    "ENFORCER_BYTES",
    "MIN_HEADER_LENGTH",
    "V1_MAX_LENGTH",
    "V2_MAX_LENGTH",
    "V2_SIGNATURE",
    "ProxyHeaderDecoder",
    "ProxyHeaderMissing",
    "ProxyHeaderReceived",
    "ProxyState",
    "ProxyTlv",
    "build_v1_header",
    "build_v2_header",
    "is_valid_ipv4",
    "is_valid_ipv6",
]

# ---------------------------------------------------------------------------------------------
# Limits and constants, with where each comes from

#: ``HAProxyMessageEnforcer.decode``: waits for 4 bytes, then insists on ``PROX`` or ``\r\n\r\n``.
ENFORCER_BYTES = 4
ENFORCED_PREFIXES = (b"PROX", b"\r\n\r\n")
#: ``HAProxyMessageDecoder.findVersion``: "per spec, the version number is found in the 13th byte".
VERSION_DETECT_BYTES = 13
#: ``HAProxyConstants.BINARY_PREFIX``: the v2 signature (PROXY protocol spec section 2.2).
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
#: ``HAProxyMessageDecoder.V1_MAX_LENGTH``: the spec's 108-byte worst case (107 chars + CRLF); Netty
#: compares the line *without* its CRLF against it, so it allows one more char than the spec.
V1_MAX_LENGTH = 108
#: The v2 fixed part: signature, version/command, family/transport, 16-bit length.
V2_FIXED_LENGTH = 16
#: The shortest header either version allows: ``PROXY UNKNOWN\r\n`` (v2 needs ``V2_FIXED_LENGTH``).
MIN_HEADER_LENGTH = 15
#: ``HAProxyMessageDecoder.V2_MAX_LENGTH`` (16 + 65535), the limit of ``new HAProxyMessageDecoder()``
#: as ``NettyAcceptor`` builds it: what the 16-bit length field allows anyway.
V2_MAX_LENGTH = V2_FIXED_LENGTH + 0xFFFF
#: ``HAProxyMessage.MAX_NESTING_LEVEL``: SSL TLVs nested deeper than this close the connection.
MAX_TLV_NESTING = 128
#: Address block sizes (spec section 2.2; ``HAProxyMessage.decodeHeader`` checks them).
IPV4_BLOCK, IPV6_BLOCK, UNIX_BLOCK = 12, 36, 216
UNIX_PATH = 108

#: ``HAProxyProxiedProtocol``: the v2 family/transport byte and the v1 spellings.
PROTOCOLS = {
    0x00: "UNKNOWN",
    0x11: "TCP4",
    0x12: "UDP4",
    0x21: "TCP6",
    0x22: "UDP6",
    0x31: "UNIX_STREAM",
    0x32: "UNIX_DGRAM",
}
_PROTOCOL_BYTES = {name: value for value, name in PROTOCOLS.items()}
V1_PROTOCOLS = ("TCP4", "TCP6", "UNKNOWN")
#: ``HAProxyTLV.Type``: the SSL TLV (0x20) holds a client byte, a 32-bit verify and sub-TLVs.
PP2_TYPE_SSL = 0x20


# ---------------------------------------------------------------------------------------------
# Events


class ProxyHeaderMissing(ProtocolError):
    """The first 4 bytes are not a PROXY header's (``HAProxyMessageEnforcer``): the broker logs AMQ224152
    ("uses proxyProtocolEnabled=true, but connection did not use PROXY Protocol") and closes."""


@dataclass(frozen=True)
class ProxyTlv:
    """One v2 TLV; an SSL TLV (0x20) lists its encapsulated TLVs in ``children``."""

    type: int
    value: bytes = field(repr=False)
    children: tuple[ProxyTlv, ...] = ()


@dataclass(frozen=True)
class ProxyHeaderReceived:
    """A decoded header, as Netty's ``HAProxyMessage`` holds it.

    ``source_address``/``destination_address`` are None for LOCAL and UNKNOWN (Java ``null``).
    ``remaining`` are the bytes that followed the header in what was fed so far.
    """

    version: str  # "V1" or "V2" (HAProxyProtocolVersion.toString())
    command: str  # "PROXY" or "LOCAL"
    protocol: str  # a value of PROTOCOLS
    source_address: str | None
    destination_address: str | None
    source_port: int
    destination_port: int
    tlvs: tuple[ProxyTlv, ...] = ()
    header_length: int = 0
    remaining: bytes = field(default=b"", repr=False)

    @property
    def remote_address(self) -> str:
        """The broker's remote address for this connection: ``sourceAddress + ":" + sourcePort``."""
        return f"{_java_str(self.source_address)}:{self.source_port}"

    @property
    def proxy_address(self) -> str:
        """The broker's proxy address: ``destinationAddress + ":" + destinationPort``."""
        return f"{_java_str(self.destination_address)}:{self.destination_port}"


def _java_str(value: str | None) -> str:
    return "null" if value is None else value


class ProxyState(Enum):
    READING = "reading the header"
    DONE = "header decoded: pass later bytes to the next layer"
    FAILED = "protocol error: the shell closes"


# ---------------------------------------------------------------------------------------------
# The decoder


class ProxyHeaderDecoder:
    """The enforcer and decoder of an acceptor with ``proxyProtocolEnabled=true``, for one connection.

    Holds at most ``V2_MAX_LENGTH`` bytes (a v1 line: ``V1_MAX_LENGTH``) while it waits.
    """

    def __init__(self) -> None:
        self.state = ProxyState.READING
        self._buffer = bytearray()
        self.header: ProxyHeaderReceived | None = None

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    def safe_read_size(self) -> int:
        """How many bytes may be read now without reading past the end of a valid header: a lower
        bound of what the header still lacks (at least 1).

        For a shell that must not take bytes meant for the next layer, as serve does before
        ``loop.start_tls`` (TLS after the header: bytes read with the header could not be handed to
        the TLS layer). Bytes past a header that will fail anyway do not matter: the connection
        closes. While the header is incomplete, every valid continuation is at least this long:
        before the version is known, the shortest header (``MIN_HEADER_LENGTH``); v2, the fixed part,
        then its length field; v1, ``CRLF`` (1 byte after a ``CR``) plus, for ``TCP4``/``TCP6``, a
        space and a character for every one of the six words still missing, and a character for a
        word that has just begun.
        """
        if self.state is not ProxyState.READING:
            raise RuntimeError("the PROXY header is decoded or failed: nothing more to read for it")
        buf = self._buffer
        held = len(buf)
        if buf.startswith(V2_SIGNATURE):
            if held < V2_FIXED_LENGTH:
                return V2_FIXED_LENGTH - held
            return max(1, V2_FIXED_LENGTH + struct.unpack_from(">H", buf, 14)[0] - held)
        if held < MIN_HEADER_LENGTH:
            return MIN_HEADER_LENGTH - held
        if buf.endswith(b"\r"):
            return 1
        words = bytes(buf).split(b" ")
        wanted = 2  # CRLF
        if len(words) >= 3 and words[1] in (b"TCP4", b"TCP6"):
            wanted += 2 * max(0, 6 - len(words)) + (1 if not words[-1] else 0)
        return wanted

    def receive_data(self, data: bytes) -> ProxyHeaderReceived | None:
        """The header once complete (then ``state`` is DONE), else None; ProtocolError if malformed."""
        if self.state is ProxyState.DONE:
            raise RuntimeError("the PROXY header was already decoded: feed the next layer")
        if self.state is ProxyState.FAILED:
            raise ProtocolError("the PROXY header already failed")
        self._buffer += data
        try:
            header = self._decode()
        except ProtocolError:
            self.state = ProxyState.FAILED
            self._buffer.clear()
            raise
        if header is not None:
            self.state = ProxyState.DONE
            self.header = header
            self._buffer.clear()
        return header

    def _decode(self) -> ProxyHeaderReceived | None:
        buf = self._buffer
        if len(buf) < ENFORCER_BYTES:
            return None
        if bytes(buf[:ENFORCER_BYTES]) not in ENFORCED_PREFIXES:
            raise ProxyHeaderMissing("connection did not start with a PROXY protocol header")
        if len(buf) < VERSION_DETECT_BYTES:
            return None
        version = buf[12] if buf.startswith(V2_SIGNATURE) else 1
        if version == 1:
            return self._decode_v1()
        return self._decode_v2()

    def _decode_v1(self) -> ProxyHeaderReceived | None:
        buf = self._buffer
        eol = buf.find(b"\r\n")
        if eol < 0:
            if len(buf) > V1_MAX_LENGTH:
                raise ProtocolError(f"PROXY header length (over {len(buf)}) exceeds the allowed maximum (108)")
            return None
        if eol > V1_MAX_LENGTH:
            raise ProtocolError(f"PROXY header length ({eol}) exceeds the allowed maximum (108)")
        header = _decode_v1_line(bytes(buf[:eol]).decode("latin-1"))
        return _with_rest(header, eol + 2, bytes(buf[eol + 2 :]))

    def _decode_v2(self) -> ProxyHeaderReceived | None:
        buf = self._buffer
        if len(buf) < V2_FIXED_LENGTH:
            return None
        total = V2_FIXED_LENGTH + struct.unpack_from(">H", buf, 14)[0]
        if len(buf) < total:
            return None
        header = _decode_v2_block(bytes(buf[:total]))
        return _with_rest(header, total, bytes(buf[total:]))


def _with_rest(header: ProxyHeaderReceived, length: int, rest: bytes) -> ProxyHeaderReceived:
    return dataclasses.replace(header, header_length=length, remaining=rest)


def _unknown(version: str, command: str) -> ProxyHeaderReceived:
    """``HAProxyMessage.unknownMsg``: no addresses, ports 0."""
    return ProxyHeaderReceived(version, command, "UNKNOWN", None, None, 0, 0)


def _decode_v1_line(line: str) -> ProxyHeaderReceived:
    """``HAProxyMessage.decodeHeader(String)``."""
    parts = java_split(line, " ")
    if len(parts) < 2:
        raise ProtocolError("invalid PROXY v1 header (expected: 'PROXY' and proxied protocol values)")
    if parts[0] != "PROXY":
        raise ProtocolError(f"unknown PROXY v1 identifier: {parts[0]!r}")
    if parts[1] not in _PROTOCOL_BYTES:
        raise ProtocolError(f"unknown PROXY v1 proxied protocol: {parts[1]!r}")
    if parts[1] not in V1_PROTOCOLS:
        raise ProtocolError(f"unsupported v1 proxied protocol: {parts[1]}")
    if parts[1] == "UNKNOWN":
        return _unknown("V1", "PROXY")
    if len(parts) != 6:
        raise ProtocolError("invalid TCP4/6 PROXY header (expected: 6 parts)")
    valid = is_valid_ipv4 if parts[1] == "TCP4" else is_valid_ipv6
    for address in parts[2:4]:
        if not valid(address):
            raise ProtocolError(f"invalid {parts[1]} address in PROXY header: {address!r}")
    ports = [java_parse_int(text) for text in parts[4:6]]
    for text, port in zip(parts[4:6], ports, strict=True):
        if port is None or not 1 <= port <= 65535:
            raise ProtocolError(f"invalid port in PROXY header: {text!r} (expected: 1 ~ 65535)")
    assert ports[0] is not None and ports[1] is not None
    return ProxyHeaderReceived("V1", "PROXY", parts[1], parts[2], parts[3], ports[0], ports[1])


def _decode_v2_block(block: bytes) -> ProxyHeaderReceived:
    """``HAProxyMessage.decodeHeader(ByteBuf)`` over the whole header (16 + length bytes)."""
    ver_cmd = block[12]
    version = ver_cmd & 0xF0
    if version not in (0x10, 0x20):
        raise ProtocolError(f"unknown PROXY protocol version: {version}")
    if version != 0x20:
        raise ProtocolError(f"PROXY version 1 unsupported in a binary header: {ver_cmd:#x}")
    command = ver_cmd & 0x0F
    if command not in (0, 1):
        raise ProtocolError(f"unknown PROXY command: {command}")
    if command == 0:
        return _unknown("V2", "LOCAL")
    protocol = PROTOCOLS.get(block[13])
    if protocol is None:
        raise ProtocolError(f"unknown transport protocol + address family: {block[13]}")
    if protocol == "UNKNOWN":
        return _unknown("V2", "PROXY")
    body = block[V2_FIXED_LENGTH:]
    family = block[13] & 0xF0
    if family == 0x30:
        if len(body) < UNIX_BLOCK:
            raise ProtocolError(f"incomplete UNIX socket address information: {len(body)} bytes (expected: 216+ bytes)")
        source = _unix_path(body[:UNIX_PATH])
        destination = _unix_path(body[UNIX_PATH:UNIX_BLOCK])
        source_port = destination_port = 0
        pos = UNIX_BLOCK
    elif family == 0x10:
        if len(body) < IPV4_BLOCK:
            raise ProtocolError(f"incomplete IPv4 address information: {len(body)} bytes (expected: 12+ bytes)")
        source, destination = (".".join(str(b) for b in body[i : i + 4]) for i in (0, 4))
        source_port, destination_port = struct.unpack_from(">HH", body, 8)
        pos = IPV4_BLOCK
    else:
        if len(body) < IPV6_BLOCK:
            raise ProtocolError(f"incomplete IPv6 address information: {len(body)} bytes (expected: 36+ bytes)")
        source, destination = (_ipv6_groups(body[i : i + 16]) for i in (0, 16))
        source_port, destination_port = struct.unpack_from(">HH", body, 32)
        pos = IPV6_BLOCK
    tlvs, _ = _read_tlvs(body, pos, len(body), 0)
    return ProxyHeaderReceived("V2", "PROXY", protocol, source, destination, source_port, destination_port, tlvs)


def _unix_path(field_bytes: bytes) -> str:
    """The bytes before the first NUL (all 108 without one), as Netty's US-ASCII fast path: Latin-1."""
    end = field_bytes.find(b"\x00")
    return field_bytes[: end if end >= 0 else len(field_bytes)].decode("latin-1")


def _ipv6_groups(raw: bytes) -> str:
    """``HAProxyMessage.ipBytesToString``: eight ``Integer.toHexString`` groups, no compression."""
    return ":".join(format(group, "x") for group in struct.unpack(">8H", raw))


def _read_tlvs(data: bytes, pos: int, end: int, level: int) -> tuple[tuple[ProxyTlv, ...], int]:
    """``HAProxyMessage.readTlvs``/``readNextTLV``: TLVs until fewer than 4 bytes are left."""
    tlvs: list[ProxyTlv] = []
    while end - pos >= 4:
        if level > MAX_TLV_NESTING:
            raise ProtocolError(f"Maximum TLV nesting level reached: {level} (expected: < {MAX_TLV_NESTING})")
        tlv_type = data[pos]
        length = struct.unpack_from(">H", data, pos + 1)[0]
        start = pos + 3
        if start + length > end:
            raise ProtocolError(f"PROXY TLV {tlv_type:#04x} runs past the header")
        value = data[start : start + length]
        children: tuple[ProxyTlv, ...] = ()
        if tlv_type == PP2_TYPE_SSL:
            if length < 5:
                raise ProtocolError("PROXY SSL TLV shorter than its client and verify fields")
            children, _ = _read_tlvs(data, start + 5, start + length, level + 1)
        tlvs.append(ProxyTlv(tlv_type, value, children))
        pos = start + length
    return tuple(tlvs), pos


# ---------------------------------------------------------------------------------------------
# Netty NetUtil address checks, ported line by line (Java's quirks included)


def _at(text: str, index: int) -> str:
    """``String.charAt``: out of range throws (a negative index does not wrap)."""
    if index < 0 or index >= len(text):
        raise IndexError(index)
    return text[index]


def _ipv4_word(word: str, start: int, end: int) -> bool:
    """``NetUtil.isValidIpV4Word``: 1 to 3 digits, at most 255; leading zeros pass."""
    length = end - start
    if length < 1 or length > 3:
        return False
    c0 = _at(word, start)
    if c0 < "0":
        return False
    if length == 3:
        c1, c2 = _at(word, start + 1), _at(word, start + 2)
        if c1 < "0" or c2 < "0":
            return False
        if c0 <= "1":
            return c1 <= "9" and c2 <= "9"
        return c0 == "2" and c1 <= "5" and (c2 <= "5" or (c1 < "5" and c2 <= "9"))
    return c0 <= "9" and (length == 1 or "0" <= _at(word, start + 1) <= "9")


def is_valid_ipv4(ip: str, start: int = 0, end: int | None = None) -> bool:
    """``NetUtil.isValidIpV4Address(String)`` (over ``ip[start:end]``, searching dots as Java does)."""
    if end is None:
        end = len(ip)
    if not 7 <= end - start <= 15:
        return False
    try:
        i = ip.find(".", start + 1)
        if not (i > 0 and _ipv4_word(ip, start, i)):
            return False
        frm = i + 2
        i = ip.find(".", frm)
        if not (i > 0 and _ipv4_word(ip, frm - 1, i)):
            return False
        frm = i + 2
        i = ip.find(".", frm)
        if not (i > 0 and _ipv4_word(ip, frm - 1, i)):
            return False
        return _ipv4_word(ip, i + 1, end)
    except IndexError:
        return False


def is_valid_ipv6(ip: str) -> bool:
    """``NetUtil.isValidIpV6Address(String)``: brackets, ``::``, ``%scope`` and a dotted IPv4 tail pass.

    Where Java would throw (an index out of range), ``HAProxyMessage`` refuses the header: False.
    """
    try:
        return _ipv6(ip)
    except IndexError:
        return False


def _ipv6(ip: str) -> bool:
    end = len(ip)
    if end < 2:
        return False
    c = ip[0]
    if c == "[":
        end -= 1
        if _at(ip, end) != "]":
            return False
        start = 1
        c = _at(ip, 1)
    else:
        start = 0
    if c == ":":
        if _at(ip, start + 1) != ":":
            return False
        colons = 2
        compress_begin = start
        start += 2
    else:
        colons = 0
        compress_begin = -1
    word_len = 0
    i = start
    while i < end:
        c = _at(ip, i)
        if c in "0123456789abcdefABCDEF":
            if word_len < 4:
                word_len += 1
                i += 1
                continue
            return False
        if c == ":":
            if colons > 7:
                return False
            if _at(ip, i - 1) == ":":
                if compress_begin >= 0:
                    return False
                compress_begin = i - 1
            else:
                word_len = 0
            colons += 1
        elif c == ".":
            if (compress_begin < 0 and colons != 6) or (colons == 7 and compress_begin >= start) or colons > 7:
                return False
            ipv4_start = i - word_len
            j = ipv4_start - 2
            if _at(ip, j) in "fF":
                if not (_at(ip, j - 1) in "fF" and _at(ip, j - 2) in "fF" and _at(ip, j - 3) in "fF"):
                    return False
                j -= 5
            while j >= start:
                if _at(ip, j) not in "0:":
                    return False
                j -= 1
            ipv4_end = ip.find("%", ipv4_start + 7)
            if ipv4_end < 0:
                ipv4_end = end
            return is_valid_ipv4(ip, ipv4_start, ipv4_end)
        elif c == "%":
            end = i
            break
        else:
            return False
        i += 1
    if compress_begin < 0:
        return colons == 7 and word_len > 0
    return compress_begin + 2 == end or (word_len > 0 and (colons < 8 or compress_begin <= start))


# ---------------------------------------------------------------------------------------------
# Client side (tests, probes): headers as a proxy writes them


def build_v1_header(
    protocol: str = "TCP4",
    source: str = "192.0.2.1",
    destination: str = "192.0.2.2",
    source_port: int = 56324,
    destination_port: int = 61616,
) -> bytes:
    """A v1 line; ``UNKNOWN`` writes no addresses."""
    if protocol == "UNKNOWN":
        return b"PROXY UNKNOWN\r\n"
    return f"PROXY {protocol} {source} {destination} {source_port} {destination_port}\r\n".encode("latin-1")


def build_v2_header(
    protocol: str = "TCP4",
    source: str = "192.0.2.1",
    destination: str = "192.0.2.2",
    source_port: int = 56324,
    destination_port: int = 61616,
    *,
    command: str = "PROXY",
    tlvs: Sequence[tuple[int, bytes]] = (),
) -> bytes:
    """A v2 header; addresses as text (IPv4, IPv6, or a UNIX path); TLVs as (type, raw value) pairs."""
    family = _PROTOCOL_BYTES[protocol]
    if command == "LOCAL":
        ver_cmd, family, addresses = 0x20, 0x00, b""
    elif command != "PROXY":
        raise ValueError(f"command is PROXY or LOCAL, not {command!r}")
    else:
        ver_cmd = 0x21
        if family & 0xF0 == 0x10:
            addresses = ipaddress.IPv4Address(source).packed + ipaddress.IPv4Address(destination).packed
            addresses += struct.pack(">HH", source_port, destination_port)
        elif family & 0xF0 == 0x20:
            addresses = ipaddress.IPv6Address(source).packed + ipaddress.IPv6Address(destination).packed
            addresses += struct.pack(">HH", source_port, destination_port)
        elif family & 0xF0 == 0x30:
            addresses = source.encode("latin-1").ljust(UNIX_PATH, b"\x00")[:UNIX_PATH]
            addresses += destination.encode("latin-1").ljust(UNIX_PATH, b"\x00")[:UNIX_PATH]
        else:
            addresses = b""
    body = addresses + b"".join(bytes([kind]) + struct.pack(">H", len(value)) + value for kind, value in tlvs)
    return V2_SIGNATURE + bytes([ver_cmd, family]) + struct.pack(">H", len(body)) + body
