"""WebSocket (RFC 6455) server codec as an Artemis acceptor speaks it (sans-IO), plus client helpers for tests.

What the broker does (Artemis ``ProtocolHandler.ProtocolDecoder``, ``HttpAcceptorHandler``,
``WebSocketServerHandler`` and ``WebSocketFrameEncoder``, on Netty 4.1.128's ``HttpRequestDecoder``,
``WebSocketServerHandshaker13/08/07`` and ``WebSocket08FrameDecoder``/``Encoder``):

* Any acceptor whose first bytes look like an HTTP method (``detect.is_http``) reads one HTTP/1.1
  request head: CRLF lines only (a lone LF is refused), request line within ``MAX_REQUEST_LINE``,
  header lines together within ``MAX_HEADER_SIZE``, header names must be tokens. A
  ``Content-Length`` body is waited for (``HttpObjectAggregator``) and skipped before any answer.
* ``POST`` goes to the broker's HTTP transport (its body is CORE over HTTP): arouter does not serve
  it. ``Upgrade: activemq-remoting`` is answered ``403`` and closed. A request whose first
  ``Upgrade`` is neither that nor ``websocket`` gets no answer at all: the broker keeps the
  connection open and silent (arouter closes it; see :class:`HttpRefused`).
* ``Upgrade: websocket`` (any case): a method other than GET gets ``403`` with body
  ``403 Forbidden`` and is closed. ``Sec-WebSocket-Version`` 13, 8 or 7 gets the RFC 6455
  handshake; another value gets ``426`` with ``sec-websocket-version: 13`` (the broker keeps that
  connection open; arouter closes it); no version header means the draft-76 handshake, which
  arouter does not implement. Version 13 also needs a ``Connection`` header with the token
  ``upgrade``; every version needs ``Sec-WebSocket-Key`` (not checked for form). A failed check
  closes the connection without an answer (the handshaker throws): :class:`ProtocolError`.
* The ``101`` response is written by Netty's ``HttpResponseEncoder`` with Netty's lower-case header
  names, in this order: ``upgrade: websocket``, ``connection: upgrade``, ``sec-websocket-accept``,
  and ``sec-websocket-protocol`` when one was chosen. The subprotocol is the first of the client's
  first ``Sec-WebSocket-Protocol`` header (split on commas, trimmed) that the acceptor's protocol
  managers registered (:data:`SUBPROTOCOLS_BY_PROTOCOL`), compared case-sensitively. None
  matching is not an error: the handshake succeeds without the header.
* No extension is negotiated (``webSocketCompressionSupported`` defaults to false), so a frame with
  an RSV bit set is a protocol violation, as are: an unmasked client frame, a reserved opcode, a
  fragmented or longer-than-125 control frame, a close frame of 1 byte, a continuation outside a
  fragmented message or a new message inside one, a length not in its minimal encoding, a
  payload longer than ``webSocketMaxFramePayloadLength`` (default 65536), a close frame with an
  invalid status code (Netty reads it as a *signed* short: 0-999, 1004-1006 and 1015-2999 are
  invalid, 32768 and up pass) or a reason that is not UTF-8 (an unfinished sequence at the end
  passes). Netty writes its close frame for a violation from the frame decoder's place in the
  pipeline, which is before the WebSocket encoder the handshake added, so the frame never reaches
  the wire: the broker just closes the TCP connection. So do we: :class:`ProtocolError`, nothing
  to send. (Derived from the pipeline order; not observed against a running broker.)
* Text, binary and continuation frames are not reassembled: each frame's payload goes straight
  to a second protocol detection, without HTTP this time but still refusing a PROXY header
  (:class:`DataReceived`; ``detect.detect_protocol`` applies, its None meaning CORE). Text payloads
  are not checked for UTF-8. A ping is answered with a pong of the same payload; pongs are ignored;
  a close frame is echoed back (same code and reason) and the connection closed; bytes after it
  are dropped. The broker never starts a closing handshake itself: when it closes a connection
  (after a redirect, say) it just closes TCP.
* What the broker writes goes out as one message per write: a ``binary`` (or, with
  ``webSocketEncoderType=text``, a ``text``) frame and, past ``webSocketMaxFramePayloadLength``
  bytes, continuation frames; unmasked; 7-, 16- or 64-bit lengths, always the shortest.

Shape (like h11): :class:`WebSocketServer` never touches a socket. Feed bytes to
``receive_data()``; for each event write the bytes it carries (``response`` or ``reply``), and close
the socket after :class:`HttpRefused` or :class:`CloseReceived`. Frame what the inner protocol
writes with ``send_data()``. A misbehaving peer raises
:class:`~artemis_routing_cli.errors.ProtocolError`: close the socket, write nothing.

Not implemented, on purpose: permessage-deflate (only with ``webSocketCompressionSupported=true``),
the draft-76 handshake, request bodies sent with ``Transfer-Encoding`` on the upgrade request
(refused), ``Expect: 100-continue``, and the broker's HTTP (POST) transport.
"""

from __future__ import annotations

import base64
import codecs
import hashlib
import re
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Union

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.javastr import java_equals_ignore_case, java_split, java_trim

__all__ = [
    "ACCEPT_GUID",
    "ALL_SUBPROTOCOLS",
    "BINARY",
    "CLOSE",
    "CONTINUATION",
    "PING",
    "PONG",
    "TEXT",
    "DEFAULT_ENCODER_TYPE",
    "DEFAULT_MAX_FRAME_PAYLOAD_LENGTH",
    "MAX_HEADER_SIZE",
    "MAX_REQUEST_LINE",
    "SUBPROTOCOLS_BY_PROTOCOL",
    "CloseReceived",
    "DataReceived",
    "Event",
    "Frame",
    "HttpRefused",
    "HttpRequest",
    "PingReceived",
    "ServerState",
    "Upgraded",
    "WebSocketServer",
    "accept_key",
    "broker_subprotocols",
    "build_upgrade_request",
    "client_frame",
    "encode_frame",
    "parse_frames",
]

# ---------------------------------------------------------------------------------------------
# Limits and constants, with where each comes from

#: Netty ``HttpObjectDecoder.DEFAULT_MAX_INITIAL_LINE_LENGTH``: the ``new HttpRequestDecoder()`` of
#: ``ProtocolDecoder.switchToHttp`` refuses a longer request line (line end not counted).
MAX_REQUEST_LINE = 4096
#: Netty ``HttpObjectDecoder.DEFAULT_MAX_HEADER_SIZE``: all header lines together, line ends not
#: counted. Netty marks the request failed; we refuse it (the broker answers nothing useful).
MAX_HEADER_SIZE = 8192
#: Artemis ``TransportConstants.DEFAULT_WEB_SOCKET_MAX_FRAME_PAYLOAD_LENGTH`` (acceptor parameter
#: ``webSocketMaxFramePayloadLength``, before it the deprecated ``stompMaxFramePayloadLength``): the
#: largest frame payload accepted, and the size at which the broker splits what it writes.
DEFAULT_MAX_FRAME_PAYLOAD_LENGTH = 65536
#: Artemis ``TransportConstants.DEFAULT_WEB_SOCKET_ENCODER_TYPE`` (``webSocketEncoderType``).
DEFAULT_ENCODER_TYPE = "binary"
#: ``WebSocketFrameEncoderType.valueOfType``: exactly these spellings; anything else stops the acceptor.
ENCODER_TYPES = ("binary", "text")
#: RFC 6455 section 1.3 (Netty ``WebSocketServerHandshaker13.WEBSOCKET_13_ACCEPT_GUID``, same for 08/07).
ACCEPT_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
#: ``WebSocketServerHandshakerFactory.newHandshaker``: Sec-WebSocket-Version values with a handshaker
#: that speaks RFC 6455 framing (13 is RFC 6455; 8 and 7 are hybi drafts with the same frames).
HANDSHAKE_VERSIONS = ("13", "8", "7")
#: RFC 6455 section 5.5: control frames carry at most 125 bytes and are never fragmented.
MAX_CONTROL_PAYLOAD = 125
#: ``websocketSubprotocolIdentifiers()`` of each protocol manager (Artemis ``ProtonProtocolManager``,
#: ``MQTTProtocolManager``, ``StompProtocolManager``; CORE, HORNETQ and OPENWIRE register none).
#: ``ProtocolHandler`` offers the union over the acceptor's protocols; their order does not matter,
#: since Netty picks by the client's order.
SUBPROTOCOLS_BY_PROTOCOL: dict[str, tuple[str, ...]] = {
    "AMQP": ("amqp",),
    "CORE": (),
    "HORNETQ": (),
    "MQTT": ("mqtt", "mqttv3.1"),
    "OPENWIRE": (),
    "STOMP": ("v10.stomp", "v11.stomp", "v12.stomp"),
}

#: What an acceptor with every protocol (the default ``protocols``) registers.
ALL_SUBPROTOCOLS: tuple[str, ...] = tuple(p for ids in SUBPROTOCOLS_BY_PROTOCOL.values() for p in ids)

CONTINUATION = 0x0
TEXT = 0x1
BINARY = 0x2
CLOSE = 0x8
PING = 0x9
PONG = 0xA

# RFC 7230 section 3.2.6 tchar (Netty HttpUtil.validateToken for header names)
_TOKEN_CHARS = frozenset(b"!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
# HttpObjectDecoder SKIP_CONTROL_CHARS: Character.isISOControl or Character.isWhitespace (Latin-1)
_SKIPPED_BEFORE_REQUEST = frozenset([*range(0x00, 0x21), *range(0x7F, 0xA0)])
# HttpObjectDecoder.SP_LENIENT_BYTES: what separates the request line's three parts
_REQUEST_LINE_SEPARATORS = b" \t\x0b\x0c\r"
# HttpVersion(String): "(\S+)/(\d+)\.(\d+)" on the trimmed, upper-cased text (Java's \S and \d)
_HTTP_VERSION = re.compile(r"[^ \t\n\x0b\x0c\r]+/[0-9]+\.[0-9]+")


def broker_subprotocols(protocols: Iterable[str]) -> tuple[str, ...]:
    """The subprotocols an acceptor offering ``protocols`` (names as in ``protocols=``) registers."""
    result: list[str] = []
    for name in protocols:
        result.extend(SUBPROTOCOLS_BY_PROTOCOL.get(name.upper(), ()))
    return tuple(result)


def accept_key(key: str) -> str:
    """``Sec-WebSocket-Accept`` for ``key``: base64(SHA-1(key + GUID)), the key's non-ASCII chars as ``?``
    (Java ``getBytes(US_ASCII)``)."""
    seed = (key + ACCEPT_GUID).encode("ascii", errors="replace")
    return base64.b64encode(hashlib.sha1(seed).digest()).decode("ascii")


# ---------------------------------------------------------------------------------------------
# Frames


def encode_frame(opcode: int, payload: bytes, *, fin: bool = True, rsv: int = 0, mask: bytes | None = None) -> bytes:
    """One frame as Netty's ``WebSocket08FrameEncoder`` writes it: shortest length form; masked with
    the 4-byte ``mask`` when given (a client), unmasked otherwise (a server)."""
    if not 0 <= opcode <= 0xF or not 0 <= rsv <= 7:
        raise ValueError("opcode is 4 bits, rsv 3 bits")
    head = bytearray([(0x80 if fin else 0) | (rsv << 4) | opcode])
    mask_bit = 0x80 if mask is not None else 0
    length = len(payload)
    if length <= 125:
        head.append(mask_bit | length)
    elif length <= 0xFFFF:
        head.append(mask_bit | 126)
        head += struct.pack(">H", length)
    else:
        head.append(mask_bit | 127)
        head += struct.pack(">Q", length)
    if mask is None:
        return bytes(head) + payload
    if len(mask) != 4:
        raise ValueError("a masking key has 4 bytes")
    return bytes(head) + mask + _xor_mask(payload, mask)


def client_frame(
    opcode: int, payload: bytes, *, fin: bool = True, rsv: int = 0, mask: bytes = b"\x37\xfa\x21\x3d"
) -> bytes:
    """A frame as a client sends it: masked (the default key is RFC 6455 section 5.7's example)."""
    return encode_frame(opcode, payload, fin=fin, rsv=rsv, mask=mask)


def _xor_mask(data: bytes, mask: bytes) -> bytes:
    n = len(data)
    if not n:
        return b""
    key = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")


@dataclass(frozen=True)
class Frame:
    """A decoded frame (for tests and probes reading a server's frames)."""

    opcode: int
    payload: bytes
    fin: bool = True
    rsv: int = 0


def parse_frames(data: bytes, *, masked: bool = False) -> tuple[list[Frame], bytes]:
    """Split ``data`` into complete frames and the incomplete rest; no protocol checks beyond the
    mask bit (``masked``: what a server must receive; unmasked: what a client must receive)."""
    frames: list[Frame] = []
    pos = 0
    while True:
        header = _frame_header(data, pos)
        if header is None:
            return frames, data[pos:]
        fin, rsv, opcode, is_masked, length, start = header
        if length < 0:
            raise ProtocolError("negative frame length")
        if is_masked != masked:
            raise ProtocolError("frame masking is not what this side expects")
        key = b""
        if is_masked:
            key, start = data[start : start + 4], start + 4
        if len(data) < start + length:
            return frames, data[pos:]
        payload = data[start : start + length]
        frames.append(Frame(opcode, _xor_mask(payload, key) if is_masked else payload, fin, rsv))
        pos = start + length


def _frame_header(data: bytes | bytearray, pos: int) -> tuple[bool, int, int, bool, int, int] | None:
    """(fin, rsv, opcode, masked, payload length, offset after the length) or None when incomplete."""
    if len(data) < pos + 2:
        return None
    b0, b1 = data[pos], data[pos + 1]
    length, start = b1 & 0x7F, pos + 2
    if length == 126:
        if len(data) < start + 2:
            return None
        length, start = struct.unpack_from(">H", data, start)[0], start + 2
    elif length == 127:
        if len(data) < start + 8:
            return None
        length, start = struct.unpack_from(">q", data, start)[0], start + 8
    return bool(b0 & 0x80), (b0 >> 4) & 0x7, b0 & 0x0F, bool(b1 & 0x80), length, start


# ---------------------------------------------------------------------------------------------
# Client side (tests, probes)


def build_upgrade_request(
    host: str = "localhost",
    target: str = "/",
    *,
    key: str = "dGhlIHNhbXBsZSBub25jZQ==",
    subprotocols: Sequence[str] = (),
    version: str | None = "13",
    method: str = "GET",
    upgrade: str = "websocket",
    extra_headers: Sequence[tuple[str, str]] = (),
) -> bytes:
    """An HTTP upgrade request as a browser sends it (the default key is RFC 6455 section 1.3's)."""
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}", f"Upgrade: {upgrade}", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {key}"]
    if version is not None:
        lines.append(f"Sec-WebSocket-Version: {version}")
    if subprotocols:
        lines.append("Sec-WebSocket-Protocol: " + ", ".join(subprotocols))
    lines.extend(f"{name}: {value}" for name, value in extra_headers)
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


# ---------------------------------------------------------------------------------------------
# The request head


@dataclass(frozen=True)
class HttpRequest:
    """A request head as Netty decodes it: text as Latin-1, header values trimmed, folded lines joined."""

    method: str
    target: str
    version: str
    headers: tuple[tuple[str, str], ...]

    def get_all(self, name: str) -> list[str]:
        wanted = name.lower()
        return [value for key, value in self.headers if key.lower() == wanted]

    def get(self, name: str) -> str | None:
        """The first value of ``name`` (``HttpHeaders.get``), or None."""
        values = self.get_all(name)
        return values[0] if values else None


class _HeadReader:
    """Netty ``HttpObjectDecoder`` reading one request head, with its limits and strict CRLF lines.

    Complete lines are consumed as they arrive, so at most one line (within its budget) is buffered.
    """

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.request_line: bytes | None = None
        self.header_lines: list[bytes] = []
        self.header_size = 0

    def feed(self, data: bytes) -> bool:
        """Add bytes; True once the empty line ending the head was read (the rest stays in ``buffer``)."""
        self.buffer += data
        if self.request_line is None:
            skip = 0
            while skip < len(self.buffer) and self.buffer[skip] in _SKIPPED_BEFORE_REQUEST:
                skip += 1
            del self.buffer[:skip]
            line = self._line(MAX_REQUEST_LINE, "request line")
            if line is None:
                return False
            self.request_line = line
        while True:
            line = self._line(MAX_HEADER_SIZE - self.header_size, "request header")
            if line is None:
                return False
            if not line:
                return True
            self.header_size += len(line)
            self.header_lines.append(line)

    def _line(self, budget: int, what: str) -> bytes | None:
        buf = self.buffer
        lf = buf.find(b"\n", 0, budget + 2)
        if lf < 0:
            if len(buf) > budget:
                raise ProtocolError(f"HTTP {what} longer than Netty's limit")
            return None
        if lf == 0 or buf[lf - 1] != 0x0D:
            raise ProtocolError("HTTP line ends with a lone LF (Netty parses lines strictly)")
        if lf - 1 > budget:
            raise ProtocolError(f"HTTP {what} longer than Netty's limit")
        line = bytes(buf[: lf - 1])
        del buf[: lf + 1]
        return line

    def request(self) -> HttpRequest:
        assert self.request_line is not None
        method, target, version = _split_request_line(self.request_line)
        headers: list[tuple[str, str]] = []
        name: str | None = None
        value = ""
        for raw in self.header_lines:
            if name is not None and raw[:1] in (b" ", b"\t"):
                value = value + " " + java_trim(raw.decode("latin-1"))  # obs-fold, as Netty joins it
                continue
            if name is not None:
                headers.append(_checked_header(name, value))
            name, value = _split_header(raw)
        if name is not None:
            headers.append(_checked_header(name, value))
        return HttpRequest(method, target, version, tuple(headers))


def _split_request_line(line: bytes) -> tuple[str, str, str]:
    if not line or line[-1] in _SKIPPED_BEFORE_REQUEST:
        raise ProtocolError("HTTP request line ends with a control or white-space character")
    parts = re.split(rb"[ \t\x0b\x0c\r]+", line.lstrip(_REQUEST_LINE_SEPARATORS), maxsplit=2)
    if len(parts) != 3:
        raise ProtocolError("HTTP request line does not have a method, a target and a version")
    method, target, version = (part.decode("latin-1") for part in parts)
    if any(ch in _SKIPPED_BEFORE_REQUEST for ch in parts[0]):
        raise ProtocolError("HTTP method has a control character")
    if not _HTTP_VERSION.fullmatch(java_trim(version).upper()):
        raise ProtocolError(f"not an HTTP version: {version!r}")
    return method, target, version


def _split_header(raw: bytes) -> tuple[str, str]:
    colon = raw.find(b":")
    if colon < 0:
        raise ProtocolError("HTTP header line without a colon")
    name = raw[:colon]
    if not name or any(ch not in _TOKEN_CHARS for ch in name):
        raise ProtocolError("HTTP header name is not a token")
    start, end = colon + 1, len(raw)
    while start < end and raw[start] in b" \t":
        start += 1
    if start < end and raw[start] in b"\x0b\x0c\r\x1c\x1d\x1e\x1f\n":
        raise ProtocolError("HTTP header value starts with white space other than SP or HTAB")
    while end > start and raw[end - 1] in b" \t":
        end -= 1
    return name.decode("latin-1"), raw[start:end].decode("latin-1")


def _checked_header(name: str, value: str) -> tuple[str, str]:
    """Netty's default value validation: field-content (VCHAR, obs-text, SP, HTAB inside)."""
    if value and (ord(value[0]) < 0x21 or value[0] == "\x7f"):
        raise ProtocolError("HTTP header value starts with a prohibited character")
    if any((ord(ch) < 0x20 and ch != "\t") or ch == "\x7f" for ch in value):
        raise ProtocolError("HTTP header value has a prohibited control character")
    return name, value


# ---------------------------------------------------------------------------------------------
# Events


@dataclass(frozen=True)
class Upgraded:
    """The broker accepted the upgrade: write ``response`` (the 101); frames follow."""

    request: HttpRequest
    subprotocol: str | None
    response: bytes = field(repr=False)


@dataclass(frozen=True)
class HttpRefused:
    """The request is not served as a WebSocket: write ``response`` (maybe empty), then close.

    ``status`` is the HTTP status the broker answers with, or None where it answers nothing (it
    then keeps the connection open and silent; arouter closes it). ``reason`` says which case.
    """

    request: HttpRequest
    status: int | None
    response: bytes
    reason: str


@dataclass(frozen=True)
class DataReceived:
    """Payload bytes of text, binary and continuation frames: the inner protocol's byte stream."""

    data: bytes


@dataclass(frozen=True)
class PingReceived:
    """A ping: write ``reply`` (the pong the broker sends)."""

    payload: bytes
    reply: bytes = field(repr=False)


@dataclass(frozen=True)
class CloseReceived:
    """A close frame: write ``reply`` (the broker echoes the frame), then close the socket."""

    code: int | None
    reason: str
    reply: bytes = field(repr=False)


Event = Union[Upgraded, HttpRefused, DataReceived, PingReceived, CloseReceived]


class ServerState(Enum):
    HANDSHAKE = "reading the HTTP request"
    BODY = "skipping the request's body (Content-Length)"
    OPEN = "exchanging frames"
    CLOSED = "answered or closing: the shell writes what it was given and closes"
    FAILED = "protocol error: the shell closes"


_FORBIDDEN_BARE = b"HTTP/1.1 403 Forbidden\r\n\r\n"
_FORBIDDEN_PAGE = b"HTTP/1.1 403 Forbidden\r\ncontent-length: 13\r\n\r\n403 Forbidden"
_UPGRADE_REQUIRED = b"HTTP/1.1 426 Upgrade Required\r\nsec-websocket-version: 13\r\ncontent-length: 0\r\n\r\n"


class WebSocketServer:
    """The broker's side of one HTTP/WebSocket connection (after ``detect.is_http`` said HTTP).

    ``subprotocols`` are those the acceptor registers (:func:`broker_subprotocols`);
    ``max_frame_payload_length`` is ``webSocketMaxFramePayloadLength``; ``encoder_type`` is
    ``webSocketEncoderType`` (``binary`` or ``text``).
    """

    def __init__(
        self,
        subprotocols: Sequence[str] = ALL_SUBPROTOCOLS,
        *,
        max_frame_payload_length: int = DEFAULT_MAX_FRAME_PAYLOAD_LENGTH,
        encoder_type: str = DEFAULT_ENCODER_TYPE,
    ) -> None:
        if encoder_type not in ENCODER_TYPES:
            raise ValueError(f"webSocketEncoderType must be one of {ENCODER_TYPES}, not {encoder_type!r}")
        # Any int, as the broker passes it on: not positive refuses every frame with a longer payload
        # (the frame decoder compares ``length > max``), so nothing reaches the inner protocol.
        # WebSocketServerHandshaker(...): the CSV Artemis joins, split on "," and trimmed
        self.subprotocols = tuple(java_trim(p) for p in java_split(",".join(subprotocols), ","))
        self.max_frame_payload_length = max_frame_payload_length
        self.data_opcode = BINARY if encoder_type == "binary" else TEXT
        self.state = ServerState.HANDSHAKE
        self.request: HttpRequest | None = None
        self.subprotocol: str | None = None
        self.upgraded = False
        self._head = _HeadReader()
        self._body_left = 0
        self._buffer = bytearray()
        self._fragmented = False

    @property
    def buffered(self) -> int:
        """Bytes held back waiting for the rest of a line or frame (bounded by the limits)."""
        return len(self._head.buffer) + len(self._buffer)

    # -- receiving ------------------------------------------------------------------------------

    def receive_data(self, data: bytes) -> list[Event]:
        if self.state is ServerState.FAILED:
            raise ProtocolError("the WebSocket connection already failed")
        if self.state is ServerState.CLOSED:
            return []  # WebSocket08FrameDecoder drops everything after a close frame
        try:
            return self._receive(data)
        except ProtocolError:
            self.state = ServerState.FAILED
            self._buffer.clear()
            self._head.buffer.clear()
            raise

    def _receive(self, data: bytes) -> list[Event]:
        events: list[Event] = []
        if self.state is ServerState.HANDSHAKE:
            if not self._head.feed(data):
                return events
            data = bytes(self._head.buffer)
            self._head.buffer.clear()
            request = self.request = self._head.request()
            if request.method == "POST":
                # HttpAcceptorHandler forwards a POST body to protocol detection (CORE over HTTP)
                events.append(self._refused(None, b"", "POST is the broker's HTTP transport, not served here"))
                return events
            if request.get("transfer-encoding") is not None:
                raise ProtocolError("a request body sent with Transfer-Encoding (not implemented)")
            # HttpObjectAggregator hands the request on only once its body is in, whatever the answer
            self._body_left = _content_length(request)
            self.state = ServerState.BODY
        if self.state is ServerState.BODY:
            skipped = min(self._body_left, len(data))
            self._body_left -= skipped
            data = data[skipped:]
            if self._body_left:
                return events
            events.append(self._answer())
            if self.state is not ServerState.OPEN:
                return events
        self._buffer += data
        self._frames(events)
        return events

    def _answer(self) -> Upgraded | HttpRefused:
        """``ProtocolDecoder.channelRead`` then ``WebSocketServerHandler.handleHttpRequest`` and the handshaker."""
        request = self.request
        assert request is not None
        upgrade = request.get("upgrade")
        if java_equals_ignore_case(upgrade, "activemq-remoting"):
            return self._refused(403, _FORBIDDEN_BARE, "Upgrade: activemq-remoting is forbidden")
        if not java_equals_ignore_case(upgrade, "websocket"):
            return self._refused(None, b"", "HTTP request without a WebSocket upgrade: the broker answers nothing")
        if request.method != "GET":
            return self._refused(403, _FORBIDDEN_PAGE, f"{request.method} cannot upgrade to WebSocket")
        version = request.get("sec-websocket-version")
        if version is None:
            return self._refused(None, b"", "no Sec-WebSocket-Version: draft-76 is not implemented")
        if version not in HANDSHAKE_VERSIONS:
            return self._refused(426, _UPGRADE_REQUIRED, f"unsupported Sec-WebSocket-Version {version!r}")
        if version == "13" and not _has_token(request.get_all("connection"), "upgrade"):
            raise ProtocolError("WebSocket handshake without the token 'upgrade' in a Connection header")
        if request.get("sec-websocket-key") is None:
            raise ProtocolError("WebSocket handshake without Sec-WebSocket-Key")
        self.subprotocol = self._select_subprotocol(request.get("sec-websocket-protocol"))
        self.state = ServerState.OPEN
        self.upgraded = True
        return Upgraded(request, self.subprotocol, self._accept_response(request))

    def _refused(self, status: int | None, response: bytes, reason: str) -> HttpRefused:
        assert self.request is not None
        self.state = ServerState.CLOSED
        return HttpRefused(self.request, status, response, reason)

    def _select_subprotocol(self, requested: str | None) -> str | None:
        """``WebSocketServerHandshaker.selectSubprotocol``: the client's order wins; ``*`` takes any."""
        if requested is None or not self.subprotocols:
            return None
        for offered in java_split(requested, ","):
            candidate = java_trim(offered)
            if "*" in self.subprotocols or candidate in self.subprotocols:
                return candidate
        return None

    def _accept_response(self, request: HttpRequest) -> bytes:
        key = request.get("sec-websocket-key")
        assert key is not None
        lines = [
            "HTTP/1.1 101 Switching Protocols",
            "upgrade: websocket",
            "connection: upgrade",
            f"sec-websocket-accept: {accept_key(key)}",
        ]
        if self.subprotocol is not None:
            lines.append(f"sec-websocket-protocol: {self.subprotocol}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii", errors="replace")

    def _frames(self, events: list[Event]) -> None:
        """``WebSocket08FrameDecoder.decode`` over the buffer, one complete frame at a time."""
        buf = self._buffer
        while self.state is ServerState.OPEN:
            header = _frame_header(buf, 0)
            if header is None:
                if len(buf) >= 2:
                    self._check_first_bytes(buf[0], buf[1])
                return
            fin, rsv, opcode, masked, length, start = header
            self._check_first_bytes(buf[0], buf[1])
            if buf[1] & 0x7F == 126 and length < 126:
                raise ProtocolError("invalid data frame length (not using minimal length encoding)")
            if buf[1] & 0x7F == 127:
                if length < 0:
                    raise ProtocolError("invalid data frame length (negative length)")
                if length < 65536:
                    raise ProtocolError("invalid data frame length (not using minimal length encoding)")
            if length > self.max_frame_payload_length:
                raise ProtocolError(f"Max frame length of {self.max_frame_payload_length} has been exceeded.")
            end = start + 4 + length
            if len(buf) < end:
                return
            payload = _xor_mask(bytes(buf[start + 4 : end]), bytes(buf[start : start + 4]))
            del buf[:end]
            self._frame(fin, opcode, payload, events)

    def _check_first_bytes(self, b0: int, b1: int) -> None:
        """The checks Netty makes once it holds a frame's first two bytes (READING_SECOND)."""
        fin, rsv, opcode = bool(b0 & 0x80), (b0 >> 4) & 0x7, b0 & 0x0F
        if rsv:
            raise ProtocolError(f"RSV != 0 and no extension negotiated, RSV:{rsv}")
        if not b1 & 0x80:
            raise ProtocolError("received a frame that is not masked as expected")
        length1 = b1 & 0x7F
        if opcode > 7:
            if not fin:
                raise ProtocolError("fragmented control frame")
            if length1 > MAX_CONTROL_PAYLOAD:
                raise ProtocolError("control frame with payload length > 125 octets")
            if opcode not in (CLOSE, PING, PONG):
                raise ProtocolError(f"control frame using reserved opcode {opcode}")
            if opcode == CLOSE and length1 == 1:
                raise ProtocolError("received close control frame with payload len 1")
        else:
            if opcode not in (CONTINUATION, TEXT, BINARY):
                raise ProtocolError(f"data frame using reserved opcode {opcode}")
            if not self._fragmented and opcode == CONTINUATION:
                raise ProtocolError("received continuation data frame outside fragmented message")
            if self._fragmented and opcode != CONTINUATION:
                raise ProtocolError("received non-continuation data frame while inside fragmented message")

    def _frame(self, fin: bool, opcode: int, payload: bytes, events: list[Event]) -> None:
        if opcode == PING:
            events.append(PingReceived(payload, encode_frame(PONG, payload)))
        elif opcode == PONG:
            pass  # WebSocketServerHandler ignores pongs
        elif opcode == CLOSE:
            self.state = ServerState.CLOSED
            self._buffer.clear()
            code, reason = _check_close_body(payload)
            events.append(CloseReceived(code, reason, encode_frame(CLOSE, payload)))
        else:
            self._fragmented = not fin
            if payload:
                last = events[-1] if events else None
                if isinstance(last, DataReceived):
                    events[-1] = DataReceived(last.data + payload)
                else:
                    events.append(DataReceived(payload))

    # -- sending --------------------------------------------------------------------------------

    def send_data(self, payload: bytes) -> bytes:
        """One broker write as Artemis ``WebSocketFrameEncoder`` frames it: a binary (or text) frame,
        then continuation frames, each at most ``max_frame_payload_length`` bytes, unmasked."""
        if not self.upgraded:
            raise RuntimeError("send_data() on a connection that was not upgraded to WebSocket")
        size = self.max_frame_payload_length
        if size < 1:
            # Artemis WebSocketFrameEncoder: Unpooled.buffer(negative) throws, 0 never ends. Unreachable
            # through the broker: with such a limit no data frame gets through, so nothing answers.
            raise ValueError(f"webSocketMaxFramePayloadLength {size} cannot split a write")
        count = len(payload)
        first = min(count, size)
        out = [encode_frame(self.data_opcode, payload[:first], fin=first == count)]
        pos = first
        while pos < count:
            end = min(count, pos + size)
            out.append(encode_frame(CONTINUATION, payload[pos:end], fin=end == count))
            pos = end
        return b"".join(out)

    def close(self, code: int | None = 1000, reason: str = "") -> bytes:
        """A close frame. The broker never sends one of its own (it closes TCP); here for completeness."""
        body = b"" if code is None else struct.pack(">H", code) + reason.encode("utf-8")
        if len(body) > MAX_CONTROL_PAYLOAD:
            raise ValueError("a close reason longer than 123 bytes does not fit a control frame")
        return encode_frame(CLOSE, body)


def _has_token(values: list[str], token: str) -> bool:
    """``HttpHeaders.containsValue(name, token, ignoreCase=true)``: comma-separated, trimmed, ASCII case."""
    return any(java_trim(part).lower() == token for value in values for part in value.split(","))


def _content_length(request: HttpRequest) -> int:
    """``HttpUtil.normalizeAndGetContentLength`` without duplicates allowed: one non-negative number."""
    values = request.get_all("content-length")
    if not values:
        return 0
    if len(values) > 1 or "," in values[0]:
        raise ProtocolError("multiple Content-Length values")
    text = java_trim(values[0])
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise ProtocolError(f"invalid Content-Length {values[0]!r}")
    return int(text)


def _check_close_body(payload: bytes) -> tuple[int | None, str]:
    """``WebSocket08FrameDecoder.checkCloseFrameBody`` then the frame's status and reason."""
    if not payload:
        return None, ""
    signed = struct.unpack_from(">h", payload)[0]  # Netty reads a signed short
    if not (signed < 0 or 1000 <= signed <= 1003 or 1007 <= signed <= 1014 or signed >= 3000):
        raise ProtocolError(f"Invalid close frame getStatus code: {signed}")
    reason = payload[2:]
    try:
        codecs.utf_8_decode(reason, "strict", False)  # Utf8Validator.check without finish()
    except UnicodeDecodeError:
        raise ProtocolError("close frame reason: bytes are not UTF-8") from None
    return signed & 0xFFFF, reason.decode("utf-8", errors="replace")
