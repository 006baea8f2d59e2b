"""Each decision the logs show, against the engine's answer for the same connection.

Verdicts:

- ``agrees``: the broker did what the config says (ROUND_ROBIN and LEAST_CONNECTIONS: it chose one
  of the targets the policy could choose);
- ``explained``: it did not, and the logs say why: ``cache-hit`` (the DEBUG line of a cache hit, or
  an earlier decision for the same key in this log that the router's cache keeps),
  ``target-not-ready`` (a pool or monitor line said a target was not ready then, and the engine
  without it answers what the broker did), ``filter-changed`` (the DEBUG lines name a key-filter
  or local-target-filter that is not the config's: set through management), ``node-id-unknown``
  (a CONSISTENT_HASH answer depends on node ids neither the options nor the logs gave);
- ``drift``: the config says otherwise;
- ``unkeyed``: the logs do not give this router's key (an INFO-only log of a router not keyed by
  SOURCE_IP): see advice.py.

The engine is the one ``simulate`` uses (routing.router.Router.route / route_key), built from the
config without its cache (the log tells what the cache did) and without tracing.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from ..config.model import BrokerConfig
from ..routing.keys import Connection
from ..routing.router import OK, Router, RouteResult, build_routers
from ..routing.targets import TargetState
from .join import LOCAL_NAME, Decision, target_name

AGREES, EXPLAINED, DRIFT, UNKEYED = "agrees", "explained", "drift", "unkeyed"
VERDICTS = (AGREES, EXPLAINED, DRIFT, UNKEYED)
REFUSED = "REFUSED"
#: why a decision is unkeyed when its DEBUG lines interleave with another's (no %t in the layout)
INTERLEAVED = "interleaved DEBUG lines (no thread in the layout)"
#: keys remembered per router with a cache (the answer the cache keeps for them); oldest forgotten first
MAX_REMEMBERED = 1_000_000
_ANY_READY = ("ROUND_ROBIN", "LEAST_CONNECTIONS")
#: engine answers remembered (by router, key): clients reconnect with the same key; dropped all at once when full
MAX_MEMO = 200_000


@dataclass(frozen=True, slots=True)
class Verdict:
    router: str | None
    kind: str
    reason: str  # agrees: how keyed; explained: why; drift: ""; unkeyed: why not
    key_type: str | None
    key: str | None
    expected: str | None  # the config's answer (target name or status)
    actual: str  # the broker's: target name, or REFUSED (the INFO line says no more)
    detail: str = ""
    result: RouteResult | None = None


def actual_label(d: Decision) -> str:
    r = d.routed
    if r.serve_refusal is not None:
        return r.serve_refusal
    if r.serve_target is not None:
        return r.serve_target
    return target_name(r.target) if r.target is not None else REFUSED


def expected_label(res: RouteResult) -> str:
    return (res.target_label or "?") if res.status == OK else res.status


class Replayer:
    """Routers built once from the config (rebuilt when the logs teach a node id), and what the
    router caches hold as far as this log shows."""

    def __init__(self, cfg: BrokerConfig, state: TargetState, names: list[str] | None = None) -> None:
        self.cfg = cfg
        self.state = state
        self.names = names
        self.learned: dict[str, str] = {}
        self.routers: dict[str, Router] = {}
        self._variants: dict[tuple[str, frozenset[str]], Router] = {}
        self._memo: dict[tuple[int, str, object], RouteResult] = {}
        self._acceptor_of: dict[str, str | None] = {}
        # key -> (the broker's target, file, line) of the latest decision: small tuples, the file's name shared
        self.memory: dict[str, OrderedDict[str, tuple[str, str, int]]] = {}
        self.acceptors = [(a.url.host, a.url.port, a.router) for a in cfg.acceptors if a.router]
        self._build()
        self.target_names = {LOCAL_NAME} | {t.name for r in self.routers.values() if r.pool is not None
                                            for t in r.pool.targets}

    # -- routers -----------------------------------------------------------------------------------
    def _state(self) -> TargetState:
        learned = {k: v for k, v in self.learned.items() if k not in self.state.node_ids}
        return TargetState(node_ids={**learned, **self.state.node_ids}).merged(
            TargetState(down=self.state.down, connections=self.state.connections, known=self.state.known))

    def _build(self) -> None:
        self.routers = {r.name: _quiet(r) for r in build_routers(self.cfg, self._state(), names=self.names)}
        self._variants.clear()
        self._memo.clear()

    def learn(self, node_ids: dict[str, str]) -> None:
        """Node ids the logs named (the user's --node-id / --targets win); only the config's targets'
        names are kept (a log may name any number of others)."""
        fresh = {k: v for k, v in node_ids.items() if k in self.target_names and self.learned.get(k) != v}
        if fresh:
            self.learned.update(fresh)
            self._build()

    def variant(self, name: str, down: frozenset[str]) -> Router:
        """Router ``name`` with ``down`` not ready as well."""
        key = (name, down)
        r = self._variants.get(key)
        if r is None:
            state = self._state().merged(TargetState(down=down))
            r = self._variants[key] = _quiet(build_routers(self.cfg, state, names=[name])[0])
        return r

    def router_of(self, d: Decision) -> str | None:
        """The router behind the decision: serve names it; the broker's line names the acceptor's
        address (``local= /ip:port``), whose acceptor says ``router=``."""
        if d.routed.router is not None:
            return d.routed.router
        conn = d.routed.conn
        if conn is None:
            return None
        known = self._acceptor_of.get(conn.local, False)
        if known is not False:
            return known  # type: ignore[return-value]
        found_router = self._router_at(conn.local)
        if len(self._acceptor_of) < MAX_MEMO:
            self._acceptor_of[conn.local] = found_router
        return found_router

    def _router_at(self, local: str) -> str | None:
        host, _, port_text = local.strip().lstrip("/").rpartition(":")
        try:
            port = int(port_text)
        except ValueError:
            return None
        found = [r for h, p, r in self.acceptors if p == port and h in (host, "0.0.0.0", "::", "[::]")]
        if not found:
            found = [r for _, p, r in self.acceptors if p == port]
        return found[0] if len(set(found)) == 1 else None

    # -- one decision ------------------------------------------------------------------------------
    def classify(self, d: Decision) -> Verdict | None:
        """The verdict on one decision; None for a router of the config that --router left out."""
        name = self.router_of(d)
        actual = actual_label(d)
        if name is not None and name not in self.routers and self.cfg.router(name) is not None:
            return None
        if name is None or name not in self.routers:
            why = "no acceptor of the config listens on " + (d.routed.conn.local if d.routed.conn else "?")
            if name is not None:
                why = f"router {name} is not in the config"
            return Verdict(None, UNKEYED, "unknown-router", None, None, None, actual, why[:200])
        router = self.routers[name]
        keyed = self.route(router, d)
        if isinstance(keyed, str):
            return Verdict(name, UNKEYED, keyed, router.key_type, None, None, actual,
                           f"the log does not give {router.key_type} (see the log4j2 lines to add)")
        res, how = keyed
        expected = expected_label(res)
        v = self._judge(router, d, res, expected, actual, how, self.spec(router, d))
        self._remember(router, res, actual, d)
        return v

    def route(self, router: Router, d: Decision) -> tuple[RouteResult, str] | str:
        """The engine's answer for the decision's connection and how it was keyed, or why it cannot be."""
        spec = self.spec(router, d)
        if isinstance(spec, str):
            return spec
        return self.answer(router, spec[1], spec[2]), spec[0]

    def spec(self, router: Router, d: Decision) -> tuple[str, str, object] | str:
        """(how the log keys it, what the engine is given, its value), or why the log cannot key it."""
        kt = router.key_type
        r = d.routed
        if r.key is not None and r.router is not None:  # serve: the key after the key-filter
            return "serve", "key", r.key
        if d.ambiguous:  # the DEBUG lines may be another connection's: only the route line's own facts
            if kt == "SOURCE_IP" and r.conn is not None and r.conn.remote:
                return "remote address", "remote", r.conn.remote.strip()
            if kt in ("USER_NAME", "ROLE_NAME") and d.audit is not None and d.audit.conn_id:
                return ("audit", "USER_NAME", d.audit.user) if kt == "USER_NAME" else ("audit", "roles", d.audit.roles)
            return INTERLEAVED
        if d.key_seen and d.key_type == kt and kt != "ROLE_NAME":
            return "debug", kt, d.key
        if kt == "ROLE_NAME" and d.key_seen and d.key_type == "ROLE_NAME":
            return "debug", "roles", (d.role,) if d.role_seen and d.role is not None else ()
        if kt == "SOURCE_IP" and r.conn is not None and r.conn.remote:
            return "remote address", "remote", r.conn.remote.strip()
        if kt in ("USER_NAME", "ROLE_NAME") and d.audit is not None:
            return ("audit", "USER_NAME", d.audit.user) if kt == "USER_NAME" else ("audit", "roles", d.audit.roles)
        return "INFO only" if not d.debug else "key type not in the DEBUG lines"

    def answer(self, router: Router, kind: str, value: object) -> RouteResult:
        """The engine's answer (Router.route, or route_key for a key after its filter), remembered for
        the policies whose answer depends on the key alone."""
        memo_key = (id(router), kind, value)
        res = self._memo.get(memo_key)
        if res is not None:
            return res
        if kind == "key":
            res = router.route_key(value)  # type: ignore[arg-type]
        elif kind == "roles":
            res = router.route(Connection(roles=value))  # type: ignore[arg-type]
        elif kind == "remote":
            res = router.route(Connection(remote_address=value, remote_as_is=True))  # type: ignore[arg-type]
        else:
            res = router.route(_connection(kind, value))  # type: ignore[arg-type]
        if router.policy is None or router.policy.name not in _ANY_READY:
            if len(self._memo) >= MAX_MEMO:
                self._memo.clear()
            self._memo[memo_key] = res
        return res

    def _judge(self, router: Router, d: Decision, res: RouteResult, expected: str, actual: str,
               how: str, spec: tuple[str, str, object] | str) -> Verdict:
        name = router.name

        def verdict(kind: str, reason: str, detail: str = "", exp: str = expected) -> Verdict:
            return Verdict(name, kind, reason, router.key_type, res.key, exp, actual, detail, res)

        if _same(res, expected, actual, d):
            return verdict(AGREES, how)
        policy = router.policy.name if router.policy is not None else None
        down = self.down_at(router, d)
        if policy in _ANY_READY and res.decided_by == "policy" and res.status == OK:
            ready = [t.name for t in (self.variant(name, down) if down else router).pool.ready_targets]  # type: ignore[union-attr]
            if actual in ready:
                return verdict(AGREES, f"{how}; {policy} may choose any ready target")
        t = d.routed.target
        if d.cache_node is not None and d.cache_ready and (t is None or t.node_id in (None, d.cache_node)):
            return verdict(EXPLAINED, "cache-hit", f"the cache returned node {d.cache_node} (DEBUG)")
        if router.cache is not None or self._has_cache(name):
            seen = self.memory.get(name, {}).get(res.key_value)
            if seen is not None and seen[0] == actual:
                return verdict(EXPLAINED, "cache-hit", f"cached by the decision at {seen[1]}:{seen[2]}")
        if down:
            other = self.variant(name, down)
            res2 = self.answer(other, spec[1], spec[2])  # type: ignore[index]
            if _same(res2, expected_label(res2), actual, d):
                lines = ", ".join(f"{n} (line {w.line})" for n, w in d.down if n in down)
                return verdict(EXPLAINED, "target-not-ready", f"not ready then: {lines or ', '.join(sorted(down))}")
        changed = self._changed_filters(router, d)
        if changed:
            return verdict(EXPLAINED, "filter-changed", changed)
        if (policy == "CONSISTENT_HASH" and router.pool is not None and router.pool.placeholders
                and actual in {t.name for t in router.pool.ready_targets}):
            unknown = ", ".join(t.name for t in router.pool.placeholders)
            return verdict(EXPLAINED, "node-id-unknown", f"node ids unknown for {unknown} (--node-id, --targets)")
        return verdict(DRIFT, "", f"keyed by {how}")

    def _has_cache(self, name: str) -> bool:
        model = self.cfg.router(name)
        return model is not None and model.cache is not None

    def down_at(self, router: Router, d: Decision) -> frozenset[str]:
        """The pool targets the logs say were not ready at the decision (beyond the user's --down)."""
        names = {t.name for t in router.pool.targets} if router.pool is not None else set()
        down = {n for n, _ in d.down if n in names}
        if d.candidates is not None:  # the policy's list is every ready target then
            ready = {target_name(t) for t in d.candidates}
            down |= {n for n in names if n not in ready}
        return frozenset(down - set(self.state.down))

    def _changed_filters(self, router: Router, d: Decision) -> str:
        model = self.cfg.router(router.name)
        if model is None:
            return ""
        said = []
        for f in d.filters:
            configured = model.key_filter if f.which == "key-filter" else model.local_target_filter
            if f.pattern != configured:
                said.append(f"the broker used {f.which} {f.pattern!r}, the config says {configured!r}")
        return "; ".join(said)

    def _remember(self, router: Router, res: RouteResult, actual: str, d: Decision) -> None:
        if not self._has_cache(router.name) or actual in (REFUSED, LOCAL_NAME) or res.key_value is None:
            return
        mem = self.memory.setdefault(router.name, OrderedDict())
        mem[res.key_value] = (actual, d.where.source, d.where.line)
        mem.move_to_end(res.key_value)
        if len(mem) > MAX_REMEMBERED:
            mem.popitem(last=False)


def _quiet(r: Router) -> Router:
    r.cache = None
    r.tracing = False
    return r


def _connection(key_type: str, value: str | None) -> Connection:
    if key_type == "CLIENT_ID":
        return Connection(client_id=value)
    if key_type == "USER_NAME":
        return Connection(username=value)
    if key_type == "SNI_HOST":
        return Connection(sni_host=value)
    if key_type == "SOURCE_IP":  # the broker's key, the address already cut: as the text it came from
        return Connection(remote_address=None if value is None else f"/{value}:0", remote_as_is=True)
    return Connection(roles=() if value is None else (value,))


def _same(res: RouteResult, expected: str, actual: str, d: Decision) -> bool:
    if res.status != OK:
        return actual == REFUSED or actual == res.status
    if expected == actual:
        return True
    t = d.routed.target
    return (t is not None and res.target is not None and t.node_id is not None and res.target.node_id_known
            and t.node_id == res.target.node_id and t.local == res.local)
