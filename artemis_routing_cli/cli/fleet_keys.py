"""``arouter fleet --keys``: every key routed on every pod as ``simulate --keys-file`` routes it
(locally, chunk by chunk), or on Spark (pipeline/fleetcount.py), and counted by its homes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .common import note

if TYPE_CHECKING:
    import numpy as np

    from ..fleet.pods import Pod
    from ..routing.router import Router
    from .fleet_options import FleetOptions
    from .keys_file import KeysFile


def key_homes(name: str, pods: Sequence[Pod], loaded: KeysFile, o: FleetOptions, mapping: dict[str, str],
           assumed: list[str]) -> Iterator[tuple[Sequence[object], np.ndarray, np.ndarray, np.ndarray]]:
    """Each chunk of keys, as simulate --keys-file routes it on every pod: the keys shown, their homes
    (bit sets over ``pods``) and whether a redirect took them there."""
    from ..fleet.count import ALL, chunk_homes
    from ..fleet.pods import target_pods
    from ..routing.batch import batch_router
    from ..routing.policies import ConsistentHashModuloPolicy
    from .simulate_batch import _PLAIN_KEY_TYPES, _input_chunks

    targets, _ = target_pods(pods, mapping)
    routers = [p.routers.get(name) for p in pods]
    # what simulate --keys-file routes depends on the key type (and how SNI names are sent): read once
    # for every pod that reads the keys alike
    readers: dict[tuple[str, str], Router] = {}
    for r in routers:
        if r is not None:
            readers.setdefault((r.key_type, r.sni_encoding), r)
    for r in readers.values():
        if r.key_type not in _PLAIN_KEY_TYPES:  # taken as they are: no bad row possible
            for _ in _input_chunks(r, loaded, o.keys or "", False):
                pass  # without a BadRows, a bad row is an error at its line, before any output
    if not readers:
        return
    inputs = {k: _input_chunks(r, loaded, o.keys or "", False) for k, r in readers.items()}
    routes = [batch_router(r) if r is not None else None for r in routers]
    redirects = [r is not None and r.pool is not None and r.policy is not None
                 and not isinstance(r.policy, ConsistentHashModuloPolicy) for r in routers]
    while True:
        chunk = {k: next(gen, None) for k, gen in inputs.items()}
        if any(item is None for item in chunk.values()):
            return
        results: list[Any] = []
        shown: Sequence[object] = []
        for pod, r, route in zip(pods, routers, routes, strict=True):
            if r is None or route is None:
                results.append(ALL if pod.config is not None else None)
                continue
            item = chunk[(r.key_type, r.sni_encoding)]
            assert item is not None
            shown = item[0]
            results.append(route(item[1]))
        homes, hopped, null = chunk_homes(results, targets, redirects)
        yield shown, homes, hopped, null


def count_keys(name: str, pods: list[Pod], loaded: KeysFile, o: FleetOptions, mapping: dict[str, str],
           assumed: list[str]) -> Any:
    import numpy as np

    from ..fleet.count import KeyCount
    from ..routing.keys import INTERNAL_CLIENT_ID_PREFIX

    count = KeyCount([p.name for p in pods])
    by_client_id = any(r.key_type == "CLIENT_ID" for p in pods for n, r in p.routers.items() if n == name)
    for shown, homes, hopped, null in key_homes(name, pods, loaded, o, mapping, assumed):
        internal = None
        if by_client_id and INTERNAL_CLIENT_ID_PREFIX in "\n".join(map(str, shown)):  # one C search first
            internal = np.fromiter((isinstance(k, str) and k.startswith(INTERNAL_CLIENT_ID_PREFIX) for k in shown),
                                   dtype=bool, count=len(shown))
        count.add(shown, homes, hopped, internal, null)
    if count.null_several:
        assumed.append(f"{name}: {count.null_several:,} key(s) are NULL (no value, or no key-filter match) and "
                       "several pods take them, as NULL|N on every pod intends: not counted as several homes")
    if count.internal:
        assumed.append(f"{name}: {count.internal:,} key(s) are a router's own client ids "
                       "($.artemis.internal.router.client.…): every pod takes them; not counted")
    return count


def spark_docs(names: list[str], pods: list[Pod], inp: Any, o: FleetOptions, mapping: dict[str, str],
               assumed: list[str]) -> list[dict[str, Any]]:
    """Each router's keys counted on Spark (pipeline/fleetcount.py), as the document's ``keys``."""
    from ..fleet.count import KeyCount
    from ..fleet.document import keys_json
    from ..fleet.pods import target_pods
    from ..pipeline.fleetcount import spark_homes
    from ..pipeline.session import parse_conf, start_session

    note(f"arouter: keys: {inp.assumed}")
    spark = start_session(o.master, parse_conf(o.conf), o.spark_log_level)
    out = []
    try:
        for name in names:
            targets, _ = target_pods(pods, mapping)
            sides, redirects = _sides(pods, name)
            homes, hopped, null, counts, bad = spark_homes(
                spark, o.keys or "", sides, targets, redirects, keys_format=o.keys_format, engine=o.engine,
                progress=lambda m: note(f"arouter: {m}"), inp=inp)
            count = KeyCount([p.name for p in pods])
            count.add_groups(homes, hopped, null, counts)
            if bad:
                assumed.append(f"{bad:,} row(s) are not keys (not UTF-8, not a JSON object, or not an address for a "
                               "SOURCE_IP router): left out")
            assumed.append("keys counted on Spark: no samples of keys; a router's own client ids count as keys")
            out.append(keys_json(count, f"{o.keys} (Spark)"))
    finally:
        spark.stop()
    return out


def _sides(pods: Sequence[Pod], name: str) -> tuple[list[Any], list[bool]]:
    """Each pod as chunk_homes takes it (its router, ALL or None) and whether it may redirect."""
    from ..fleet.count import ALL
    from ..routing.policies import ConsistentHashModuloPolicy

    routers = [p.routers.get(name) for p in pods]
    sides = [r if r is not None else (ALL if p.config is not None else None) for p, r in zip(pods, routers,
                                                                                            strict=True)]
    redirects = [r is not None and r.pool is not None and r.policy is not None
                 and not isinstance(r.policy, ConsistentHashModuloPolicy) for r in routers]
    return sides, redirects


def spark_pairs(name: str, pods: list[Pod], after: list[Pod], inp: Any, o: FleetOptions, mapping: dict[str, str],
                assumed: list[str]) -> Any:
    """(homes before, homes after) -> keys, counted on Spark: both fleets' routers in one group-by."""
    from collections import Counter

    from ..fleet.count import chunk_homes
    from ..fleet.pods import target_pods
    from ..pipeline.fleetcount import spark_answers
    from ..pipeline.session import parse_conf, start_session

    note(f"arouter: keys: {inp.assumed}")
    before_sides, before_redirects = _sides(pods, name)
    after_sides, after_redirects = _sides(after, name)
    spark = start_session(o.master, parse_conf(o.conf), o.spark_log_level)
    try:
        results, counts, bad = spark_answers(spark, o.keys or "", [*before_sides, *after_sides],
                                             keys_format=o.keys_format, engine=o.engine,
                                             progress=lambda m: note(f"arouter: {m}"), inp=inp)
    finally:
        spark.stop()
    if bad:
        assumed.append(f"{bad:,} row(s) are not keys: left out")
    a = chunk_homes(results[:len(pods)], target_pods(pods, mapping)[0], before_redirects)[0]
    b = chunk_homes(results[len(pods):], target_pods(after, mapping)[0], after_redirects)[0]
    pairs: Counter[tuple[int, int]] = Counter()
    for x, y, c in zip(a.tolist(), b.tolist(), counts.tolist(), strict=True):
        pairs[(x, y)] += c
    return pairs
