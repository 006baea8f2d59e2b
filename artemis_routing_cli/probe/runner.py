"""Run a probe: discover members, check every target concurrently, judge each pool's quorum.

Each target gets (1) DNS + TCP (+ TLS), (2) a protocol handshake and (3) a Jolokia read, each
with its own timeout; (1)+(2) and (3) run side by side, and all targets run at once, so a probe
of any number of dead targets takes about one timeout (two when a connection opens but the
handshake then goes unanswered), not one per target.
"""

from __future__ import annotations

import asyncio
import ssl
import time

from ..config.model import BrokerConfig, socket_host
from ..routing.targets import Target
from . import handshake as hs
from . import http, jolokia, readiness
from .connect import ConnectFailure, Connection, open_connection
from .discovery import DiscoveryError, DiscoveryResult, listen
from .model import (
    MAX_DEFAULT_DISCOVERY_SECONDS,
    Check,
    Credentials,
    Endpoint,
    Handshake,
    Management,
    PoolResult,
    ProbeOptions,
    ProbeReport,
    TargetResult,
)
from .resolve import DiscoverySpec, PoolPlan, endpoint_for_node, local_endpoint, plan_pools


async def _handshake(endpoint: Endpoint, first: Connection, creds: Credentials,
                     options: ProbeOptions) -> Handshake | None:
    """The handshake of ``--protocol``; for ``auto`` each protocol the port may speak in turn
    (:meth:`Endpoint.auto_order`), each on a fresh connection, until one answers - a success or a
    refusal spoken in that protocol - or the timeout is spent. A peer that stays silent gets its
    share of the time left, not all of it, so the protocols after it are still tried."""
    if options.protocol == "none":
        return None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + options.timeout
    order = endpoint.auto_order() if options.protocol == "auto" else (options.protocol,)
    host = socket_host(endpoint.sni_host or endpoint.host)  # an IPv6 address without the broker's brackets
    failures: list[str] = []
    results: list[Handshake] = []
    conn: Connection | None = first
    queue = list(order)
    while queue:
        protocol = queue.pop(0)
        if conn is None:
            try:
                remaining = max(deadline - loop.time(), 0.001)
                conn = await open_connection(endpoint, remaining, cafile=options.cafile, insecure=options.insecure)
            except ConnectFailure as exc:
                failures.append(f"{protocol}: {exc}")
                break
        now = loop.time()
        share = now + max(deadline - now, 0.0) / (len(queue) + 1)
        try:
            result, then = await hs.run_handshake(hs.HANDSHAKES[protocol], protocol, conn, creds, share, host)
        finally:
            if conn is not first:
                await conn.close()
            conn = None
        results.append(result)
        if result.ok or then == hs.STOP:
            return result
        if then != hs.NEXT:  # the same protocol in another version (MQTT 3.1.1), at once
            queue.insert(0, then)
            continue
        failures.append(f"{protocol}: {result.detail}")
        if loop.time() >= deadline:
            break
    if len(results) == 1 and not queue:
        return results[0]
    return Handshake(options.protocol, False, "no protocol answered (" + "; ".join(failures) + ")")


async def _connect_and_handshake(endpoint: Endpoint, creds: Credentials, options: ProbeOptions) -> Check:
    started = time.perf_counter()
    try:
        conn = await open_connection(endpoint, options.timeout, cafile=options.cafile, insecure=options.insecure)
    except ConnectFailure as exc:
        return Check(False, error=str(exc), verdict_ms=(time.perf_counter() - started) * 1000.0)
    shaking = time.perf_counter()
    try:
        handshake = await _handshake(endpoint, conn, creds, options)
    finally:
        await conn.close()
    done = time.perf_counter()
    return Check(True, conn.latency_ms, conn.tls, conn.sni, handshake,
                 handshake_ms=(done - shaking) * 1000.0 if handshake is not None else None,
                 verdict_ms=(done - started) * 1000.0)


async def read_management(endpoint: Endpoint, creds: Credentials, options: ProbeOptions) -> Management:
    """The Jolokia read for one target (``options.jolokia`` must be set)."""
    assert options.jolokia is not None
    url = jolokia.url_for(options.jolokia, endpoint)
    ctx = None
    if url.startswith("https://"):
        ctx = ssl.create_default_context(cafile=options.cafile)
        if options.insecure:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
    try:
        response = await http.request(
            "POST", url, body=jolokia.request_body(),
            headers=jolokia.request_headers(url, creds, options.jolokia_origin),
            timeout=options.timeout, ssl_context=ctx,
        )
    except http.HttpError as exc:
        return Management(error=f"management API: {exc}")
    return jolokia.parse_response(response.status, response.body)


async def check_endpoint(endpoint: Endpoint, creds: Credentials, options: ProbeOptions) -> Check:
    """Measure one target: connection, handshake and (with ``--jolokia``) the management read."""
    creds = creds.usable()
    if options.jolokia is None:
        return await _connect_and_handshake(endpoint, creds, options)
    started = time.perf_counter()
    check, management = await asyncio.gather(
        _connect_and_handshake(endpoint, creds, options), read_management(endpoint, creds, options)
    )
    return Check(check.reachable, check.latency_ms, check.tls, check.sni, check.handshake, management,
                 check.error, check.handshake_ms, (time.perf_counter() - started) * 1000.0)


def _discovery_seconds(spec: DiscoverySpec, options: ProbeOptions) -> float:
    if options.discovery_timeout is not None:
        return options.discovery_timeout
    return min(spec.group.refresh_timeout / 1000.0, MAX_DEFAULT_DISCOVERY_SECONDS)


async def _discover(spec: DiscoverySpec, options: ProbeOptions) -> DiscoveryResult | str:
    g = spec.group
    try:
        return await listen(str(g.group_address), g.group_port, _discovery_seconds(spec, options),
                            local_bind_address=g.local_bind_address)
    except DiscoveryError as exc:
        return f"discovery group {g.name!r}: {exc}"


def _discovery_notes(spec: DiscoverySpec, found: DiscoveryResult | str, seconds: float) -> list[str]:
    if isinstance(found, str):
        return [found]
    g = spec.group
    notes = [f"discovery group {g.name!r} ({g.group_address}:{g.group_port}): listened {seconds:g}s, "
             f"{found.datagrams} datagram(s), {len(found.nodes)} member(s)"]
    notes += [f"ignored a malformed datagram from {m}" for m in found.malformed]
    return notes


async def run_probe(config: BrokerConfig, options: ProbeOptions, router: str | None = None) -> ProbeReport:
    """Probe every router pool of ``config`` (or just ``router``)."""
    plans = plan_pools(config, router)
    local = local_endpoint(options.local_url) if options.local_url else None
    specs: dict[tuple[str, int, str | None, float], DiscoverySpec] = {}
    for plan in plans:
        if plan.discovery is not None:
            g = plan.discovery.group
            specs.setdefault((str(g.group_address), g.group_port, g.local_bind_address,
                              _discovery_seconds(plan.discovery, options)), plan.discovery)
    keys = list(specs)
    found = dict(zip(keys, await asyncio.gather(*(_discover(specs[k], options) for k in keys)), strict=True))

    # Every distinct (endpoint, credentials) is checked once, all at the same time.
    tasks: dict[tuple[object, ...], asyncio.Task[Check]] = {}

    def schedule(endpoint: Endpoint, creds: Credentials) -> tuple[object, ...]:
        key = (*endpoint.key, creds.username, creds.password)
        if key not in tasks:
            tasks[key] = asyncio.ensure_future(check_endpoint(endpoint, creds, options))
        return key

    layouts: list[tuple[PoolPlan, list[tuple[Endpoint, tuple[object, ...] | None]], list[str]]] = []
    for plan in plans:
        notes = list(plan.notes)
        members: list[tuple[Endpoint, tuple[object, ...] | None]] = []
        if plan.local:
            if local is not None:
                members.append((local, schedule(local, plan.credentials)))
            else:
                members.append((_unprobed_local(), None))
        endpoints = list(plan.endpoints)
        if plan.discovery is not None:
            g = plan.discovery.group
            key = (str(g.group_address), g.group_port, g.local_bind_address,
                   _discovery_seconds(plan.discovery, options))
            result = found[key]
            notes += _discovery_notes(plan.discovery, result, key[3])
            if not isinstance(result, str):
                endpoints += [endpoint_for_node(n, plan.discovery.source) for n in result.nodes]
        members += [(e, schedule(e, plan.credentials)) for e in endpoints]
        layouts.append((plan, members, notes))
    if tasks:
        await asyncio.gather(*tasks.values())

    pools = []
    for plan, members, notes in layouts:
        checks = {id(e): tasks[k].result() for e, k in members if k is not None}
        local_node = next((node_id_of(e, checks[id(e)]) for e, k in members if e.local and k is not None), None)
        results = []
        for endpoint, key in members:
            if key is None:
                verdict = readiness.local_without_probe()
                results.append(TargetResult(endpoint, None, verdict.ready, verdict.reason))
                continue
            check = checks[id(endpoint)]
            if not endpoint.local and local_node is not None and endpoint.node_id == local_node:
                notes.append(f"member {endpoint.name} is this broker itself (its node id): the broker ignores it")
                continue
            verdict = readiness.judge(
                check, needs_connection_count=readiness.policy_needs_connection_count(plan.policy_name)
            )
            results.append(TargetResult(
                endpoint, check, verdict.ready, verdict.reason, node_id_of(endpoint, check),
                check.management.connection_count if check.management else None,
            ))
        pc = plan.router.pool
        assert pc is not None
        pools.append(PoolResult(plan.router.name, plan.source, pc.quorum_size, pc.check_period,
                                tuple(results), tuple(notes)))
    report_notes = []
    if options.jolokia is None:
        report_notes.append("no --jolokia: readiness judged without the management API "
                            "(connection and handshake only; node ids and connection counts unknown)")
    return ProbeReport(tuple(pools), tuple(report_notes))


def _unprobed_local() -> Endpoint:
    return Endpoint(name="local", host="", port=0, source="local", local=True)


def node_id_of(endpoint: Endpoint, check: Check) -> str | None:
    """Discovery gives the node id with the member; else the broker's NodeID; else CORE topology."""
    if endpoint.node_id:
        return endpoint.node_id
    if check.management is not None and check.management.node_id:
        return check.management.node_id
    if check.handshake is not None and check.handshake.protocol == "core" and check.handshake.peer_id:
        return check.handshake.peer_id
    return None


def report_targets(report: ProbeReport) -> list[Target]:
    """The targets file content (``routing.targets`` format) for a report; one entry per source+name."""
    seen: set[tuple[str, str]] = set()
    out: list[Target] = []
    for pool in report.pools:
        for t in pool.targets:
            e = t.endpoint
            if (e.source, e.name) in seen:
                continue
            seen.add((e.source, e.name))
            out.append(Target(
                name=e.name, node_id=t.node_id or e.name, host=e.host or None, port=e.port or None,
                local=e.local, ready=t.ready, connection_count=t.connection_count,
                node_id_known=t.node_id is not None, source=e.source,
            ))
    return out


def probe(config: BrokerConfig, options: ProbeOptions, router: str | None = None) -> ProbeReport:
    """Synchronous entry point (a fresh event loop per call)."""
    return asyncio.run(run_probe(config, options, router))

