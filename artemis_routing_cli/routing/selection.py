"""Choosing the routers a command works with, and checking what the user said about their targets.

``simulate``, ``serve`` and ``analyze`` take ``--router NAME`` and target flags (``--node-id TARGET=ID``,
``--down TARGET``, ``--connections TARGET=N``). A target is named as the router's pool names it: a
static connector's name, ``local`` (the router's local target), or - for members of a discovery group or
of a cluster connection known from a targets file - the member's node id. A name that no chosen router's
pool holds would be silently ignored by the engine, so it is refused here with the names that exist.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..config.model import BrokerConfig
from ..errors import UsageError
from .cache import frozen_clock
from .router import Router, build_routers
from .targets import LOCAL, TargetState

__all__ = ["check_target_names", "select_routers", "target_names"]


def select_routers(cfg: BrokerConfig, state: TargetState, name: str | None, seed: int | None, *,
                   clock: Callable[[], float] = frozen_clock) -> list[Router]:
    """The router named ``name`` (every router when None), built with ``state``; unknown names and
    target names that none of them holds are refused (exit 2)."""
    routers = select_named(cfg, state, [name] if name is not None else [], seed, clock=clock)
    check_target_names(routers, state)
    return routers


def select_named(cfg: BrokerConfig, state: TargetState, names: Iterable[str], seed: int | None, *,
                 clock: Callable[[], float] = frozen_clock) -> list[Router]:
    """The routers ``names`` (every router when empty); an unknown name is refused."""
    wanted = list(dict.fromkeys(names))
    for name in wanted:
        if cfg.router(name) is None:
            known = ", ".join(r.name for r in cfg.connection_routers) or "none"
            raise UsageError(f"no connection router named {name!r} in {cfg.path} (routers: {known})")
    routers = build_routers(cfg, state, names=wanted or None, seed=seed, clock=clock)
    if not routers:
        raise UsageError(f"{cfg.path} has no connection routers")
    return routers


def target_names(router: Router, *, node_ids: bool = False) -> list[str]:
    """The names of ``router``'s targets: ``local``, then each pool target's name (and, with
    ``node_ids``, its node id, which names it too)."""
    names = [LOCAL]
    if router.pool is not None:
        for t in router.pool.targets:
            for name in (t.name, t.node_id) if node_ids else (t.name,):
                if name not in names:
                    names.append(name)
    return names


def check_target_names(routers: list[Router], state: TargetState, *, unknown_ok: bool = False) -> list[str]:
    """Refuse a ``--node-id``/``--down``/``--connections`` name no router in ``routers`` holds.

    With ``unknown_ok`` (members that may still be discovered while serving) the problems are returned
    as warnings instead.
    """
    valid: set[str] = set()
    for r in routers:
        valid.update(target_names(r, node_ids=True))
    # a node id a targets file gave (and --node-id replaced) still names its target
    for t in state.known:
        if t.name in valid and t.node_id:
            valid.add(t.node_id)
    problems: list[str] = []
    for option, names in (("--node-id", list(state.node_ids)), ("--down", sorted(state.down)),
                          ("--connections", list(state.connections))):
        for name in names:
            if name not in valid:
                problems.append(f"{option} {name!r}: no such target in the pool of "
                                f"{_routers_phrase(routers)} (targets: {_known_phrase(routers)})")
    if problems and not unknown_ok:
        raise UsageError(problems[0] if len(problems) == 1 else
                         f"{problems[0]}; and {len(problems) - 1} more unknown target name(s)")
    return problems


def _routers_phrase(routers: list[Router]) -> str:
    if len(routers) == 1:
        return f"router {routers[0].name}"
    return f"any of the {len(routers)} routers"


def _known_phrase(routers: list[Router]) -> str:
    names: list[str] = []
    for r in routers:
        names.extend(n for n in target_names(r) if n not in names)
    return ", ".join(names)
