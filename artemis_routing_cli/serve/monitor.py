"""Pool monitoring: each router's targets checked every ``check-period`` (the broker's
TargetMonitor), readiness changes logged and fed to the routing engine's pool.

A check is any ``Checker``: an async function from a target to a :class:`TargetCheck` (the
probe's :class:`~artemis_routing_cli.probe.readiness.Readiness` plus what the target said about
itself). ``serve`` uses :func:`readiness_checker`, which *is* ``arouter probe`` for one target -
the same ``check_endpoint`` and readiness rule, so ``serve`` and ``probe`` give one verdict: a TCP
(TLS when the connector says ``sslEnabled=true``) connection, the ``auto`` handshake (each
protocol the port may speak; a port that accepts and never answers is not ready) and, with
``--jolokia URL-TEMPLATE``, the Jolokia read of ``Active``, ``NodeID`` and ``ConnectionCount``. The
node id it learns (management API, else the CORE topology answer) replaces the one from
``--node-id``/``--targets`` (or the placeholder), and the connection count feeds LEAST_CONNECTIONS.

The local target is always ready (``LocalTarget.checkReadiness``) and never checked. With
monitoring on, targets start not ready, as in the broker, until their first check passes; a
client that arrives below the quorum waits as ``AbstractPool`` does (see ``decide``). The engine's
``Pool`` and ``Target`` are immutable: every change replaces the router's ``Pool``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from ..config.model import BrokerConfig
from ..probe.model import DEFAULT_TIMEOUT, Credentials, Endpoint, ProbeOptions
from ..probe.readiness import Readiness, judge, policy_needs_connection_count
from ..probe.resolve import endpoint_for_connector
from ..probe.runner import check_endpoint, node_id_of
from ..routing.router import Router
from ..routing.targets import Target
from .log import ServeLog
from .metrics import Metrics


@dataclass(frozen=True)
class TargetCheck:
    """One check's outcome: the readiness verdict and, from the management API, who it is."""

    readiness: Readiness
    node_id: str | None = None
    connection_count: int | None = None


Checker = Callable[[Router, Target], Awaitable[TargetCheck]]

#: One check's timeout: the probe's (``arouter probe --timeout`` default), whatever the check-period,
#: so that serve and probe judge a slow target alike. A check that outlasts the period delays the next.
CHECK_SECONDS = DEFAULT_TIMEOUT


def _check_seconds(router: Router) -> float:
    return CHECK_SECONDS


def _needs_count(router: Router) -> bool:
    return policy_needs_connection_count(router.policy.name if router.policy else None)


def _endpoint(cfg: BrokerConfig, target: Target) -> Endpoint | None:
    """The probe's endpoint for a target: its connector (TLS, SNI, trust) when it has one."""
    if target.host is None or target.port is None:
        return None
    connector = cfg.connectors.get(target.name)
    if connector is not None:
        return replace(endpoint_for_connector(connector, target.source), host=target.host, port=target.port)
    return Endpoint(name=target.name, host=target.host, port=target.port, source=target.source)


def readiness_checker(cfg: BrokerConfig, template: str | None = None, *, protocol: str = "auto",
                      cafile: str | None = None, insecure: bool = False) -> Checker:
    """``arouter probe`` for one target, every check-period: the probe's ``check_endpoint`` (TCP or
    TLS, the ``auto`` handshake - each protocol the port may speak - and with ``template`` the
    Jolokia read) and its readiness rule, with the pool's username/password. One check for both
    commands: the same target gets the same verdict from ``probe`` and from ``serve``. The node
    id comes from the management API, else from the CORE topology answer."""

    async def check(router: Router, target: Target) -> TargetCheck:
        endpoint = _endpoint(cfg, target)
        if endpoint is None:
            return TargetCheck(Readiness(False, "no address known for this target", False))
        router_cfg = cfg.router(router.name)
        pool_cfg = router_cfg.pool if router_cfg is not None else None
        creds = Credentials(pool_cfg.username, pool_cfg.password) if pool_cfg is not None else Credentials()
        options = ProbeOptions(timeout=_check_seconds(router), protocol=protocol, jolokia=template, cafile=cafile,
                               insecure=insecure)
        measured = await check_endpoint(endpoint, creds, options)
        verdict = judge(measured, needs_connection_count=_needs_count(router))
        m = measured.management
        count = m.connection_count if m is not None and m.error is None else None
        return TargetCheck(verdict, node_id_of(endpoint, measured), count)

    return check


class PoolMonitor:
    def __init__(self, routers: list[Router], checker: Checker | None, log: ServeLog, metrics: Metrics) -> None:
        self.routers = {r.name: r for r in routers}
        self.checker = checker
        self.log = log
        self.metrics = metrics
        self._changed: dict[str, asyncio.Event] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False
        self._reasons: dict[tuple[str, str], str] = {}

    @property
    def enabled(self) -> bool:
        return self.checker is not None

    def start(self) -> None:
        for router in self.routers.values():
            pool = router.pool
            if pool is None:
                continue
            if self.checker is not None:
                # Like TargetMonitor: a target is not ready before its first successful check.
                router.pool = replace(pool, targets=tuple(
                    t if t.local else replace(t, ready=False) for t in pool.targets))
                for target in pool.targets:
                    if not target.local:
                        self._tasks.append(asyncio.create_task(self._watch(router, target.name)))
            self._publish(router)

    async def stop(self) -> None:
        # Python 3.11's asyncio.wait_for can swallow a cancellation that arrives as the awaited
        # check completes (gh-86296), so a watcher may live on after one cancel(): tell the
        # watchers to stop, and cancel whatever is still running until every one has ended.
        self._stopping = True
        pending = set(self._tasks)
        while pending:
            for task in pending:
                task.cancel()
            _, pending = await asyncio.wait(pending, timeout=0.5)
        for task in self._tasks:
            if not task.cancelled():
                task.exception()  # retrieved, so asyncio logs nothing: stopping has nothing to report
        self._tasks.clear()

    async def _watch(self, router: Router, name: str) -> None:
        assert self.checker is not None
        while not self._stopping:
            pool = router.pool
            if pool is None:
                return
            target = next((t for t in pool.targets if t.name == name), None)
            if target is None:
                return
            started = time.monotonic()
            try:
                check = await self.checker(router, target)
            except Exception as exc:  # noqa: BLE001 - a failing check makes the target not ready
                check = TargetCheck(Readiness(False, f"check failed: {type(exc).__name__}: {exc}", False))
            self.record(router.name, name, check)
            delay = pool.check_period / 1000.0 - (time.monotonic() - started)
            await asyncio.sleep(max(delay, 0.0))

    def learn_local_node_id(self, router: Router, host: str, port: int) -> None:
        """Read this broker's own node id from ``--local-target`` (the local broker) with the
        readiness check, every check-period until it answers one; CORE redirects and topology
        answers then carry it instead of the stand-in ``local``."""
        self._tasks.append(asyncio.create_task(self._learn_local(router, host, port)))

    async def _learn_local(self, router: Router, host: str, port: int) -> None:
        assert self.checker is not None
        probe_target = Target(name=router.local.name, node_id=router.local.node_id, host=host, port=port,
                              local=True, node_id_known=False, source="local")
        while not self._stopping and not router.local.node_id_known:
            try:
                check = await self.checker(router, probe_target)
            except Exception:  # noqa: BLE001 - no node id this time; try again next period
                check = TargetCheck(Readiness(False, "check failed", False))
            if check.node_id:
                self.set_local_node_id(router, check.node_id)
                return
            period = router.pool.check_period if router.pool is not None else 5000
            await asyncio.sleep(period / 1000.0)

    def set_local_node_id(self, router: Router, node_id: str) -> None:
        router.local = replace(router.local, node_id=node_id, node_id_known=True)
        pool = router.pool
        if pool is not None:
            router.pool = replace(pool, targets=tuple(replace(t, node_id=node_id, node_id_known=True) if t.local
                                                      else t for t in pool.targets))
        self.log.info("node-id", f"router {router.name}: this broker's node id is {node_id} (read from "
                                 "--local-target by the readiness check)",
                      router=router.name, target=router.local.name, node_id=node_id)

    def set_ready(self, router_name: str, target_name: str, readiness: Readiness) -> None:
        """Record a readiness verdict alone (no node id or count learned)."""
        self.record(router_name, target_name, TargetCheck(readiness))

    def record(self, router_name: str, target_name: str, check: TargetCheck) -> None:
        """Record a check: readiness, node id and connection count go into a new ``Pool`` of the
        router; readiness and node id changes are logged, readiness changes wake quorum waiters."""
        router = self.routers[router_name]
        pool = router.pool
        if pool is None:
            return
        readiness = check.readiness
        ready_changed = False
        new_node: str | None = None
        targets = []
        for t in pool.targets:
            if t.name == target_name:
                updated = t
                if t.ready != readiness.ready:
                    updated = replace(updated, ready=readiness.ready)
                    ready_changed = True
                if check.node_id and (check.node_id != t.node_id or not t.node_id_known):
                    updated = replace(updated, node_id=check.node_id, node_id_known=True)
                    new_node = check.node_id
                if check.connection_count is not None and check.connection_count != t.connection_count:
                    updated = replace(updated, connection_count=check.connection_count)
                if check.connection_count is not None:
                    self.metrics.set("arouter_pool_target_connections", check.connection_count,
                                     router=router_name, target=target_name)
                t = updated
            targets.append(t)
        key = (router_name, target_name)
        first = key not in self._reasons
        self._reasons[key] = readiness.reason
        router.pool = replace(pool, targets=tuple(targets))
        if new_node is not None:
            self.log.info("node-id", f"router {router_name}: target {target_name} has node id {new_node} "
                                     "(read from the target by the readiness check)",
                          router=router_name, target=target_name, node_id=new_node)
        if ready_changed or first:
            state = "ready" if readiness.ready else "not ready"
            ready_count = sum(1 for t in router.pool.targets if t.ready)
            self.log.info("readiness", f"router {router_name}: target {target_name} is {state} "
                          f"({readiness.reason}); {ready_count} of {len(pool.targets)} ready, "
                          f"quorum-size {pool.quorum_size}",
                          router=router_name, target=target_name, ready=readiness.ready, reason=readiness.reason)
        if ready_changed:
            self._publish(router)
            event = self._changed.pop(router_name, None)
            if event is not None:
                event.set()

    def _publish(self, router: Router) -> None:
        pool = router.pool
        if pool is None:
            return
        for t in pool.targets:
            self.metrics.set("arouter_pool_target_ready", 1 if t.ready else 0, router=router.name, target=t.name)
        self.metrics.set("arouter_pool_ready_targets", sum(1 for t in pool.targets if t.ready), router=router.name)

    def below_quorum(self, router: Router) -> bool:
        pool = router.pool
        return pool is not None and pool.below_quorum()

    def ready_node(self, router: Router, node_id: str) -> bool:
        pool = router.pool
        return pool is not None and pool.ready_target(node_id) is not None

    async def wait_until(self, router: Router, done: Callable[[], bool], timeout_ms: int) -> bool:
        """Wait up to ``timeout_ms`` for ``done()``, re-checked whenever a readiness of this router
        changes; True once it holds. (The broker re-checks every 100 ms or spins; we wake at once.)"""
        if done():
            return True
        if timeout_ms <= 0:
            return False
        deadline = time.monotonic() + timeout_ms / 1000.0
        while not done():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            event = self._changed.setdefault(router.name, asyncio.Event())
            try:
                await asyncio.wait_for(event.wait(), remaining)
            except asyncio.TimeoutError:
                return done()
        return True

    async def wait_quorum(self, router: Router) -> bool:
        """AbstractPool.getTargets: wait up to quorum-timeout for quorum-size ready targets."""
        pool = router.pool
        if pool is None:
            return False
        return await self.wait_until(router, lambda: not self.below_quorum(router), pool.quorum_timeout)

    async def wait_cached(self, router: Router, node_id: str) -> bool:
        """AbstractPool.getReadyTarget: wait up to quorum-timeout while the quorum is not met,
        until the cached node is ready (True) or the quorum is met (False: choose again)."""
        pool = router.pool
        if pool is None:
            return False
        await self.wait_until(router, lambda: self.ready_node(router, node_id) or not self.below_quorum(router),
                              pool.quorum_timeout)
        return self.ready_node(router, node_id)
