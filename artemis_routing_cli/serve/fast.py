"""The plain hello answered within the callback that delivered it, without a session coroutine.

Most redirects are one read and one write: an MQTT CONNECT, or an AMQP header and Open without
SASL, arrives whole in the first ``data_received`` and gets its answer at once. For that case
:func:`answer_at_once` does what the session would (:mod:`.connection`, :mod:`.mqtt_session`,
:mod:`.amqp_session`): detection as the acceptor does it, the same sans-IO codec, the same routing
call (:func:`.decide.route_now`: the engine, its regex budget, the route line and the metrics), and
returns the very bytes the session would write. The driver then writes them and half-closes as
the session's ``_close_cleanly`` does.

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

from ..errors import ProtocolError
from ..protocols.amqp import OpenReceived, ProtocolHeaderReceived
from ..protocols.detect import NEEDED, detect_on_acceptor
from ..protocols.mqtt import ConnectReceived, MqttServer
from .amqp_session import redirect_close, refusal_close
from .conn import ConnIO, Env
from .connection import drop
from .decide import Decision, MatchBudgetExceeded, can_route_now, route_now
from .listeners import ListenerSpec

#: what :func:`answer_at_once` returns when the connection was closed without an answer (logged)
DROPPED = b""


def answer_at_once(io: ConnIO, data: bytes, env: Env, spec: ListenerSpec) -> bytes | None:
    """The answer to ``data``, the connection's first bytes, when they hold a whole plain hello
    (routed, counted and logged); :data:`DROPPED` when routing ran out of its regex budget (logged as
    the session logs it: close the connection); None when the session must handle the connection
    (nothing done)."""
    if len(data) < NEEDED or (io.budget is not None and len(data) > io.budget) or env.auth.enabled:
        return None
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
    if not spec.allows(protocol) or not can_route_now(env.service, env.monitor):
        return None
    try:
        return answer(io, data, env, spec)
    except ProtocolError:
        return None  # raised by the codec before anything was counted: the session reports it
    except MatchBudgetExceeded as exc:
        drop(io, env, spec, "regex_budget", str(exc), protocol)
        return DROPPED


def _route(io: ConnIO, env: Env, spec: ListenerSpec, protocol: str, client_id: str | None,
           username: str | None) -> Decision:
    """What the session does from detection on: count the connection, take the user as it claims
    (no ``--users-file``), route."""
    env.metrics.connections.inc(spec.name, protocol)
    _ok, identity = env.identify(username, None)
    return route_now(env.service, env.log, env.metrics, io.peer, protocol, client_id=client_id,
                     username=identity.user if identity else username,
                     roles=identity.roles if identity else ())


def _mqtt(io: ConnIO, data: bytes, env: Env, spec: ListenerSpec) -> bytes | None:
    """mqtt_session.run for a CONNECT that came whole."""
    server = MqttServer(max_packet_size=env.max_frame_size)
    events = server.receive_data(data)
    if not events:
        return None
    event = events[0]
    assert isinstance(event, ConnectReceived)  # the codec refuses any other first packet
    client_id = event.client_id
    if not client_id:
        if not event.clean_start:
            return None  # rejected before the user check: the session's answer and log line
        client_id = str(uuid.uuid4())
    # the password is not looked at without --users-file: identify() only names the user
    decision = _route(io, env, spec, "MQTT", client_id, event.username)
    if decision.redirect:
        assert decision.host is not None and decision.port is not None
        return server.redirect(decision.host, decision.port)
    return server.refuse(decision.status)


def _amqp(io: ConnIO, data: bytes, env: Env, spec: ListenerSpec) -> bytes | None:
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
