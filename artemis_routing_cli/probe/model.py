"""What a probe is asked to do and what it found: endpoints, options, per-target and per-pool results.

Passwords live only in :class:`Credentials` (never shown by ``repr``) and never reach a result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..config.masked import is_enc_masked

PROTOCOLS = ("auto", "amqp", "mqtt", "core", "openwire", "none")
#: ``--protocol auto`` tries the protocols the connector URL's ``protocols=`` names first, then
#: these in order: CORE (a connector URL is a CORE connector and the broker's own router talks
#: CORE to its targets), AMQP, MQTT, OpenWire - each on a fresh connection, within the timeout.
AUTO_ORDER = ("core", "amqp", "mqtt", "openwire")
#: The broker's protocol names (``protocols=``) as handshakes.
HANDSHAKE_OF = {"CORE": "core", "HORNETQ": "core", "AMQP": "amqp", "MQTT": "mqtt", "OPENWIRE": "openwire"}
DEFAULT_TIMEOUT = 3.0
#: ``--discovery-timeout`` defaults to the group's refresh-timeout, but never more than this.
MAX_DEFAULT_DISCOVERY_SECONDS = 10.0


@dataclass(frozen=True)
class Credentials:
    """The pool's username/password, used for SASL, MQTT CONNECT and Jolokia basic auth."""

    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def masked(self) -> bool:
        """``ENC(...)``: a masked password arouter cannot unmask; it is then not sent at all."""
        return is_enc_masked(self.password or "")

    def usable(self) -> Credentials:
        """These credentials, minus a masked password."""
        return Credentials(self.username, None) if self.masked else self


@dataclass(frozen=True)
class Endpoint:
    """One pool member to probe: where it is and how to reach it."""

    name: str  # connector name, "local", or the node id of a discovered member
    host: str
    port: int
    source: str = "static"  # static | discovery:NAME | cluster:NAME | local
    tls: bool = False
    sni_host: str | None = None  # connector parameter sniHost (else the host is sent)
    verify_host: bool = False  # connector parameter verifyHost (Artemis default false)
    trust_all: bool = False  # connector parameter trustAll
    node_id: str | None = None  # known from discovery
    local: bool = False
    protocols: tuple[str, ...] = ()  # the URL's protocols= as handshakes ("mqtt", ...): tried first by auto

    def auto_order(self) -> tuple[str, ...]:
        """The handshakes ``auto`` tries on this endpoint, in order."""
        return tuple(dict.fromkeys((*self.protocols, *AUTO_ORDER)))

    @property
    def key(self) -> tuple[object, ...]:
        """Identity of the connection to open: two pools naming the same one share one probe."""
        return (self.host, self.port, self.tls, self.sni_host, self.verify_host, self.trust_all, self.protocols)


@dataclass(frozen=True)
class ProbeOptions:
    timeout: float = DEFAULT_TIMEOUT
    protocol: str = "auto"
    jolokia: str | None = None  # URL template with {host}, {port}, {name}
    jolokia_origin: str | None = None  # None: the Jolokia URL's own origin
    cafile: str | None = None
    insecure: bool = False
    discovery_timeout: float | None = None  # None: the group's refresh-timeout, capped
    local_url: str | None = None  # --local: where the router's own broker listens


@dataclass(frozen=True)
class Handshake:
    """The protocol handshake's outcome; ``detail`` says what the peer told us."""

    protocol: str
    ok: bool
    detail: str = ""
    peer_id: str | None = None  # AMQP container id or CORE node id

    def to_json(self) -> dict[str, object]:
        return {"protocol": self.protocol, "ok": self.ok, "detail": self.detail, "peer_id": self.peer_id}


@dataclass(frozen=True)
class Management:
    """What the Jolokia read of ``org.apache.activemq.artemis:broker=...`` gave."""

    active: bool | None = None
    node_id: str | None = None
    connection_count: int | None = None
    broker_name: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class Check:
    """Measurements for one endpoint (before any pool judges readiness)."""

    reachable: bool
    latency_ms: float | None = None
    tls: str | None = None  # e.g. "TLSv1.3" once the TLS handshake succeeded
    sni: str | None = None
    handshake: Handshake | None = None
    management: Management | None = None
    error: str | None = None
    handshake_ms: float | None = None  # from the first handshake byte to its outcome (all tries of auto)
    verdict_ms: float | None = None  # from the start of the check to the verdict: connect, handshake(s)


@dataclass(frozen=True)
class TargetResult:
    endpoint: Endpoint
    check: Check | None  # None: not probed (the local target without --local)
    ready: bool
    readiness: str  # how readiness was judged, in words
    node_id: str | None = None
    connection_count: int | None = None

    @property
    def error(self) -> str | None:
        if self.check is None:
            return None
        if self.check.error:
            return self.check.error
        if self.check.handshake is not None and not self.check.handshake.ok:
            return self.check.handshake.detail
        if self.check.management is not None and self.check.management.error:
            return self.check.management.error
        return None

    def to_json(self) -> dict[str, object]:
        c = self.check
        return {
            "name": self.endpoint.name,
            "source": self.endpoint.source,
            "host": self.endpoint.host,
            "port": self.endpoint.port,
            "local": self.endpoint.local,
            "probed": c is not None,
            "reachable": c.reachable if c else None,
            "tls": c.tls if c else None,
            "sni": c.sni if c else None,
            "handshake": c.handshake.to_json() if c and c.handshake else None,
            "ready": self.ready,
            "readiness": self.readiness,
            "node_id": self.node_id,
            "connection_count": self.connection_count,
            "latency_ms": round(c.latency_ms, 1) if c and c.latency_ms is not None else None,
            "handshake_ms": round(c.handshake_ms, 1) if c and c.handshake_ms is not None else None,
            "verdict_ms": round(c.verdict_ms, 1) if c and c.verdict_ms is not None else None,
            "error": self.error,
        }


@dataclass(frozen=True)
class PoolResult:
    router: str
    source: str
    quorum_size: int
    check_period: int
    targets: tuple[TargetResult, ...]
    notes: tuple[str, ...] = ()

    @property
    def ready_count(self) -> int:
        return sum(1 for t in self.targets if t.ready)

    @property
    def active(self) -> bool:
        """AbstractPool.getTargets: the pool serves only with at least quorum-size ready targets."""
        return self.ready_count >= self.quorum_size

    def to_json(self) -> dict[str, object]:
        return {
            "router": self.router,
            "source": self.source,
            "quorum_size": self.quorum_size,
            "ready": self.ready_count,
            "active": self.active,
            "targets": [t.to_json() for t in self.targets],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class ProbeReport:
    pools: tuple[PoolResult, ...]
    notes: tuple[str, ...] = ()

    @property
    def all_active(self) -> bool:
        return all(p.active for p in self.pools)

    @property
    def exit_code(self) -> int:
        return 0 if self.all_active else 1

    def to_json(self) -> dict[str, object]:
        return {"pools": [p.to_json() for p in self.pools], "notes": list(self.notes)}
