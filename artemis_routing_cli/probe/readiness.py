"""The readiness rule: when a pool target counts as ready (shared by ``probe`` and ``serve``).

The broker (``TargetMonitor.run`` every check-period) calls a target ready when

1. it is connected (the router opens a CORE session with the pool's username/password), and
2. the management attribute ``Active`` of the target broker is ``true``, and
3. every policy probe passes: LEAST_CONNECTIONS reads ``ConnectionCount`` and fails the target
   when that read fails.

arouter measures (1) with a TCP connection, TLS when the connector has ``sslEnabled=true``, and
the chosen protocol handshake; (2) and (3) through Jolokia when a management endpoint is given.
Without one, a target is ready when its connection (and handshake, if one was chosen) succeeds,
and the verdict says it was judged without the management API.

The local target is always ready for the broker (``LocalTarget.checkReadiness`` is ``true``):
it is the broker itself, so it counts as ready whenever the router runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Check

WITHOUT_MANAGEMENT = "judged without the management API (connection{handshake} only)"


@dataclass(frozen=True)
class Readiness:
    ready: bool
    reason: str
    via_management: bool


def policy_needs_connection_count(policy_name: str | None) -> bool:
    """LEAST_CONNECTIONS adds a target probe reading ConnectionCount (LeastConnectionsPolicy)."""
    return policy_name == "LEAST_CONNECTIONS"


def judge(check: Check, *, needs_connection_count: bool = False) -> Readiness:
    """Is this target ready, as the broker's TargetMonitor would decide, from what was measured?"""
    if not check.reachable:
        return Readiness(False, f"not connected: {check.error or 'unreachable'}", False)
    if check.handshake is not None and not check.handshake.ok:
        return Readiness(False, f"{check.handshake.protocol} handshake failed: {check.handshake.detail}", False)
    m = check.management
    if m is None:
        shown = f" + {check.handshake.protocol} handshake" if check.handshake is not None else ""
        return Readiness(True, WITHOUT_MANAGEMENT.format(handshake=shown), False)
    if m.error is not None:
        return Readiness(False, f"management read failed: {m.error}", True)
    if m.active is not True:
        return Readiness(False, "broker attribute Active is false", True)
    if needs_connection_count and m.connection_count is None:
        return Readiness(False, "LEAST_CONNECTIONS probe failed: ConnectionCount could not be read", True)
    return Readiness(True, "Active=true over the management API", True)


def local_without_probe() -> Readiness:
    """The local target when it is not probed: the broker itself, always ready to its router."""
    return Readiness(True, "local target: the broker counts itself ready (not probed; use --local URL)", False)
