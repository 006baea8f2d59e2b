"""The undefined ``${name}`` tokens inside a connection router: what simulate, diff and serve say.

The broker substitutes the empty string for a ``${name}`` with no system property, environment
variable or default (validate's AR701). Inside a router the answer depends on it (a
``local-target-filter`` of ``${STATEFUL_SET_ORDINAL}`` becomes the empty pattern), so every command
that routes says so, with the token's place. A router's extent is taken from the positions the
model keeps: from its start tag to the line of its last child element.
"""

from __future__ import annotations

from collections.abc import Iterator

from .model import BrokerConfig, ConnectionRouter, PropertyUse
from .positions import Pos


def _positions(router: ConnectionRouter) -> Iterator[Pos]:
    yield router.pos
    yield from (f.pos for f in router.fields.values())
    for policy in router.policies:
        yield policy.pos
        yield from policy.property_pos.values()
    for pool in router.pools:
        yield pool.pos
        yield from (f.pos for f in pool.fields.values())
        yield from pool.static_connector_pos
    if router.cache is not None:
        yield router.cache.pos
        yield from (f.pos for f in router.cache.fields.values())


def undefined_in_router(config: BrokerConfig, router: ConnectionRouter) -> list[PropertyUse]:
    """The ``${}`` tokens in ``router``'s element that became the empty string, each once."""
    empty = [u for u in config.properties if u.source == "empty" and u.file == router.pos.file]
    if not empty:
        return []
    start = (router.pos.line, router.pos.column)
    end = max(p.line for p in _positions(router) if p.file == router.pos.file)
    seen: set[str] = set()
    out = []
    for use in empty:
        if start <= (use.line, use.column) and use.line <= end and use.token not in seen:
            seen.add(use.token)
            out.append(use)
    return out


def undefined_notes(config: BrokerConfig, router: ConnectionRouter) -> list[str]:
    """One sentence per undefined token in ``router``, for the routing commands' warnings."""
    return [f"{u.token} ({u.file}:{u.line}) is not defined: the broker substitutes the empty string, and so "
            f"does this answer (give the value your broker gets with -D {u.name}=VALUE)"
            for u in undefined_in_router(config, router)]
