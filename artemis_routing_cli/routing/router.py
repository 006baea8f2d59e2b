"""The one routing engine: ConnectionRouter.getTarget, step by step, with a trace.

``simulate``, ``serve`` and ``analyze`` all call :meth:`Router.route` (a connection) or
:meth:`Router.route_key` (the management ``getTarget(key)`` entry, which starts at the policy's
key transformation with the key as given).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..config.model import BrokerConfig, ConnectionRouter
from ..config.tokens import undefined_notes
from ..diagnostics import DEPLOYS
from ..errors import ConfigError
from ..jregex.javaregex import JAVA_REGEX, JavaPattern, compile_java
from .cache import RouterCache, frozen_clock
from .keys import (
    INTERNAL_CLIENT_ID_PREFIX,
    KEY_TYPES,
    NEWEST_BROKER,
    NULL_KEY,
    Connection,
    apply_key_filter,
    key_filter_pattern,
    resolve_key,
)
from .policies import (
    MODULO_UNSIGNED_SINCE,
    POLICIES,
    ConsistentHashModuloPolicy,
    LeastConnectionsPolicy,
    Policy,
    make_policy,
)
from .pool import Pool, build_pool, local_target
from .sni import DEFAULT_SNI_ENCODING
from .targets import Target, TargetState

OK = "OK"
REFUSED_UNAVAILABLE = "REFUSED_UNAVAILABLE"
REFUSED_USE_ANOTHER = "REFUSED_USE_ANOTHER"

#: what :meth:`Router.pick` answers when :meth:`Router.route_value` must be asked: a target no pool holds
UNPICKED = Target(name="", node_id="", ready=False, source="unpicked")
_INTERNAL_LENGTH = len(INTERNAL_CLIENT_ID_PREFIX)


@dataclass(frozen=True, slots=True)
class TraceStep:
    step: str
    detail: str


# Not frozen: serve makes one per connection, and a frozen slotted dataclass sets each field through
# object.__setattr__ (several times the cost). Treat it as read-only; it hashes and compares by value.
@dataclass(slots=True, unsafe_hash=True)
class RouteResult:
    router: str
    status: str
    target: Target | None
    key: str  # the key after resolution and key-filter
    key_value: str  # after the policy's transformation: what the local filter, cache and policy saw
    raw_value: str | None
    local: bool
    decided_by: str
    trace: tuple[TraceStep, ...] = ()

    @property
    def target_label(self) -> str | None:
        if self.target is None:
            return None
        return "local" if self.local else self.target.name

    def to_json(self, *, with_trace: bool = False) -> dict[str, object]:
        t = self.target
        out: dict[str, object] = {
            "router": self.router,
            "status": self.status,
            "key": self.key,
            "key_value": self.key_value,
            "raw_value": self.raw_value,
            "local": self.local,
            "target": self.target_label,
            "address": t.address if t is not None else None,
            "node_id": t.node_id if t is not None else None,
            "node_id_known": t.node_id_known if t is not None else None,
            "decided_by": self.decided_by,
        }
        if with_trace:
            out["trace"] = [{"step": s.step, "detail": s.detail} for s in self.trace]
        return out


@dataclass
class Router:
    """A deployed connection router: its filters, policy, pool and cache."""

    name: str
    key_type: str
    key_filter: str | None
    local_target_filter: JavaPattern | None
    policy: Policy | None
    pool: Pool | None
    cache: RouterCache | None
    local: Target
    warnings: list[str] = field(default_factory=list)
    tracing: bool = True
    deploy_notes: tuple[str, ...] = ()  # the broker's verdict beyond "deploys" (config.deploy_notes)
    broker: str = DEPLOYS  # the broker's verdict on this router (diagnostics.BROKER_VERDICTS)
    native_transport: bool = True  # how the router's acceptors print IPv6 peers (keys.java_socket_address)
    sni_encoding: str = DEFAULT_SNI_ENCODING  # how clients send an SNI_HOST given as a host name (routing/sni.py)
    broker_version: tuple[int, int] = NEWEST_BROKER  # the Artemis version followed where versions differ
    #: (key_filter, its compiled pattern) as route_value last used it (key_filter may change through management)
    _key_pattern: tuple[str | None, JavaPattern | None] = field(default=(None, None), init=False, repr=False,
                                                              compare=False)

    @classmethod
    def from_config(
        cls,
        config: BrokerConfig,
        router: ConnectionRouter,
        state: TargetState | None = None,
        *,
        seed: int | None = None,
        clock: Callable[[], float] = frozen_clock,
    ) -> Router:
        state = state or TargetState()
        if router.key_type not in KEY_TYPES:
            where = router.fields.get("key-type")
            pos = where.pos if where is not None else router.pos
            raise ConfigError(
                f"connection router {router.name!r}: key-type {router.key_type!r} is not one of "
                f"{', '.join(KEY_TYPES)} (the broker refuses to start)",
                file=pos.file, line=pos.line, column=pos.column)
        warnings: list[str] = undefined_notes(config, router)
        policy: Policy | None = None
        if router.policy is not None:
            if router.policy.name not in POLICIES:
                warnings.append(f"policy {router.policy.name!r} does not exist: the broker refuses to start")
            else:
                policy = make_policy(router.policy.name, router.policy.properties, seed=seed)
                error = getattr(policy, "error", None)
                if error:
                    warnings.append(
                        f"{policy.name}: the broker fails to deploy this router ({error}); "
                        "simulated as if the property were absent")
        pool = build_pool(config, router, state)
        if pool is not None:
            warnings.extend(pool.notes)
            guessed = [t.name for t in pool.placeholders]
            if guessed and policy is not None and policy.name == "CONSISTENT_HASH":
                warnings.append(
                    f"node ids unknown for {', '.join(guessed)}: each uses its name as a placeholder node id; "
                    "CONSISTENT_HASH results depend on the real node ids (--node-id, --targets)")
            if isinstance(policy, LeastConnectionsPolicy) and any(
                    t.connection_count is None for t in pool.targets):
                warnings.append("connection counts unknown for some targets: LEAST_CONNECTIONS counts them as "
                                "2147483647 (--connections, --targets)")
        deploy_notes = tuple(config.deploy_notes.get(router.name, ()))
        warnings.extend(deploy_notes)
        native = _native_transport(config, router.name, warnings)
        local = next((t for t in pool.targets if t.local), None) if pool is not None else None
        cache = RouterCache(router.cache.timeout, clock) if router.cache is not None else None
        ltf = router.local_target_filter
        return cls(
            name=router.name,
            key_type=router.key_type,
            key_filter=router.key_filter,
            local_target_filter=compile_java(ltf) if ltf is not None else None,
            policy=policy,
            pool=pool,
            cache=cache,
            local=local if local is not None else local_target(state),
            warnings=warnings,
            deploy_notes=deploy_notes,
            broker=config.deploy_verdicts.get(router.name, DEPLOYS),
            native_transport=native,
        )

    # -- the workflow ---------------------------------------------------------------------------
    def route(self, conn: Connection) -> RouteResult:
        """ConnectionRouter.getTarget(connection, clientID, username)."""
        if not self.tracing:
            key_type = self.key_type
            if key_type == "CLIENT_ID":
                return self.route_value(conn.client_id, conn.client_id)
            if key_type == "USER_NAME":
                return self.route_value(conn.client_id, conn.username)
        trace = self._start_trace() if self.tracing else None
        if conn.client_id is not None and conn.client_id.startswith(INTERNAL_CLIENT_ID_PREFIX):
            if trace is not None:
                trace.append(TraceStep("internal", f"client id starts with {INTERNAL_CLIENT_ID_PREFIX!r}: "
                                                   "a router's own connection stays local"))
            return RouteResult(self.name, OK, self.local, conn.client_id, conn.client_id, conn.client_id,
                               True, "internal", tuple(trace or ()))
        if self.key_filter is None and self.key_type == "CLIENT_ID":
            resolved = apply_key_filter(None, conn.client_id)  # what resolve_key does for it, without its steps
        else:
            resolved = resolve_key(self.key_type, self.key_filter, conn, native=self.native_transport,
                                   broker=self.broker_version)
        if trace is not None:
            trace.append(TraceStep("key", f"{self.key_type} = {_show(resolved.raw)}; {resolved.note}"))
        return self._from_key(resolved.key, resolved.raw, trace)

    def route_value(self, client_id: str | None, raw: str | None) -> RouteResult:
        """:meth:`route` without a trace, from the connection's client id and the value of the key type
        before the key-filter (``raw``, as :func:`~.keys.resolve_key` reads it; None: missing): the
        key-filter, then the rest. What ``route`` itself runs for a CLIENT_ID or USER_NAME router when it
        does not trace; ``serve`` calls it for each connection of a router keyed by what a hello says or
        where it comes from (not ROLE_NAME)."""
        if client_id is not None and client_id.startswith(INTERNAL_CLIENT_ID_PREFIX):
            return RouteResult(self.name, OK, self.local, client_id, client_id, client_id, True, "internal", ())
        if raw is None:
            key = NULL_KEY
        elif self.key_filter is None:
            key = raw
        else:  # apply_key_filter's key, without its note
            memo = self._key_pattern
            if memo[0] != self.key_filter:  # set through management since: compiled once per filter
                memo = self._key_pattern = (self.key_filter, key_filter_pattern(self.key_filter))
            pattern = memo[1]
            found = raw if pattern is None else pattern.find(raw)
            key = NULL_KEY if found is None else found
        return self._from_key(key, raw, None)

    def pick(self, client_id: str | None, raw: str | None) -> Target | None:
        """:meth:`route_value`'s target, for the answer most connections get: the policy's choice with
        nothing around it. That is when ``raw`` is a key (not missing) that the policy does not transform,
        the router has a policy and a pool, no key-filter, no local-target-filter and no cache, and
        ``client_id`` is not a router's own; then ``route_value(client_id, raw)`` is ``picked(raw, target)``
        (None: the policy chose none). Otherwise :data:`UNPICKED`, with nothing done: ask
        :meth:`route_value`. ``serve``'s fast path calls it for each connection, and makes the
        :class:`RouteResult` only when it needs one."""
        policy = self.policy
        pool = self.pool
        if (raw is None or policy is None or policy.transforms or pool is None or self.cache is not None
                or self.key_filter is not None or self.local_target_filter is not None
                or (client_id is not None and client_id[:_INTERNAL_LENGTH] == INTERNAL_CLIENT_ID_PREFIX)):
            return UNPICKED  # client_id[:n] == prefix: startswith's answer, without its argument parsing
        return policy.select(pool.ready_targets, raw)

    def picked(self, key: str, target: Target | None) -> RouteResult:
        """What :meth:`route_value` answers when :meth:`pick` chose ``target`` for ``key``."""
        if target is None:
            return RouteResult(self.name, REFUSED_UNAVAILABLE, None, key, key, key, False, "policy", ())
        return RouteResult(self.name, OK, target, key, key, key, target.local, "policy", ())

    def route_key(self, key: str) -> RouteResult:
        """The management operation getTarget(key): the key as given, no resolution, no filter."""
        trace = self._start_trace()
        if trace is not None:
            trace.append(TraceStep("key", f"management getTarget: the key {key!r} is used as given"))
        return self._from_key(key, key, trace)

    def _start_trace(self) -> list[TraceStep] | None:
        if not self.tracing:
            return None
        return [TraceStep("deploy", note) for note in self.deploy_notes]

    def _from_key(self, key: str, raw: str | None, trace: list[TraceStep] | None) -> RouteResult:
        """From the key (after resolution and key-filter; ``raw``: the value before them) on."""
        value = key
        policy, pool, cache = self.policy, self.pool, self.cache
        if policy is not None and key != NULL_KEY and policy.transforms:
            value = policy.transform_key(key, self.broker_version < MODULO_UNSIGNED_SINCE)
            if trace is not None and value != key:
                trace.append(TraceStep("transform", f"{policy.name}: {key!r} -> {value!r}"))
        elif trace is not None and policy is not None and key == NULL_KEY:
            trace.append(TraceStep("transform", "the key is NULL: the policy does not transform it"))
        ltf = self.local_target_filter
        if ltf is not None:
            if ltf.matches(value):
                if trace is not None:
                    trace.append(TraceStep("local-target-filter",
                                           f"{ltf.source!r} matches {value!r} entirely ({JAVA_REGEX}): "
                                           "local target"))
                local = self.local  # self._result(OK, self.local, ...), inline: every key of a sharding router
                return RouteResult(self.name, OK, local, key, value, raw, local.local, "local-target-filter",
                                   tuple(trace) if trace else ())
            if trace is not None:
                trace.append(TraceStep("local-target-filter",
                                       f"{ltf.source!r} does not match all of {value!r} ({JAVA_REGEX})"))
        if policy is None or pool is None:
            if trace is not None:
                missing = "no policy" if policy is None else "no pool"
                trace.append(TraceStep("refuse", f"{missing}: the router refuses (use another broker)"))
            return self._result(REFUSED_USE_ANOTHER, None, "no-policy" if policy is None else "no-pool", key, raw,
                                value, trace)
        if cache is not None:
            node_id = cache.get(value)
            if node_id is not None:
                cached = pool.ready_target(node_id)
                if cached is not None:
                    if trace is not None:
                        trace.append(TraceStep("cache", f"cache hit: {value!r} -> {node_id} (ready)"))
                    return self._result(OK, cached, "cache", key, raw, value, trace)
                if trace is not None:
                    trace.append(TraceStep("cache", f"cache hit: {value!r} -> {node_id}, but it is not ready"))
        targets = pool.ready_targets
        if trace is not None:
            ready_count = sum(1 for t in pool.targets if t.ready)
            names = ", ".join(t.name for t in targets) or "none"
            quorum = f"{ready_count} ready of {len(pool.targets)}, quorum-size {pool.quorum_size}"
            trace.append(TraceStep("pool", f"{quorum}: candidates {names}"))
            for t in pool.targets:
                if t.unready_reason is not None:
                    trace.append(TraceStep("pool", f"{t.name} is not ready: {t.unready_reason}"))
        target = policy.select(targets, value)
        if target is None:
            if trace is not None:
                why = ("CONSISTENT_HASH_MODULO never selects a target"
                       if isinstance(policy, ConsistentHashModuloPolicy) else "no ready target")
                trace.append(TraceStep("refuse", f"{why}: REFUSED_UNAVAILABLE"))
            return self._result(REFUSED_UNAVAILABLE, None, "policy", key, raw, value, trace)
        if trace is not None:
            trace.append(TraceStep("policy", f"{policy.explain()}: {target.name} (node {target.node_id})"))
        if cache is not None:
            cache.put(value, target.node_id)
        # self._result(OK, target, "policy", ...), inline: the answer to nearly every connection
        return RouteResult(self.name, OK, target, key, value, raw, target.local, "policy",
                           tuple(trace) if trace else ())

    def _result(self, status: str, target: Target | None, decided: str, key: str, raw: str | None, value: str,
                trace: list[TraceStep] | None) -> RouteResult:
        return RouteResult(self.name, status, target, key, value, raw,
                           target is not None and target.local, decided, tuple(trace) if trace else ())


def _native_transport(config: BrokerConfig, name: str, warnings: list[str]) -> bool:
    """Whether the acceptors that send clients to router ``name`` use Netty's native transport.

    ``useEpoll`` (read with ``Boolean.valueOf``, default true) picks epoll on Linux; without it the
    JDK's NIO transport prints IPv6 peers differently (SOURCE_IP keys). No acceptor: the default.
    """
    flags = {a.name: (a.url.param("useEpoll") or "true").lower() == "true"
             for a in config.acceptors if a.router == name}
    if flags and len(set(flags.values())) > 1:
        nio = ", ".join(sorted(n for n, native in flags.items() if not native))
        warnings.append(f"acceptor(s) {nio} set useEpoll=false and the others do not: IPv6 SOURCE_IP keys differ "
                        "by acceptor (simulated as the native transport prints them)")
    return not flags or any(flags.values())


def _show(value: str | None) -> str:
    return "missing" if value is None else repr(value)


def build_routers(
    config: BrokerConfig,
    state: TargetState | None = None,
    *,
    names: list[str] | None = None,
    seed: int | None = None,
    clock: Callable[[], float] = frozen_clock,
) -> list[Router]:
    # The broker deploys one router per name, the last one written (its routers are a map by name).
    deployed = {r.name: r for r in config.connection_routers}
    chosen = [r for r in config.connection_routers
              if deployed[r.name] is r and (names is None or r.name in names)]
    return [Router.from_config(config, r, state, seed=seed, clock=clock) for r in chosen]
