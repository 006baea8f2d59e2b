"""The pods of a fleet: each pod's config loaded as the broker loads it, judged as the broker would
judge it (verdict.load_checked), and its routers built by the one engine (routing.router).

A pod is a name, an ordinal (its ``STATEFUL_SET_ORDINAL``) and how its config is read: the same
``(path, LoadOptions)`` ``simulate`` reads for ``--cr cr.yaml --ordinal N``, or a broker.xml and
properties with ``STATEFUL_SET_ORDINAL`` in the pod's environment.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..config import LoadOptions
from ..config.model import BrokerConfig
from ..errors import ConfigError
from ..routing.router import Router, build_routers
from ..routing.targets import Target, TargetState
from ..verdict import finding_text, load_checked

ORDINAL_VARIABLE = "STATEFUL_SET_ORDINAL"
MAX_PODS = 63  # a key's homes are a bit set in one int64
ROUND_ROBIN_START = 0  # ROUND_ROBIN / LEAST_CONNECTIONS ties start here on every pod, as diff does


@dataclass(frozen=True)
class PodSpec:
    """How one pod's config is read."""

    name: str
    ordinal: int
    path: str
    options: LoadOptions


@dataclass
class Pod:
    name: str
    ordinal: int
    config: BrokerConfig | None  # None: the broker would not start (``refusal`` says why)
    refusal: str | None = None
    routers: dict[str, Router] = field(default_factory=dict)
    state: TargetState = field(default_factory=TargetState)


def pod_environ(ordinal: int) -> dict[str, str]:
    """The environment of pod ``ordinal``: this process's, with its ``STATEFUL_SET_ORDINAL``."""
    return {**os.environ, ORDINAL_VARIABLE: str(ordinal)}


def _routers(config: BrokerConfig, version: tuple[int, int], state: TargetState) -> dict[str, Router]:
    routers: dict[str, Router] = {}
    for router in build_routers(config, state, seed=ROUND_ROBIN_START):
        router.tracing = False
        router.broker_version = version
        routers[router.name] = router
    return routers


def load_pod(spec: PodSpec, version: tuple[int, int]) -> Pod:
    """Pod ``spec`` loaded and judged; a pod the broker would not start routes nothing."""
    checked = load_checked(spec.path, spec.options, going_on=False)
    if checked.verdict.refusals:
        return Pod(spec.name, spec.ordinal, None, finding_text(checked.verdict.refusals[0]))
    return Pod(spec.name, spec.ordinal, checked.config, None, _routers(checked.config, version, TargetState()))


def load_pods(specs: Sequence[PodSpec], version: tuple[int, int]) -> list[Pod]:
    if len(specs) > MAX_PODS:
        raise ConfigError(f"{len(specs)} pods: arouter fleet looks at {MAX_PODS} at most")
    return [load_pod(s, version) for s in specs]


def with_version(pods: Sequence[Pod], version: tuple[int, int]) -> list[Pod]:
    """The same pods running Artemis ``version`` (fresh routers, the node ids they had)."""
    return [Pod(p.name, p.ordinal, p.config, p.refusal,
                _routers(p.config, version, p.state) if p.config is not None else {}, p.state) for p in pods]


def with_node_ids(pods: Sequence[Pod], targets: dict[str, int], version: tuple[int, int]) -> list[Pod]:
    """The pods with each one's node id known to the fleet: a pod's local target, and every pool target
    that is a pod, carry that pod's name as node id, so every pod's CONSISTENT_HASH ring orders the
    pods alike (the broker's rings use the pods' real node ids, which no config holds)."""
    out = []
    for p in pods:
        if p.config is None:
            out.append(p)
            continue
        ids = {"local": p.name, **{label: pods[i].name for label, i in targets.items()}}
        state = TargetState(node_ids=ids)
        out.append(Pod(p.name, p.ordinal, p.config, p.refusal, _routers(p.config, version, state), state))
    return out


def router_names(pods: Sequence[Pod]) -> list[str]:
    """Every router name some running pod deploys, in first-seen order."""
    names: dict[str, None] = {}
    for pod in pods:
        names.update(dict.fromkeys(pod.routers))
    return list(names)


_SS = re.compile(r"-ss-(\d+)$")


def target_pods(pods: Sequence[Pod], mapping: dict[str, str],
                names: Sequence[str] | None = None) -> tuple[dict[str, int], list[str]]:
    """Pool target label -> pod index, for following a redirect one hop; and what was assumed.

    A target is a pod when ``--target-pod LABEL=POD`` says so, when its label is the pod's name, or
    when its host's first label is the pod's name or ends in ``-ss-N`` (the operator's StatefulSet
    pods) for the pod of ordinal N. Other targets are outside the fleet: a key sent there has no
    home in it.
    """
    by_name = {p.name: i for i, p in enumerate(pods)}
    by_ordinal = {p.ordinal: i for i, p in enumerate(pods)}
    out: dict[str, int] = {}
    said: list[str] = []
    outside: set[str] = set()
    for pod in pods:
        for router in pod.routers.values():
            if router.pool is None or (names is not None and router.name not in names):
                continue
            for t in router.pool.targets:
                if t.local or t.name in out or t.name in outside:
                    continue
                found = _pod_of(t, mapping, by_name, by_ordinal)
                if found is None:
                    outside.add(t.name)
                else:
                    out[t.name] = found
    if outside:
        said.append(f"pool target(s) {', '.join(sorted(outside))} are no pod of the fleet: a key redirected "
                    "there has no home in it (--target-pod TARGET=POD names its pod)")
    return out, said


def _pod_of(t: Target, mapping: dict[str, str], by_name: dict[str, int], by_ordinal: dict[int, int]) -> int | None:
    if t.name in mapping:
        return by_name.get(mapping[t.name])
    if t.name in by_name:
        return by_name[t.name]
    host = (t.host or "").split(".", 1)[0]
    if host in by_name:
        return by_name[host]
    m = _SS.search(host)
    return by_ordinal.get(int(m.group(1))) if m else None
