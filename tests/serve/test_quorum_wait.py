"""The pool waits of ConnectionRouter.getTarget, driven through ``decide.route`` with readiness set
by hand on the monitor (no checks run): AbstractPool.getReadyTarget for a cached key whose target
is down, then AbstractPool.getTargets for the quorum. The engine decides after each wait."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from artemis_routing_cli.config import load
from artemis_routing_cli.probe.readiness import Readiness
from artemis_routing_cli.routing.cache import monotonic_ms
from artemis_routing_cli.routing.router import OK, REFUSED_UNAVAILABLE, Router
from artemis_routing_cli.routing.targets import state_from_options
from artemis_routing_cli.serve.decide import Peer, RouterService, route
from artemis_routing_cli.serve.log import ServeLog
from artemis_routing_cli.serve.metrics import Metrics
from artemis_routing_cli.serve.monitor import PoolMonitor
from tests.conftest import broker_xml

UP = Readiness(True, "set by the test", False)
DOWN = Readiness(False, "set by the test", False)
PEER = Peer("listen-1", "/127.0.0.1:5000")


def pool_xml(quorum_timeout: int) -> str:
    return f"""
      <connectors>
        <connector name="a">tcp://10.0.0.1:61616</connector>
        <connector name="b">tcp://10.0.0.2:61616</connector>
        <connector name="c">tcp://10.0.0.3:61616</connector>
      </connectors>
      <connection-routers><connection-router name="r">
        <key-type>CLIENT_ID</key-type><cache><timeout>0</timeout></cache><policy name="FIRST_ELEMENT"/>
        <pool><quorum-size>2</quorum-size><quorum-timeout>{quorum_timeout}</quorum-timeout>
          <static-connectors><connector-ref>a</connector-ref><connector-ref>b</connector-ref>
          <connector-ref>c</connector-ref></static-connectors></pool>
      </connection-router></connection-routers>"""


class Setup:
    def __init__(self, tmp_path: Path, quorum_timeout: int) -> None:
        path = tmp_path / "broker.xml"
        path.write_text(broker_xml(pool_xml(quorum_timeout)), encoding="utf-8")
        cfg = load(str(path))
        state = state_from_options(["a=node-a", "b=node-b", "c=node-c"])
        self.router = Router.from_config(cfg, cfg.connection_routers[0], state, clock=monotonic_ms)
        self.records: list[dict] = []
        self.log = ServeLog("json", stream=io.StringIO(), sink=self.records.append)

        async def never(_router: Router, _target: object) -> Readiness:
            raise AssertionError("no check runs in these tests")

        self.monitor = PoolMonitor([self.router], never, self.log, Metrics())  # enabled, never started
        self.service = RouterService(self.router, cfg)

    def set(self, **ready: bool) -> None:
        for name, up in ready.items():
            self.monitor.set_ready("r", name, UP if up else DOWN)

    async def route(self, client_id: str):  # noqa: ANN201 - a Decision
        return await route(self.service, self.monitor, self.log, Metrics(), PEER, "MQTT",
                           client_id=client_id, username=None)

    def waits(self) -> list[dict]:
        return [r for r in self.records if r["event"] == "quorum-wait"]


def test_cached_target_coming_back_ends_the_wait_below_quorum(tmp_path):
    async def scenario() -> None:
        s = Setup(tmp_path, quorum_timeout=20_000)
        assert (await s.route("c1")).connector_name == "a"  # cached: c1 -> node-a
        s.set(a=False, b=False, c=False)
        task = asyncio.create_task(s.route("c1"))
        await asyncio.sleep(0)  # let the client reach the pool's wait
        assert not task.done()
        s.set(a=True)  # one ready target: the quorum (2) is still not met
        decision = await task
        assert (decision.status, decision.connector_name) == (OK, "a")
        [wait] = s.waits()
        assert wait["waited"] == ["getReadyTarget"] and wait["outcome"] == "cached target node-a is ready"

    asyncio.run(scenario())


def test_quorum_met_while_the_cached_target_stays_down_chooses_again(tmp_path):
    async def scenario() -> None:
        s = Setup(tmp_path, quorum_timeout=20_000)
        assert (await s.route("c1")).connector_name == "a"
        s.set(a=False, b=False, c=False)
        task = asyncio.create_task(s.route("c1"))
        await asyncio.sleep(0)
        s.set(b=True, c=True)
        decision = await task
        assert (decision.status, decision.connector_name) == (OK, "b")
        [wait] = s.waits()
        assert wait["waited"] == ["getReadyTarget", "getTargets"] and wait["outcome"] == "quorum met"

    asyncio.run(scenario())


def test_no_quorum_within_the_timeout_refuses_after_both_waits(tmp_path):
    async def scenario() -> None:
        s = Setup(tmp_path, quorum_timeout=1)
        assert (await s.route("c1")).connector_name == "a"
        s.set(a=False, b=False)
        decision = await s.route("c1")
        assert decision.status == REFUSED_UNAVAILABLE
        [wait] = s.waits()
        assert wait["waited"] == ["getReadyTarget", "getTargets"]
        assert wait["outcome"] == "quorum-size 2 not met within quorum-timeout"
        # a key that was never cached waits only for the quorum
        assert (await s.route("c2")).status == REFUSED_UNAVAILABLE
        assert s.waits()[-1]["waited"] == ["getTargets"]

    asyncio.run(scenario())


def test_cached_target_down_with_quorum_met_is_replaced_without_waiting(tmp_path):
    async def scenario() -> None:
        s = Setup(tmp_path, quorum_timeout=20_000)
        assert (await s.route("c1")).connector_name == "a"
        s.set(a=False)
        decision = await s.route("c1")
        assert (decision.status, decision.connector_name) == (OK, "b")
        assert s.waits() == []

    asyncio.run(scenario())
