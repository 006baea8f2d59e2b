"""What the fast path (:mod:`.fast`) says for one routing answer on one listener and protocol, worked
out once: the fixed parts of the route line, the counter the answer moves, the bytes on the wire.

A router hands out one :class:`.decide.Decision` per target (``RouterService.answer``), so the
route line of a redirect differs from one connection to the next only by the client's address and
key, and its answer only by the MQTT protocol level. :class:`Said` holds the rest for one
decision; :class:`QuickSide` keeps them per listener and protocol, with that listener's
connections counter. Nothing here depends on the key: each connection is still routed by the
engine; only what follows from the engine's answer is kept.
"""

from __future__ import annotations

from ..protocols.mqtt import redirect_connack, refusal_connack
from ..routing.router import OK, Router, RouteResult
from ..routing.targets import Target
from .decide import Decision
from .metrics import Cell, Metrics

#: decisions kept per listener and protocol before they are all dropped (targets that changed
#: readiness or address leave old decisions behind: this bounds them)
MAX_SAID = 256


class Said:
    """The route line's parts (``pre`` + address + ``mid`` + repr(key) + ``post``: the broker's
    AMQ221085 / AMQ221086 line as :func:`.decide._account` writes it, for a connection without a
    PROXY header), the counter and the answers for one decision of ``router``."""

    __slots__ = ("decision", "router", "target", "status", "local", "pre", "mid", "post", "info_pre", "post_line",
                 "cell", "mqtt", "amqp")

    def __init__(self, decision: Decision, router: Router, listener: str, protocol: str, metrics: Metrics,
                 result: RouteResult | None = None) -> None:
        self.decision = decision
        self.router = router
        # the engine's answer it follows from (RouterService.answer(result) is decision): the target is
        # kept, so the cache keyed by its id finds this Said only for that very target
        self.target: Target | None = result.target if result is not None else None
        self.status = result.status if result is not None else None
        self.local = result.local if result is not None else None
        name = router.name
        head = f"[{protocol}, {listener}, router {name}, {router.key_type} key "
        if decision.status == OK:
            self.pre = "AMQ221085: Route "
            self.mid = f" to {decision.shown} {head}"
            self.post = "]"
            self.cell: Cell = metrics.redirects.cell(name, decision.connector_name or "?", protocol)
        else:
            self.pre = "AMQ221086: Cannot route "
            self.mid = f" {head}"
            self.post = f"]: {decision.shown}"
            self.cell = metrics.refusals.cell(name, decision.status, protocol)
        # the same for a whole text line after its stamp: " INFO  " + pre ... post + newline (fewer parts to join)
        self.info_pre = f" INFO  {self.pre}"
        self.post_line = f"{self.post}\n"
        self.mqtt: dict[int, bytes] = {}  # the CONNACK by protocol level
        self.amqp: bytes | None = None

    def connack(self, level: int) -> bytes:
        """The MQTT answer at protocol ``level`` (MqttServer.redirect's or refuse's bytes)."""
        answer = self.mqtt.get(level)
        if answer is None:
            decision = self.decision
            if decision.status == OK:
                assert decision.host is not None and decision.port is not None
                answer = redirect_connack(level, decision.host, decision.port)
            else:
                answer = refusal_connack(level, decision.status)
            self.mqtt[level] = answer
        return answer


class QuickSide:
    """One listener's fast path for one protocol: its connections counter and a :class:`Said` per
    decision."""

    __slots__ = ("protocol", "listener", "metrics", "connections", "known", "picked")

    def __init__(self, listener: str, protocol: str, metrics: Metrics) -> None:
        self.protocol = protocol
        self.listener = listener
        self.metrics = metrics
        self.connections = metrics.connections.cell(listener, protocol)
        #: the Said of each engine answer by the id of its target (a hot path looks here first and checks
        #: it is of that very target, status, locality and router, then calls :meth:`said`)
        self.known: dict[int, Said] = {}
        #: the same for the answers :meth:`Router.pick` chose (``Router.picked``): their status and locality
        #: follow from the target (None: REFUSED_UNAVAILABLE), so a hot path checks the target and router only
        self.picked: dict[int, Said] = {}

    def said(self, result: RouteResult, decision: Decision, router: Router) -> Said:
        """The Said of ``decision``, what the router's service answers to the engine's ``result``."""
        return self._keep(self.known, result, decision, router)

    def said_picked(self, result: RouteResult, decision: Decision, router: Router) -> Said:
        """:meth:`said` for a ``result`` that ``router.picked`` made."""
        return self._keep(self.picked, result, decision, router)

    def _keep(self, kept: dict[int, Said], result: RouteResult, decision: Decision, router: Router) -> Said:
        if len(kept) >= MAX_SAID:
            kept.clear()
        said = kept[id(result.target)] = Said(decision, router, self.listener, self.protocol, self.metrics, result)
        return said
