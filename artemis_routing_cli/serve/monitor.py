"""Pool monitoring: each router's targets checked every ``check-period`` (the broker's
TargetMonitor), readiness changes logged and fed to the routing engine's pool.

A check is any ``Checker``: an async function from a target to a
:class:`~artemis_routing_cli.probe.readiness.Readiness`. The default one opens a TCP (TLS when
the connector says ``sslEnabled=true``) connection with the probe's connector and judges it with
the probe's readiness rule, so ``serve`` and ``probe`` agree on what "ready" means. The local
target is always ready (``LocalTarget.checkReadiness``).

With monitoring on, targets start not ready, as in the broker, until their first check passes;
a client that arrives before the quorum is met waits up to ``quorum-timeout``
(``AbstractPool.getTargets``) through :meth:`PoolMonitor.wait_quorum`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

from ..config.model import BrokerConfig
from ..probe.connect import ConnectFailure, open_connection
from ..probe.model import Check, Endpoint
from ..probe.readiness import Readiness, judge, policy_needs_connection_count
from ..routing.router import Router
from ..routing.targets import Target
from .log import ServeLog
from .metrics import Metrics

Checker = Callable[[Router, Target], Awaitable[Readiness]]

#: Upper bound of one check, in seconds; a check never runs longer than its check-period either.
MAX_CHECK_SECONDS = 3.0


def tcp_checker(cfg: BrokerConfig) -> Checker:
    """Connect to the target's connector (TLS if it asks) and judge it like ``arouter probe``."""

    async def check(router: Router, target: Target) -> Readiness:
        if target.host is None or target.port is None:
            return Readiness(False, "no address known for this target", False)
        connector = cfg.connectors.get(target.name)
        endpoint = Endpoint(name=target.name, host=target.host, port=target.port, source=target.source,
                            tls=bool(connector is not None and connector.ssl_enabled),
                            trust_all=True)
        period = (router.pool.check_period if router.pool is not None else 5000) / 1000.0
        needs_count = policy_needs_connection_count(router.policy.name if router.policy else None)
        try:
            conn = await open_connection(endpoint, min(period, MAX_CHECK_SECONDS))
        except ConnectFailure as exc:
            return judge(Check(reachable=False, error=str(exc)), needs_connection_count=needs_count)
        await conn.close()
        return judge(Check(reachable=True, latency_ms=conn.latency_ms, tls=conn.tls),
                     needs_connection_count=needs_count)

    return check


class PoolMonitor:
    def __init__(self, routers: list[Router], checker: Checker | None, log: ServeLog, metrics: Metrics) -> None:
        self.routers = {r.name: r for r in routers}
        self.checker = checker
        self.log = log
        self.metrics = metrics
        self._changed: dict[str, asyncio.Event] = {}
        self._tasks: list[asyncio.Task[None]] = []
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
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - stopping: nothing to report
                pass
        self._tasks.clear()

    async def _watch(self, router: Router, name: str) -> None:
        assert self.checker is not None
        while True:
            pool = router.pool
            if pool is None:
                return
            target = next((t for t in pool.targets if t.name == name), None)
            if target is None:
                return
            started = time.monotonic()
            try:
                readiness = await self.checker(router, target)
            except Exception as exc:  # noqa: BLE001 - a failing check makes the target not ready
                readiness = Readiness(False, f"check failed: {type(exc).__name__}: {exc}", False)
            self.set_ready(router.name, name, readiness)
            delay = pool.check_period / 1000.0 - (time.monotonic() - started)
            await asyncio.sleep(max(delay, 0.0))

    def set_ready(self, router_name: str, target_name: str, readiness: Readiness) -> None:
        """Record a check result; a change of readiness is logged and wakes quorum waiters."""
        router = self.routers[router_name]
        pool = router.pool
        if pool is None:
            return
        changed = False
        targets = []
        for t in pool.targets:
            if t.name == target_name and t.ready != readiness.ready:
                t = replace(t, ready=readiness.ready)
                changed = True
            targets.append(t)
        key = (router_name, target_name)
        first = key not in self._reasons
        self._reasons[key] = readiness.reason
        if changed:
            router.pool = replace(pool, targets=tuple(targets))
        if changed or first:
            state = "ready" if readiness.ready else "not ready"
            ready_count = sum(1 for t in router.pool.targets if t.ready)
            self.log.info("readiness", f"router {router_name}: target {target_name} is {state} "
                          f"({readiness.reason}); {ready_count} of {len(pool.targets)} ready, "
                          f"quorum-size {pool.quorum_size}",
                          router=router_name, target=target_name, ready=readiness.ready, reason=readiness.reason)
        if changed:
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
        return pool is not None and sum(1 for t in pool.targets if t.ready) < pool.quorum_size

    async def wait_quorum(self, router: Router) -> bool:
        """Wait up to the pool's quorum-timeout for quorum-size ready targets; True once met."""
        pool = router.pool
        if pool is None or pool.quorum_timeout <= 0:
            return not self.below_quorum(router)
        deadline = time.monotonic() + pool.quorum_timeout / 1000.0
        while self.below_quorum(router):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            event = self._changed.setdefault(router.name, asyncio.Event())
            try:
                await asyncio.wait_for(event.wait(), remaining)
            except asyncio.TimeoutError:
                return False
        return True
