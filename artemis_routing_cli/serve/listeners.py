"""Which sockets ``arouter serve`` binds: the acceptors of broker.xml that carry ``router=NAME``,
or ``--listen HOST:PORT`` paired with ``--router NAME``.

Acceptors usually say ``0.0.0.0``; the listener binds ``127.0.0.1`` unless ``--bind-host`` says
otherwise (``--bind-host acceptor`` keeps the acceptor's own host). The acceptor parameters the
broker reads for such a socket are honoured: ``protocols`` (the others are closed),
``sslEnabled``, ``handshake-timeout`` (seconds) and ``connectionsAllowed``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..config.model import BrokerConfig
from ..errors import UsageError

DEFAULT_BIND_HOST = "127.0.0.1"
BIND_ACCEPTOR = "acceptor"
PROTOCOLS = ("AMQP", "CORE", "MQTT", "OPENWIRE", "STOMP")

_HOST_PORT = re.compile(r"^(?:\[(?P<v6>[^\]]+)\]|(?P<host>[^:\[\]]*)):(?P<port>\d+)$")


@dataclass(frozen=True)
class ListenerSpec:
    name: str  # acceptor name, or "listen-N"
    router: str
    host: str
    port: int
    protocols: tuple[str, ...] | None = None  # None: every protocol
    tls: bool = False
    source: str = ""  # the acceptor URL or the --listen value
    handshake_timeout: float | None = None  # seconds, from the acceptor's handshake-timeout
    connections_allowed: int | None = None  # the acceptor's connectionsAllowed

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


def _int_param(value: str | None, what: str, acceptor: str) -> int | None:
    if value is None or not value.strip():
        return None
    try:
        return int(value.strip())
    except ValueError:
        raise UsageError(f"acceptor {acceptor!r}: {what}={value!r} is not a whole number") from None


def from_acceptors(cfg: BrokerConfig, routers: list[str] | None, bind_host: str | None) -> list[ListenerSpec]:
    specs: list[ListenerSpec] = []
    for acceptor in cfg.routed_acceptors():
        router = acceptor.router or ""
        if routers and router not in routers:
            continue
        url = acceptor.url
        host = url.host if bind_host == BIND_ACCEPTOR else (bind_host or DEFAULT_BIND_HOST)
        timeout = _int_param(url.param("handshake-timeout"), "handshake-timeout", acceptor.name)
        allowed = _int_param(url.param("connectionsAllowed"), "connectionsAllowed", acceptor.name)
        specs.append(ListenerSpec(
            name=acceptor.name, router=router, host=host, port=url.port, protocols=acceptor.protocols,
            tls=acceptor.ssl_enabled, source=url.raw,
            handshake_timeout=float(timeout) if timeout and timeout > 0 else None,
            connections_allowed=allowed if allowed and allowed > 0 else None,
        ))
    return specs


def from_options(listen: list[str], routers: list[str]) -> list[ListenerSpec]:
    """``--listen`` values paired with ``--router`` values (one router applies to every listen)."""
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
                                  source=value))
    return specs


def plan_listeners(cfg: BrokerConfig, listen: list[str], routers: list[str],
                   bind_host: str | None) -> list[ListenerSpec]:
    if listen:
        specs = from_options(listen, routers)
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
        if spec.protocols is not None:
            unknown = [p for p in spec.protocols if p not in PROTOCOLS]
            if unknown:
                raise UsageError(f"acceptor {spec.name!r}: unknown protocol {unknown[0]!r} in protocols=")
    return specs
