"""From a routed connection's facts to the answer on the wire: the one place ``serve`` asks the
routing engine (``Router.route``), waits for a pool quorum, commits a persisted cache entry,
counts, and logs the broker-style ``Route ... to ...`` line."""

from __future__ import annotations

from dataclasses import dataclass

from ..config.model import BrokerConfig
from ..routing.keys import Connection
from ..routing.router import OK, REFUSED_UNAVAILABLE, REFUSED_USE_ANOTHER, Router, RouteResult
from .log import ServeLog
from .metrics import Metrics
from .monitor import PoolMonitor
from .store import RouterStore


@dataclass(frozen=True)
class Decision:
    """What to tell the client: ``status`` OK means redirect to ``host:port``."""

    result: RouteResult
    status: str
    host: str | None = None
    port: int | None = None
    node_id: str | None = None
    connector_name: str | None = None
    params: dict[str, bool | int | str] | None = None
    note: str = ""

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

    def answer(self, result: RouteResult) -> Decision:
        if result.status != OK or result.target is None:
            return Decision(result, result.status)
        target = result.target
        if result.local:
            if self.local_target is None:
                return Decision(result, REFUSED_USE_ANOTHER, note="local target: no --local-target, refused")
            host, port = self.local_target
            return Decision(result, OK, host, port, target.node_id, "local", {"host": host, "port": str(port)})
        if target.host is None or target.port is None:
            return Decision(result, REFUSED_UNAVAILABLE, note=f"target {target.name} has no known address")
        return Decision(result, OK, target.host, target.port, target.node_id, target.name,
                        self.connector_params(target.name, target.host, target.port))

    def connector_params(self, name: str, host: str, port: int) -> dict[str, bool | int | str]:
        """The target connector's parameters as the broker's TransportConfiguration holds them:
        host and port as strings (the URL schema's ``"" + value``) plus the URL's query."""
        params: dict[str, bool | int | str] = {"host": host, "port": str(port)}
        connector = self.cfg.connectors.get(name)
        if connector is not None:
            for key, value in connector.url.params.items():
                if key not in ("host", "port"):
                    params[key] = value
        return params


@dataclass(frozen=True)
class Peer:
    """Where a connection comes from, for keys and log lines."""

    listener: str
    remote_address: str  # as Java prints it: /10.0.0.1:5000
    sni_host: str | None = None


async def route(service: RouterService, monitor: PoolMonitor, log: ServeLog, metrics: Metrics, peer: Peer,
                protocol: str, *, client_id: str | None, username: str | None,
                roles: tuple[str, ...] = ()) -> Decision:
    router = service.router
    conn = Connection(client_id=client_id, username=username, sni_host=peer.sni_host,
                      remote_address=peer.remote_address, roles=roles)
    result = router.route(conn)
    if (result.status == REFUSED_UNAVAILABLE and result.decided_by == "policy" and monitor.enabled
            and monitor.below_quorum(router)):
        await _wait_like_the_pool(router, monitor, log, peer, result)
        result = router.route(conn)  # the engine decides again on what the wait left
    if service.store is not None:
        await service.store.flush()  # a cached target is on disk before the client hears of it
    decision = service.answer(result)
    _account(decision, service, log, metrics, peer, protocol)
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


def _account(decision: Decision, service: RouterService, log: ServeLog, metrics: Metrics, peer: Peer,
             protocol: str) -> None:
    result = decision.result
    router = service.router
    key = result.key if result.key == result.key_value else f"{result.key} -> {result.key_value}"
    where = f"[{protocol}, {peer.listener}, router {router.name}, {router.key_type} key {key!r}]"
    structured = log.structured
    fields: dict[str, object] = {
        "remote": peer.remote_address, "protocol": protocol, "listener": peer.listener, "router": router.name,
        "key_type": router.key_type, "key": result.key, "key_value": result.key_value,
        "status": decision.status, "engine_status": result.status, "decided_by": result.decided_by,
    } if structured else {}
    if decision.redirect:
        label = decision.connector_name or "?"
        metrics.inc("arouter_redirects_total", router=router.name, target=label, protocol=protocol)
        node = f", node {decision.node_id}" if decision.node_id else ""
        message = (f"AMQ221085: Route {peer.remote_address} to {label} "
                   f"({decision.host}:{decision.port}{node}) {where}")
        if structured:
            log.info("route", message, target=label, address=f"{decision.host}:{decision.port}",
                     node_id=decision.node_id, **fields)
        else:
            log.info("route", message)
        return
    metrics.inc("arouter_refusals_total", router=router.name, status=decision.status, protocol=protocol)
    note = f" ({decision.note})" if decision.note else ""
    log.info("route", f"AMQ221086: Cannot route {peer.remote_address} {where}: {decision.status}{note}",
             **({"target": None, **fields} if structured else {}))
