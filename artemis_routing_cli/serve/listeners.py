"""Which sockets ``arouter serve`` binds: the acceptors of broker.xml that carry ``router=NAME``,
or ``--listen HOST:PORT`` paired with ``--router NAME``.

Acceptors usually say ``0.0.0.0``; the listener binds ``127.0.0.1`` unless ``--bind-host`` says
otherwise (``--bind-host acceptor`` keeps the acceptor's own host, without an IPv6 address's
brackets). The acceptor parameters the broker reads for such a socket are honoured:

* ``protocols`` (``Acceptor.protocols``: None for every protocol; names the broker does not know
  are only logged, by the broker and at start-up here);
* ``sslEnabled``;
* ``handshake-timeout`` (seconds; ``ConfigurationHelper.getIntProperty``: ``Integer.parseInt``
  of the text as written, so `` 5`` is not a number; one that is not falls back to the broker's
  default 10 with a log line; 0 or less means the broker has no timeout, and serve keeps its own
  ``--handshake-timeout`` as a safety limit);
* ``connectionsAllowed`` (``getLongProperty``: ``Long.parseLong``, untrimmed, else the default -1:
  no limit; the broker accepts a connection while it has fewer than that many, so 0 or any other
  negative number refuses every connection);
* the AMQP settings (``saslMechanisms``, ``maxFrameSize``, ``initialRemoteMaxFrameSize``,
  ``amqpIdleTimeout``: see :mod:`.amqp_settings`);
* ``proxyProtocolEnabled`` (``getBooleanProperty``: ``Boolean.parseBoolean``, ``true`` in any case,
  untrimmed; anything else is false);
* the WebSocket settings ``ProtocolHandler`` reads at each upgrade: ``webSocketMaxFramePayloadLength``
  (``getIntProperty``, -1 when absent or not an int, then the deprecated ``stompMaxFramePayloadLength``
  the same way, then 65536), ``webSocketEncoderType`` and ``webSocketCompressionSupported``. The
  broker reads all of these from the acceptor's transport *params* (``NettyAcceptor.getConfiguration``),
  and ``webSocketEncoderType`` and ``webSocketCompressionSupported`` are not among its allowable
  acceptor keys: written in an acceptor URL they land in extraProps and the broker never sees them
  (binary frames, no compression whatever the URL says). serve reads them where the broker does and
  says so at start-up.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..config.model import BrokerConfig
from ..errors import UsageError
from ..javastr import java_parse_boolean, java_parse_int, java_parse_long
from ..protocols.websocket import (
    ALL_SUBPROTOCOLS,
    DEFAULT_ENCODER_TYPE,
    DEFAULT_MAX_FRAME_PAYLOAD_LENGTH,
    ENCODER_TYPES,
    broker_subprotocols,
)
from .amqp_settings import DEFAULT_AMQP, AmqpSettings, amqp_settings, connection_ttl_override

DEFAULT_BIND_HOST = "127.0.0.1"
BIND_ACCEPTOR = "acceptor"
DEFAULT_HANDSHAKE_TIMEOUT = 10  # TransportConstants.DEFAULT_HANDSHAKE_TIMEOUT (seconds)
NO_CONNECTION_LIMIT = -1  # TransportConstants.DEFAULT_CONNECTIONS_ALLOWED

_HOST_PORT = re.compile(r"^(?:\[(?P<v6>[^\]]+)\]|(?P<host>[^:\[\]]*)):(?P<port>\d+)$")


@dataclass(frozen=True)
class WebSocketSettings:
    """What the acceptor's ProtocolHandler gives a WebSocket upgrade: the subprotocols its managers
    register, ``webSocketMaxFramePayloadLength``, ``webSocketEncoderType`` (None: a value
    ``WebSocketFrameEncoderType.valueOfType`` refuses, so every upgrade fails) and
    ``webSocketCompressionSupported`` (serve never negotiates permessage-deflate)."""

    subprotocols: tuple[str, ...] = ALL_SUBPROTOCOLS
    max_frame_payload_length: int = DEFAULT_MAX_FRAME_PAYLOAD_LENGTH
    encoder_type: str | None = DEFAULT_ENCODER_TYPE
    compression: bool = False


DEFAULT_WEBSOCKET = WebSocketSettings()


@dataclass(frozen=True)
class ListenerSpec:
    name: str  # acceptor name, or "listen-N"
    router: str
    host: str
    port: int
    protocols: tuple[str, ...] | None = None  # None: every protocol
    tls: bool = False
    source: str = ""  # the acceptor URL or the --listen value
    handshake_timeout: float | None = None  # seconds, the acceptor's handshake-timeout (None: --handshake-timeout)
    connections_allowed: int | None = None  # the acceptor's connectionsAllowed (None: no limit; 0: none)
    amqp: AmqpSettings = DEFAULT_AMQP
    proxy_protocol: bool = False  # proxyProtocolEnabled: a PROXY header first (before TLS)
    websocket: WebSocketSettings = DEFAULT_WEBSOCKET
    notes: tuple[str, ...] = field(default=(), compare=False)  # start-up warnings about the acceptor

    def allows(self, protocol: str) -> bool:
        return self.protocols is None or protocol in self.protocols


def parse_host_port(value: str, option: str, default_host: str = DEFAULT_BIND_HOST) -> tuple[str, int]:
    """``HOST:PORT``, ``[IPv6]:PORT`` or ``PORT``."""
    text = value.strip()
    if text.isdigit():
        host, port = default_host, int(text)
    else:
        m = _HOST_PORT.match(text)
        if not m:
            raise UsageError(f"{option} {value!r}: expected HOST:PORT, [IPv6]:PORT or PORT")
        host = m.group("v6") or m.group("host") or default_host
        port = int(m.group("port"))
    if not 0 <= port <= 65535:
        raise UsageError(f"{option} {value!r}: port {port} is out of range")
    return host, port


def acceptor_handshake_timeout(value: str | None) -> tuple[int | None, str | None]:
    """ProtocolHandler: ``getIntProperty("handshake-timeout", 10)``, a timeout only when it is > 0.
    Seconds, or None (not written: ``--handshake-timeout`` applies; 0 or less: the broker has no
    timeout, ``--handshake-timeout`` stays as serve's safety limit), and a start-up note."""
    if value is None:
        return None, None
    number = java_parse_int(value)
    if number is None:
        return DEFAULT_HANDSHAKE_TIMEOUT, (f"handshake-timeout={value!r} is not an int (Integer.parseInt): the "
                                           f"broker logs it and uses {DEFAULT_HANDSHAKE_TIMEOUT}")
    if number <= 0:
        return None, (f"handshake-timeout={value}: the broker sets no handshake timeout; serve keeps "
                      "--handshake-timeout as its limit")
    return number, None


def acceptor_connections_allowed(value: str | None) -> tuple[int | None, str | None]:
    """NettyAcceptor: ``getLongProperty("connectionsAllowed", -1)``: None for no limit, else how
    many connections it may hold (a negative number other than -1 holds none)."""
    if value is None:
        return None, None
    number = java_parse_long(value)
    if number is None:
        return None, (f"connectionsAllowed={value!r} is not a long (Long.parseLong): the broker logs it and "
                      "sets no limit")
    if number == NO_CONNECTION_LIMIT:
        return None, None
    return max(number, 0), None


def _int_property(params: Mapping[str, str | None], name: str, notes: list[str]) -> int:
    """``ConfigurationHelper.getIntProperty(name, -1, params)``: Integer.parseInt of the text as written;
    -1 when absent, or (with the broker's propertyNotInteger log) when it is not an int."""
    value = params.get(name)
    if value is None:
        return -1
    number = java_parse_int(value)
    if number is None:
        notes.append(f"{name}={value!r} is not an int (Integer.parseInt): the broker logs it and takes its default")
        return -1
    return number


def acceptor_proxy_protocol(params: Mapping[str, str | None]) -> tuple[bool, str | None]:
    """NettyAcceptor: ``getBooleanProperty("proxyProtocolEnabled", false)``, and a start-up note for a
    value that is neither ``true`` nor ``false`` (in any case), which Boolean.parseBoolean reads as false."""
    value = params.get("proxyProtocolEnabled")
    enabled = java_parse_boolean(value)
    if value is not None and not enabled and value.lower() != "false":
        return False, (f"proxyProtocolEnabled={value!r} is not 'true' (Boolean.parseBoolean, untrimmed): the broker "
                       "expects no PROXY header and refuses one")
    return enabled, None


def websocket_settings(params: Mapping[str, str | None], extra_props: Mapping[str, str | None],
                       protocols: tuple[str, ...] | None) -> tuple[WebSocketSettings, list[str]]:
    """ProtocolHandler.ProtocolDecoder.channelRead for ``Upgrade: websocket``, over the acceptor's
    transport params (what NettyAcceptor holds), and the start-up notes."""
    notes: list[str] = []
    stomp = _int_property(params, "stompMaxFramePayloadLength", notes)
    if stomp != -1:
        notes.append("stompMaxFramePayloadLength is deprecated (AMQ221038 at each upgrade): the broker reads it "
                     "when webSocketMaxFramePayloadLength is not set")
    stomp = stomp if stomp != -1 else DEFAULT_MAX_FRAME_PAYLOAD_LENGTH
    length = _int_property(params, "webSocketMaxFramePayloadLength", notes)
    length = length if length != -1 else stomp
    if length < 1:
        notes.append(f"webSocket frame payload limit {length}: the broker's frame decoder refuses every WebSocket "
                     "frame with a longer payload, so no client gets through a WebSocket; serve does the same")
    encoder: str | None = params.get("webSocketEncoderType", DEFAULT_ENCODER_TYPE)
    if encoder not in ENCODER_TYPES:
        notes.append(f"webSocketEncoderType={encoder!r}: WebSocketFrameEncoderType.valueOfType refuses it "
                     "(AMQ229248) at every upgrade, so the broker closes every WebSocket client; so does serve")
        encoder = None
    compression = java_parse_boolean(params.get("webSocketCompressionSupported"))
    if compression:
        notes.append("webSocketCompressionSupported=true: the broker would negotiate permessage-deflate; serve "
                     "does not (clients offering it get no extension, which they accept)")
    for name in ("webSocketEncoderType", "webSocketCompressionSupported"):
        if name in extra_props:
            notes.append(f"{name}={extra_props[name]!r} is not a transport parameter of the broker's acceptor (not in "
                         "TransportConstants.ALLOWABLE_ACCEPTOR_KEYS): the URL puts it in extraProps, which "
                         "NettyAcceptor never reads, so the broker ignores it (binary frames, no compression); "
                         "so does serve")
    subprotocols = broker_subprotocols(protocols) if protocols is not None else ALL_SUBPROTOCOLS
    settings = WebSocketSettings(subprotocols, length, encoder, compression)
    return (DEFAULT_WEBSOCKET if settings == DEFAULT_WEBSOCKET else settings), notes


def from_acceptors(cfg: BrokerConfig, routers: list[str] | None, bind_host: str | None) -> list[ListenerSpec]:
    specs: list[ListenerSpec] = []
    ttl_override, _ = connection_ttl_override(cfg)
    for acceptor in cfg.routed_acceptors():
        router = acceptor.router or ""
        if routers and router not in routers:
            continue
        url = acceptor.url
        if bind_host == BIND_ACCEPTOR:
            if url.host_unknown:
                raise UsageError(f"acceptor {acceptor.name!r}: --bind-host acceptor, but java.net.URI finds no host "
                                 f"in {url.authority or url.raw!r} (the broker holds 'null' and cannot listen)")
            host = url.socket_host
        else:
            host = bind_host or DEFAULT_BIND_HOST
        notes: list[str] = []
        timeout, note = acceptor_handshake_timeout(url.param("handshake-timeout"))
        notes += [note] if note else []
        allowed, note = acceptor_connections_allowed(url.param("connectionsAllowed"))
        notes += [note] if note else []
        if acceptor.unknown_protocols:
            notes.append(f"protocols= names {', '.join(repr(p) for p in acceptor.unknown_protocols)}, which the "
                         "broker does not know (it only logs them)" + ("" if acceptor.protocols else
                                                                      ": no known name left, every protocol is served"))
        proxy, note = acceptor_proxy_protocol(url.params)
        notes += [note] if note else []
        websocket, ws_notes = websocket_settings(url.params, url.extra_props, acceptor.protocols)
        notes += ws_notes
        amqp = amqp_settings({**url.params, **url.extra_props}, ttl_override)
        specs.append(ListenerSpec(
            name=acceptor.name, router=router, host=host, port=url.port, protocols=acceptor.protocols,
            tls=acceptor.ssl_enabled, source=url.raw,
            handshake_timeout=float(timeout) if timeout is not None else None,
            connections_allowed=allowed, amqp=amqp, proxy_protocol=proxy, websocket=websocket,
            notes=tuple(notes) + amqp.notes,
        ))
    return specs


def from_options(listen: list[str], routers: list[str], amqp: AmqpSettings = DEFAULT_AMQP) -> list[ListenerSpec]:
    """``--listen`` values paired with ``--router`` values (one router applies to every listen);
    ``amqp`` is what a default acceptor answers (with ``<connection-ttl-override>``)."""
    if not routers:
        raise UsageError("--listen needs --router NAME (the connection router that decides)")
    if len(routers) not in (1, len(listen)):
        raise UsageError(f"{len(listen)} --listen but {len(routers)} --router: give one --router for all, "
                         "or one per --listen in the same order")
    specs = []
    for i, value in enumerate(listen):
        text = value.strip()
        tls = text.lower().startswith("tls://")
        if tls:
            text = text[len("tls://"):]
        elif text.lower().startswith("tcp://"):
            text = text[len("tcp://"):]
        host, port = parse_host_port(text, "--listen")
        router = routers[i] if len(routers) > 1 else routers[0]
        specs.append(ListenerSpec(name=f"listen-{i + 1}", router=router, host=host, port=port, tls=tls,
                                  source=value, amqp=amqp))
    return specs


def plan_listeners(cfg: BrokerConfig, listen: list[str], routers: list[str],
                   bind_host: str | None) -> list[ListenerSpec]:
    if listen:
        specs = from_options(listen, routers, amqp_settings({}, connection_ttl_override(cfg)[0]))
    else:
        specs = from_acceptors(cfg, routers or None, bind_host)
        if not specs:
            which = f" for router {', '.join(routers)}" if routers else ""
            raise UsageError(f"{cfg.path}: no acceptor carries router=NAME{which}; "
                             "use --listen HOST:PORT --router NAME")
    known = {r.name for r in cfg.connection_routers}
    for spec in specs:
        if spec.router not in known:
            names = ", ".join(sorted(known)) or "none"
            raise UsageError(f"{spec.source}: no connection router named {spec.router!r} in {cfg.path} "
                             f"(routers: {names})")
    return specs
