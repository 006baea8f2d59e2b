"""From a routed connection's facts to the answer on the wire: the one place ``serve`` asks the
routing engine (``Router.route``), waits for a pool quorum, commits a persisted cache entry,
counts, and logs the broker-style ``Route ... to ...`` line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from ..config.model import BrokerConfig
from ..javastr import java_hashmap_order
from ..jregex.javaregex import MATCH_DEADLINE, match_budget, open_budget
from ..protocols.core_buffer import ParamValue, TransportConfig
from ..routing.keys import Connection
from ..routing.router import OK, REFUSED_UNAVAILABLE, REFUSED_USE_ANOTHER, Router, RouteResult
from ..routing.targets import Target
from .log import ServeLog
from .metrics import Metrics
from .monitor import PoolMonitor
from .store import RouterStore


@dataclass(frozen=True)
class Decision:
    """What to tell the client: ``status`` OK means redirect to ``host:port`` (CORE clients get
    ``connector``, the target's TransportConfiguration). It depends on the target alone, so a
    router keeps one per target (:meth:`RouterService.answer`): treat it, ``connector``
    included, as read-only."""

    status: str
    host: str | None = None
    port: int | None = None
    node_id: str | None = None
    connector_name: str | None = None
    connector: TransportConfig | None = None
    note: str = ""
    node_id_known: bool = True  # False: node_id is a placeholder (the target's name), not its real id
    #: how the route log line shows it: "TARGET (HOST:PORT, node ID)", or "STATUS (note)"
    shown: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.status == OK:
            node = f", node {self.node_id}" if self.node_id else ""
            shown = f"{self.connector_name or '?'} ({self.host}:{self.port}{node})"
        else:
            shown = f"{self.status} ({self.note})" if self.note else self.status
        object.__setattr__(self, "shown", shown)  # frozen: set once, here

    @property
    def redirect(self) -> bool:
        return self.status == OK


@dataclass
class RouterService:
    """One deployed router as ``serve`` runs it: the engine, its cache store, its local target."""

    router: Router
    cfg: BrokerConfig
    local_target: tuple[str, int] | None = None
    store: RouterStore | None = None
    # the answer for each target, kept while the engine hands out that very Target object (its
    # readiness or address changes make a new one)
    _answers: dict[str, tuple[Target, Decision]] = field(default_factory=dict, init=False, repr=False)
    _refusals: dict[str, Decision] = field(default_factory=dict, init=False, repr=False)
    #: placeholder node ids already reported in the log (CORE redirects carry node ids)
    guesses_logged: set[str] = field(default_factory=set, init=False, repr=False)

    def answer(self, result: RouteResult) -> Decision:
        target = result.target
        if result.status != OK or target is None:
            refusal = self._refusals.get(result.status)
            if refusal is None:
                refusal = self._refusals[result.status] = Decision(result.status)
            return refusal
        key = "" if result.local else target.name  # "": the local target (no connector has an empty name)
        known = self._answers.get(key)
        if known is not None and known[0] is target:
            return known[1]
        decision = self._answer(target, result.local)
        self._answers[key] = (target, decision)
        return decision

    def _answer(self, target: Target, local: bool) -> Decision:
        if local:
            if self.local_target is None:
                return Decision(REFUSED_USE_ANOTHER, note="local target: no --local-target, refused")
            host, port = self.local_target
            return Decision(OK, host, port, target.node_id, "local", self.connector_config("local", host, port),
                            node_id_known=target.node_id_known)
        if target.host is None or target.port is None:
            return Decision(REFUSED_UNAVAILABLE, note=f"target {target.name} has no known address")
        return Decision(OK, target.host, target.port, target.node_id, target.name,
                        self.connector_config(target.name, target.host, target.port),
                        node_id_known=target.node_id_known)

    def connector_config(self, name: str, host: str, port: int) -> TransportConfig:
        """The target's connector as the broker's TransportConfiguration holds it: for a
        ``<connector>`` of broker.xml its params (the URL's transport parameters, ``host`` and
        ``port`` as text, plus what ``<mask-password>`` adds) and extraProps (the other query
        parameters), each in HashMap order. For any other target (``--local-target``, a member
        known only from ``--targets``, or one that merely shares a connector's name, as a
        discovered node announcing its own ``artemis`` connector does) host and port as a
        ``tcp://host:port`` URL gives them."""
        connector = self.cfg.connectors.get(name)
        if connector is None or (connector.host, connector.port) != (host, port):
            return TransportConfig(name, params=_host_port_params(host, port))
        params = connector.params or connector.url.params  # a model built without <mask-password> reading
        return TransportConfig(name, params=dict(params), extra_props=dict(connector.url.extra_props))


def _host_port_params(host: str, port: int) -> dict[str, ParamValue]:
    given: dict[str, ParamValue] = {"host": host, "port": str(port)}
    return {key: given[key] for key in java_hashmap_order(given)}


class Peer(NamedTuple):
    """Where a connection comes from, for keys and log lines (a tuple: one is made per socket)."""

    listener: str
    # as Java prints the socket address: /10.0.0.1:5000 (keys and our log lines); after a PROXY header
    # the header's source as the broker stores it: "203.0.113.9:40000", "::1:40000", "null:0"
    remote_address: str
    sni_host: str | None = None
    via: str | None = None  # after a PROXY header: the socket address it came over (the proxy's)

    @property
    def broker_address(self) -> str:
        """``connection.getRemoteAddress()`` as the broker (2.43+) puts it in its texts (AMQ229031...):
        SocketAddressUtil drops the leading ``/``: ``10.0.0.1:5000``, ``[0:0:0:0:0:0:0:1%0]:5000``; after
        a PROXY header, the address the header gave, as it is (ProxyProtocolUtil.getRemoteAddress)."""
        address = self.remote_address
        return address[1:] if address.startswith("/") and self.via is None else address

    @property
    def socket_address(self) -> str:
        """The socket's own peer as the broker prints it without ``/`` (SocketAddressUtil.toString),
        PROXY header or not: what AMQ224152 and AMQ222208 name."""
        address = self.remote_address if self.via is None else self.via
        return address[1:] if address.startswith("/") else address


# How long one regex evaluation (key-filter find, local-target-filter matches) may hold the event
# loop: a catastrophic pattern set through management ((a|a)+b on a long key) would otherwise stall
# every connection. A key whose evaluation runs out of it gets no answer: its connection is closed
# and a warning names the router and the filter (the broker would keep that connection's thread
# busy for as long as the pattern takes). Keys that finish within it are answered as the broker does.
MATCH_BUDGET_SECONDS = 0.005


class MatchBudgetExceeded(Exception):
    """A routing regex ran out of :data:`MATCH_BUDGET_SECONDS` (the connection is closed, not answered)."""


def route_within_budget(router: Router, conn: Connection) -> RouteResult:
    """``router.route(conn)`` with its regex evaluations (key-filter and local-target-filter together)
    bounded by :data:`MATCH_BUDGET_SECONDS`."""
    if router.key_filter is None and router.local_target_filter is None:
        return router.route(conn)  # no regex to bound (both can be set through management: asked each time)
    try:
        with match_budget(MATCH_BUDGET_SECONDS):
            return router.route(conn)
    except TimeoutError:
        raise _exceeded(router) from None


def route_value_within_budget(router: Router, client_id: str | None, raw: str | None) -> RouteResult:
    """``router.route_value(client_id, raw)`` (serve's fast path) bounded as :func:`route_within_budget`
    bounds ``router.route``."""
    if router.key_filter is None and router.local_target_filter is None:
        return router.route_value(client_id, raw)
    token = open_budget(MATCH_BUDGET_SECONDS)  # match_budget's entry and exit, without its object
    try:
        return router.route_value(client_id, raw)
    except TimeoutError:
        raise _exceeded(router) from None
    finally:
        MATCH_DEADLINE.reset(token)


def _exceeded(router: Router) -> MatchBudgetExceeded:
    filters = [f"key-filter {router.key_filter!r}" if router.key_filter else "",
               f"local-target-filter {router.local_target_filter.source!r}"
               if router.local_target_filter is not None else ""]
    return MatchBudgetExceeded(
        f"router {router.name}: evaluating {' / '.join(f for f in filters if f) or 'a filter'} took longer "
        f"than {MATCH_BUDGET_SECONDS * 1000:g} ms for this key, the budget its regex evaluations get")


def can_route_now(service: RouterService, monitor: PoolMonitor) -> bool:
    """:func:`route` would not wait: no persisted cache to commit, and the pool is not below its
    quorum (the engine cannot leave it there without a wait: nothing changes readiness meanwhile)."""
    return service.store is None and not (monitor.enabled and monitor.below_quorum(service.router))


def route_now(service: RouterService, log: ServeLog, metrics: Metrics, peer: Peer, protocol: str, *,
              client_id: str | None, username: str | None, roles: tuple[str, ...] = ()) -> Decision:
    """:func:`route` without awaiting, where :func:`can_route_now` holds: the same engine call, regex
    budget, answer, metrics and route line."""
    router = service.router
    # _connection and route_within_budget, inline: this runs for every connection answered at once
    conn = Connection(client_id, username, peer.sni_host, peer.remote_address, roles, peer.via is not None, True)
    if router.key_filter is None and router.local_target_filter is None:
        result = router.route(conn)
    else:
        result = route_within_budget(router, conn)
    decision = service.answer(result)
    _account(result, decision, router, log, metrics, peer, protocol)
    return decision


async def route(service: RouterService, monitor: PoolMonitor, log: ServeLog, metrics: Metrics, peer: Peer,
                protocol: str, *, client_id: str | None, username: str | None,
                roles: tuple[str, ...] = ()) -> Decision:
    router = service.router
    conn = _connection(peer, client_id, username, roles)
    result = route_within_budget(router, conn)
    if (result.status == REFUSED_UNAVAILABLE and result.decided_by == "policy" and monitor.enabled
            and monitor.below_quorum(router)):
        await _wait_like_the_pool(router, monitor, log, peer, result)
        result = route_within_budget(router, conn)  # the engine decides again on what the wait left
    if service.store is not None:
        await service.store.flush()  # a cached target is on disk before the client hears of it
    return _answered(service, result, log, metrics, peer, protocol)


def _connection(peer: Peer, client_id: str | None, username: str | None, roles: tuple[str, ...]) -> Connection:
    return Connection(client_id, username, peer.sni_host, peer.remote_address, roles, peer.via is not None,
                      True)  # roles_in_broker_order: positional, the cheaper call on this path


def _answered(service: RouterService, result: RouteResult, log: ServeLog, metrics: Metrics, peer: Peer,
              protocol: str) -> Decision:
    """The client's answer to ``result``, counted and logged (the route line)."""
    decision = service.answer(result)
    _account(result, decision, service.router, log, metrics, peer, protocol)
    return decision


async def _wait_like_the_pool(router: Router, monitor: PoolMonitor, log: ServeLog, peer: Peer,
                              result: RouteResult) -> None:
    """The waits of ConnectionRouter.getTarget when the pool is below its quorum.

    A cached key whose target is not ready first waits in AbstractPool.getReadyTarget (up to
    quorum-timeout, until that target is ready or the quorum is met); then, unless the cached
    target came back, AbstractPool.getTargets waits up to quorum-timeout for the quorum. Both
    waits happen in the broker before it answers, so a client can wait twice quorum-timeout.
    """
    pool = router.pool
    if pool is None or pool.quorum_timeout <= 0:
        return
    cached = router.cache.get(result.key_value) if router.cache is not None else None
    waited: list[str] = []
    if cached is not None:
        waited.append("getReadyTarget")
        if await monitor.wait_cached(router, cached):
            _log_wait(log, router, peer, waited, f"cached target {cached} is ready")
            return
    met = await monitor.wait_quorum(router)
    waited.append("getTargets")
    outcome = "quorum met" if met else f"quorum-size {pool.quorum_size} not met within quorum-timeout"
    _log_wait(log, router, peer, waited, outcome)


def _log_wait(log: ServeLog, router: Router, peer: Peer, waited: list[str], outcome: str) -> None:
    log.info("quorum-wait", f"{peer.remote_address} [router {router.name}]: waited for the pool "
                            f"({' then '.join(waited)}): {outcome}",
             remote=peer.remote_address, router=router.name, waited=list(waited), outcome=outcome)


def _account(result: RouteResult, decision: Decision, router: Router, log: ServeLog, metrics: Metrics, peer: Peer,
             protocol: str) -> None:
    key = result.key
    if key != result.key_value:
        key = f"{key} -> {result.key_value}"
    name = router.name
    # "[MQTT, listener, router R, CLIENT_ID key " is the same for every connection of one listener and
    # protocol: built once (the router's name and key type are part of the cache key: management cannot
    # change them, but a test or an embedder may build another router)
    head = _WHERE.get((protocol, peer.listener, name, router.key_type))
    if head is None:
        head = _WHERE[protocol, peer.listener, name, router.key_type] = (
            f"[{protocol}, {peer.listener}, router {name}, {router.key_type} key ")
    # the broker's line names connection.toString(), whose remote= is getRemoteAddress(): no "/"
    address = peer.remote_address
    if peer.via is None:
        tail = "]"
        if address[:1] == "/":
            address = address[1:]  # Peer.broker_address, without the property call on the hot path
    else:
        tail = f", via PROXY from {peer.socket_address}]"
    if decision.status == OK:
        label = decision.connector_name or "?"
        metrics.redirects.inc(name, label, protocol)
        message = f"AMQ221085: Route {address} to {decision.shown} {head}{key!r}{tail}"
    else:
        metrics.refusals.inc(name, decision.status, protocol)
        message = f"AMQ221086: Cannot route {address} {head}{key!r}{tail}: {decision.shown}"
    if log.structured:
        log.info("route", message, **route_fields(result, decision, router, peer, protocol))
    else:
        log.info("route", message)


#: the start of the route line's "[...]" by (protocol, listener, router, key type)
_WHERE: dict[tuple[str, str, str, str], str] = {}


def route_fields(result: RouteResult, decision: Decision, router: Router, peer: Peer,
                 protocol: str) -> dict[str, object]:
    """The route record's fields (JSON lines, sinks): only built when the log keeps fields."""
    if decision.status == OK:
        where: dict[str, object] = {"target": decision.connector_name or "?",
                                    "address": f"{decision.host}:{decision.port}", "node_id": decision.node_id}
    else:
        where = {"target": None}
    return where | {
        "remote": peer.remote_address, "via": peer.via, "protocol": protocol, "listener": peer.listener,
        "router": router.name,
        "key_type": router.key_type, "key": result.key, "key_value": result.key_value,
        "status": decision.status, "engine_status": result.status, "decided_by": result.decided_by,
    }
