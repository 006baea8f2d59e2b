"""The plain hello answered within the callback that delivered it, without a session coroutine.

Most redirects are one read and one write: an MQTT CONNECT, or an AMQP header and Open without
SASL, arrives whole in the first ``data_received`` and gets its answer at once. For that case
:func:`answerer`'s function does what the session would (:mod:`.connection`, :mod:`.mqtt_session`,
:mod:`.amqp_session`): detection as the acceptor does it, the same sans-IO codec, the same routing
(the engine's ``Router.pick`` / ``Router.route_value`` that ``Router.route`` runs untraced, under
:func:`.decide.route_value_within_budget` where a filter is set; :func:`.decide.route_now` for a
ROLE_NAME key), the same route line and metrics, and returns the very bytes the session would write.
The driver then writes them and half-closes as the session's ``_close_cleanly`` does.

It declines - and nothing has been done, counted or logged yet - whenever the session could do
something else: fewer bytes than detection needs or more than the handshake budget, a hello not
whole in this read, anything but MQTT or AMQP (CORE and OpenWire clients wait for an answer before
their session request), AMQP with SASL (a round trip), an acceptor that does not serve the
protocol, ``--users-file``, a persisted cache (its commit is awaited), a pool below its quorum
(the engine may wait for it), an MQTT client id the broker rejects, or a hello the codec cannot
decode (the session drops it with its log line). TLS, PROXY headers and WebSocket never get here
(:mod:`.driver`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import lru_cache
from time import time as _time
from typing import Protocol, TypeVar

from ..errors import ProtocolError
from ..protocols.amqp import AMQP_HEADER, OpenReceived, ProtocolHeaderReceived
from ..protocols.amqp_quick import OpenFacts, quick_open
from ..protocols.detect import NEEDED, detect_on_acceptor
from ..protocols.mqtt import ConnectReceived, MqttServer, redirect_connack, refusal_connack
from ..protocols.mqtt_quick import ConnectFacts, quick_connect
from ..routing.keys import source_ip_key
from ..routing.router import OK, UNPICKED
from .amqp_session import ANSWER_CACHE_SIZE, redirect_close, refusal_close
from .conn import Env, Peered
from .connection import drop
from .decide import Decision, MatchBudgetExceeded, Peer, route_fields, route_now, route_value_within_budget
from .listeners import ListenerSpec
from .metrics import Metrics
from .said import QuickSide

T = TypeVar("T")

#: what an :func:`answerer` returns when the connection was closed without an answer (logged)
DROPPED = b""


class Quick:
    """One listener's fast paths: a :class:`.said.QuickSide` for MQTT and one for AMQP, or None where
    the acceptor does not serve that protocol."""

    __slots__ = ("mqtt", "amqp")

    def __init__(self, spec: ListenerSpec, metrics: Metrics) -> None:
        self.mqtt = QuickSide(spec.name, "MQTT", metrics) if spec.allows("MQTT") else None
        self.amqp = QuickSide(spec.name, "AMQP", metrics) if spec.allows("AMQP") else None


class Fresh(Protocol):
    """A connection as an :func:`answerer` needs it (a :class:`.fresh.FreshConnection`): where it comes
    from, its transport's peername, and that address as the route line shows it (the broker's
    getRemoteAddress(), no "/")."""

    peer: Peer
    name: object

    @property
    def address(self) -> str: ...


def answerer(env: Env, spec: ListenerSpec, quick: Quick) -> Callable[[Fresh, bytes], bytes | None]:
    """The fast path of one listener (``env``, ``spec`` and its :class:`Quick`): ``answer(io, data)`` is the
    answer to ``data``, the connection's first bytes, when they hold a whole plain hello (routed, counted
    and logged); :data:`DROPPED` when routing ran out of its regex budget (logged as the session logs it:
    close the connection); None when the session must handle the connection (nothing done). ``io``: the
    connection, never behind a PROXY header. What never changes while the listener listens (the read
    budget, ``--users-file``, a persisted cache store, the pool monitor's checker, the router, the log's
    queue) is read once here, not for each connection."""
    max_frame_size = env.max_frame_size
    # --users-file (Authenticator.enabled) or a persisted cache (its commit is awaited): the session answers
    declined = env.auth.users is not None or env.service.store is not None
    service = env.service
    monitor = env.monitor
    checked = monitor.checker is not None  # monitor.enabled: a pool below its quorum is waited for
    router = service.router
    # untraced (serve never traces) and keyed by what the hello says or where it comes from: neither
    # changes while it serves
    key_type = router.key_type
    plain = not router.tracing and key_type in _PLAIN_KEYS
    log = env.log
    pending = log.pending
    bound = log.bound
    mqtt_side, amqp_side = quick.mqtt, quick.amqp
    amqp_budget = env.amqp.max_frame_size

    def answer(io: Fresh, data: bytes) -> bytes | None:
        # max_frame_size: the session's read budget before its answer (ConnIO.budget)
        if not NEEDED <= len(data) <= max_frame_size or declined or (checked and monitor.below_quorum(router)):
            return None  # can_route_now, inline
        # The usual hellos, read in one pass. Detection needs no call for them: a CONNECT the quick reader
        # takes starts 0x10, a remaining length, 00 04 "MQTT" - what the MQTT manager claims, and the only
        # manager that can when the acceptor serves MQTT; "AMQP" then 00 01 00 00 is the AMQP manager's alone.
        # Where the key type is one of _PLAIN_KEYS and no trace, the engine's answer is Router.pick's or
        # Router.route_value's (with a key-filter or a local-target-filter, both of which can be set through
        # management, under the regex budget); otherwise _answered does what the session does.
        first = data[0]
        level = 0  # MQTT: the CONNECT's protocol level; 0: AMQP
        if first == 0x10:
            side = mqtt_side
            connect = quick_connect(data, max_frame_size) if side is not None else None
            if connect is None:
                return _detected(io, data, env, spec)
            if not plain:
                return _answered(io, env, spec, "MQTT", _mqtt_quick, connect)
            level, clean_start, client_id, username = connect
            if not client_id:
                if not clean_start:
                    return None  # rejected before the user check: the session's answer and log line
                client_id = str(uuid.uuid4())
        elif first == 0x41:  # b"A"
            side = amqp_side
            opened = quick_open(data, amqp_budget) if side is not None else None
            if opened is None:
                return _detected(io, data, env, spec)
            if not plain:
                return _answered(io, env, spec, "AMQP", _amqp_quick, opened)
            client_id = opened[0]  # QuickOpen.container_id
            username = None
        else:
            return _detected(io, data, env, spec)
        assert side is not None
        # _route's work (count the connection, route, count the answer, write the route line) for a plain
        # router: the user as it claims is the USER_NAME key (no --users-file), and what follows from the
        # engine's answer comes from its Said, worked out once per target: service.answer(result) depends on
        # the target alone (its own object while the engine hands it out), its locality and the status
        # the value of the key type, as resolve_key reads it for the session's Connection
        if key_type == "CLIENT_ID":
            key = client_id
        elif key_type == "USER_NAME":
            key = username
        elif key_type == "SOURCE_IP":
            name = io.name
            if type(name) is tuple and len(name) == 2:
                key = name[0]  # IPv4: Java prints /HOST:PORT, whose source_ip_key is HOST (no Peer made)
            else:
                remote = io.peer.remote_address
                if remote[:1] != "/":
                    return None  # not a socket address as Java prints it: the session reads it
                key = source_ip_key(remote)  # source_address leaves a Java-printed address as it is
        else:
            key = None  # SNI_HOST: no TLS on this path, so no server name
        side.connections.n += 1
        target = router.pick(client_id, key)
        if target is not UNPICKED:
            # the policy's choice, the usual answer: route_value's is router.picked(key, target), made only
            # when needed; its key and key value are the key as it came
            result = None
            said = side.picked.get(id(target))
            if said is None or said.target is not target or said.router is not router:
                result = router.picked(key, target)  # type: ignore[arg-type]  # a key: pick chose
                said = side.said_picked(result, service.answer(result), router)
        else:
            try:
                result = route_value_within_budget(router, client_id, key)
            except MatchBudgetExceeded as exc:
                drop(io, env, spec, "regex_budget", str(exc), side.protocol)
                return DROPPED
            target = result.target
            said = side.known.get(id(target))
            if (said is None or said.target is not target or said.router is not router
                    or said.status != result.status or said.local is not result.local):
                said = side.said(result, service.answer(result), router)
            key = result.key
            if key != result.key_value:
                key = f"{key} -> {result.key_value}"
        said.cell.n += 1
        if pending is not None:
            # the route line onto the log writer's queue (ServeLog.route_line, inline): an IPv4 peer's
            # (host, port) is written as the broker prints it, without an address string made first
            now = _time()
            stamp = log.stamp_text if log.stamp_from <= now < log.stamp_until else log.stamp(now)
            try:
                host, port = io.name  # type: ignore[misc]  # a pair: IPv4
                shown = _PORTS[port]  # str(port), made once per port: the line's dearest part after repr(key)
            except (TypeError, ValueError, IndexError):  # IPv6 (four fields), or no peername
                line = f"{stamp} INFO  {said.pre}{io.address}{said.mid}{key!r}{said.post}\n"
            else:
                if shown is None:
                    shown = _PORTS[port] = str(port)
                line = f"{stamp}{said.info_pre}{host}:{shown}{said.mid}{key!r}{said.post_line}"
            if len(pending) < bound:
                pending.append(line)
            else:
                log.queue(line)
        elif log.structured:
            if result is None:
                result = router.picked(key, target)  # type: ignore[arg-type]  # a key: pick chose
            log.info("route", f"{said.pre}{io.address}{said.mid}{key!r}{said.post}",
                     **route_fields(result, said.decision, router, io.peer, side.protocol))
        else:
            log.route_line(said.pre, io.address, said.mid, key, said.post)
        if level:
            answer = said.mqtt.get(level)
            return answer if answer is not None else said.connack(level)
        answer = said.amqp
        if answer is None:
            decision = said.decision
            answer = said.amqp = amqp_answer(env.amqp.failure_open, env.router_name, decision.status,
                                             decision.host, decision.port)
        return answer

    return answer


#: each TCP port's decimal text, by port (0 to 65535, what a socket's peername holds), made when first met:
#: formatting an int costs more than the rest of the route line's parts together (bounded by the ports there are)
_PORTS: list[str | None] = [None] * 65536

#: The key types an answerer routes through :meth:`Router.pick` and :meth:`Router.route_value` (see there):
#: all but ROLE_NAME (the roles come from the login).
_PLAIN_KEYS = ("CLIENT_ID", "USER_NAME", "SOURCE_IP", "SNI_HOST")


def _detected(io: Peered, data: bytes, env: Env, spec: ListenerSpec) -> bytes | None:
    """A hello the quick readers leave: detection as the acceptor does it, then the codec."""
    try:
        protocol = detect_on_acceptor(data, spec.protocols)
    except ProtocolError:
        return None
    if protocol == "MQTT":
        answer = _mqtt
    elif protocol == "AMQP":
        answer = _amqp
    else:
        return None
    if not spec.allows(protocol):
        return None
    return _answered(io, env, spec, protocol, answer, data)


def _answered(io: Peered, env: Env, spec: ListenerSpec, protocol: str,
              answer: Callable[[Peered, T, Env, ListenerSpec], bytes | None], hello: T) -> bytes | None:
    try:
        return answer(io, hello, env, spec)
    except ProtocolError:
        return None  # raised by the codec before anything was counted: the session reports it
    except MatchBudgetExceeded as exc:
        drop(io, env, spec, "regex_budget", str(exc), protocol)
        return DROPPED


def _route(io: Peered, env: Env, spec: ListenerSpec, protocol: str, client_id: str | None,
           username: str | None) -> Decision:
    """What the session does from detection on: count the connection, take the user as it claims
    (no ``--users-file``), route."""
    env.metrics.connections.inc(spec.name, protocol)
    if username is None:  # env.identify(None, None) names no one: no user, no roles
        return route_now(env.service, env.log, env.metrics, io.peer, protocol, client_id=client_id, username=None)
    _ok, identity = env.identify(username, None)
    return route_now(env.service, env.log, env.metrics, io.peer, protocol, client_id=client_id,
                     username=identity.user if identity else username,
                     roles=identity.roles if identity else ())


def _mqtt(io: Peered, data: bytes, env: Env, spec: ListenerSpec) -> bytes | None:
    """mqtt_session.run for a CONNECT that came whole, of a shape the quick reader leaves to the codec
    (which raises ProtocolError for what it refuses)."""
    events = MqttServer(max_packet_size=env.max_frame_size).receive_data(data)
    if not events:
        return None
    event = events[0]
    assert isinstance(event, ConnectReceived)  # the codec refuses any other first packet
    return _mqtt_quick(io, (event.protocol_level, event.clean_start, event.client_id, event.username),
                       env, spec)


def _mqtt_quick(io: Peered, hello: ConnectFacts, env: Env, spec: ListenerSpec) -> bytes | None:
    """mqtt_session.run from the CONNECT's facts."""
    level, clean_start, client_id, username = hello
    if not client_id:
        if not clean_start:
            return None  # rejected before the user check: the session's answer and log line
        client_id = str(uuid.uuid4())
    # the password is not looked at without --users-file: identify() only names the user
    decision = _route(io, env, spec, "MQTT", client_id, username)
    if decision.status == OK:
        assert decision.host is not None and decision.port is not None
        return redirect_connack(level, decision.host, decision.port)  # MqttServer.redirect's bytes
    return refusal_connack(level, decision.status)  # MqttServer.refuse's


def _amqp(io: Peered, data: bytes, env: Env, spec: ListenerSpec) -> bytes | None:
    """amqp_session.run for the AMQP header (no SASL) and Open that came whole."""
    server = env.amqp.server()
    events = server.receive_data(data)
    out: list[bytes] = []
    for event in events:
        if isinstance(event, ProtocolHeaderReceived):
            if event.sasl:
                return None
            out.append(server.data_to_send())
        elif isinstance(event, OpenReceived):
            out.append(server.data_to_send())
            decision = _route(io, env, spec, "AMQP", event.container_id, None)
            if decision.redirect:
                assert decision.host is not None and decision.port is not None
                close = redirect_close(env.router_name, decision.host, decision.port)
            else:
                close = refusal_close(env.router_name, decision.status)
            out.append(server.failure_open)
            out.append(close)
            return b"".join(out)
        else:
            return None
    return None


def _amqp_quick(io: Peered, hello: OpenFacts, env: Env, spec: ListenerSpec) -> bytes:
    """amqp_session.run from the short Open's facts (no SASL: the header was AMQP's)."""
    decision = _route(io, env, spec, "AMQP", hello[0], None)  # QuickOpen.container_id
    return amqp_answer(env.amqp.failure_open, env.router_name, decision.status, decision.host, decision.port)


@lru_cache(maxsize=ANSWER_CACHE_SIZE)
def amqp_answer(failure_open: bytes, router: str, status: str, host: str | None, port: int | None) -> bytes:
    """What :func:`_amqp` writes after a header and Open read whole: our AMQP header, the failure Open
    and the redirecting (``status`` OK: to ``host:port``) or refusing Close - built once per answer."""
    if status == OK:
        assert host is not None and port is not None
        close = redirect_close(router, host, port)
    else:
        close = refusal_close(router, status)
    return AMQP_HEADER + failure_open + close
