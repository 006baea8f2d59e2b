"""``arouter fleet``'s pods: each pod's config read as ``simulate`` reads it (a CR's broker N, one
broker.xml and properties per ordinal, or a config per ``--pod``), and the fleet's node ids."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import UsageError
from .common import broker_options

if TYPE_CHECKING:
    from ..fleet.pods import Pod, PodSpec
    from .fleet_options import FleetOptions


def target_mapping(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, sep, pod = item.partition("=")
        if not sep or not name or not pod:
            raise UsageError(f"--target-pod {item!r}: expected TARGET=POD")
        if name in out:
            raise UsageError(f"--target-pod {name} given twice")
        out[name] = pod
    return out


def cr_specs(o: FleetOptions, cr: str, count: int) -> list[PodSpec]:
    """Pods 0..count-1 of a CR, each read as ``simulate --cr CR --ordinal N`` reads it."""
    from ..config.properties.cr import read_cr
    from ..fleet.pods import PodSpec

    name, _ = read_cr(cr)
    out = []
    for n in range(count):
        path, options = broker_options(o.config, o.define, o.properties, cr, n, quiet=True)
        out.append(PodSpec(f"{name or 'cr'}-ss-{n}", n, path, options))
    return out


def replica_specs(o: FleetOptions, count: int) -> list[PodSpec]:
    """Pods 0..count-1 running one broker.xml and properties, each with its STATEFUL_SET_ORDINAL in its
    environment, after each properties directory ``D/`` its ``D/broker-N/``, and the ``broker-N.`` lines
    of the properties files for pod N only (the operator's layout)."""
    from ..config import LoadOptions
    from ..config.properties import PropertiesOptions
    from ..fleet.pods import PodSpec, pod_environ

    path, base = broker_options(o.config, o.define, o.properties, quiet=True)
    props = base.broker_properties
    out = []
    for n in range(count):
        paths = tuple(",".join(e + (f",{e}broker-{n}/" if e.endswith("/") else "") for e in p.split(","))
                      for p in props.paths)
        options = LoadOptions(base.properties, environ=pod_environ(n),
                              broker_properties=PropertiesOptions(paths=paths, beside=props.beside, split_ordinal=n))
        out.append(PodSpec(f"pod-{n}", n, path, options))
    return out


def listed_specs(o: FleetOptions) -> list[PodSpec]:
    """``--pod NAME=BROKER.xml[,PROPS]``: each pod's own config; its ordinal from a trailing ``-N`` in its
    name (else its place in the list) is its STATEFUL_SET_ORDINAL."""
    from ..config import LoadOptions
    from ..fleet.pods import PodSpec, pod_environ

    out: list[PodSpec] = []
    for i, item in enumerate(o.pods):
        name, sep, files = item.partition("=")
        if not sep or not name.strip() or not files:
            raise UsageError(f"--pod {item!r}: expected NAME=BROKER.xml[,PROPERTIES]")
        if any(s.name == name for s in out):
            raise UsageError(f"--pod {name} given twice")
        xml, _, props = files.partition(",")
        m = re.search(r"-(\d+)$", name)
        ordinal = int(m.group(1)) if m else i
        path, base = broker_options(xml or None, o.define, [props] if props else None, quiet=True)
        options = LoadOptions(base.properties, environ=pod_environ(ordinal), broker_properties=base.broker_properties)
        out.append(PodSpec(name, ordinal, path, options))
    return out


def pod_specs(o: FleetOptions, cr: str | None, count: int | None) -> list[PodSpec]:
    if o.pods:
        return listed_specs(o)
    if cr is not None:
        from ..config.properties.cr import deployment_size

        return cr_specs(o, cr, count if count is not None else deployment_size(cr))
    return replica_specs(o, count or 1)


def known_ids(pods: list[Pod], mapping: dict[str, str], version: tuple[int, int], assumed: list[str],
               names: Sequence[str] | None = None) -> list[Pod]:
    """The pods with the fleet's node ids (fleet.pods.with_node_ids) when some pool targets a pod."""
    from ..fleet.pods import target_pods, with_node_ids

    targets, said = target_pods(pods, mapping, names)
    assumed.extend(said)
    if not targets:
        return pods
    assumed.append("node ids: each pod's name stands for its node id (the broker's CONSISTENT_HASH ring orders "
                   "the pods by their real node ids, which no config holds)")
    return with_node_ids(pods, targets, version)
