"""The JSON document every ``arouter fleet`` output renders (schema ``arouter-fleet/1``).

Shape (stable; keys are never removed, new ones may be added)::

    {"schema": "arouter-fleet/1", "version": str, "broker_version": "2.41",
     "pods": [{"name", "ordinal", "runs": bool, "refusal": str|null, "routers": [str]}],
     "routers": [{"name",
        "proofs": [{"replicas", "proven": bool, "why", "values", "homeless": [str],
                    "several": [{"value", "pods": [str]}], "homes": {value: [pod]}, "idle": [pod],
                    "shares": {pod: float}, "ok": bool}],
        "keys": null | {"source", "count", "one_home", "no_home", "several_homes", "null_several", "hopped",
                 "load": {pod: n}, "skew": float|null,
                 "samples": {"no_home": [{"key", "pods"}], "several_homes": [{"key", "pods"}]}},
        "change": null | {"what", "unit": "keys"|"hash classes", "total", "moved", "lost_home",
                 "gained_home", "matrix": [{"from", "to", "count", "share"}], "null": {"from", "to"}|null,
                 "after": null | a proof of the fleet after the change (as in "proofs")}}],
     "assumed": [str], "failed": [str], "ok": bool, "unknown": [router]}

``unknown`` names the routers neither proven nor counted (no ``--keys``): ``ok`` says nothing about them.

``proofs`` holds one entry per pod count looked at (``--replicas 1..8``); ``homes`` maps every value of
the finite domain to the pods that accept it; ``shares`` is each pod's share of the keys it
alone takes when hashes are spread evenly (the skew a MODULO that is not the pod count makes, without
keys). ``matrix`` is diff's transfer matrix over homes: a cell
per (homes before, homes after), a pod name, several joined with ``+``, or ``NO_HOME``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..routing.keys import NULL_KEY
from ..routing.transfer import Transfer
from .count import NO_HOME, KeyCount, pods_of
from .pods import Pod
from .proof import Proof

SCHEMA = "arouter-fleet/1"


def pods_json(pods: Sequence[Pod]) -> list[dict[str, Any]]:
    return [{"name": p.name, "ordinal": p.ordinal, "runs": p.config is not None, "refusal": p.refusal,
             "routers": list(p.routers)} for p in pods]


def proof_json(proof: Proof) -> dict[str, Any]:
    return {"replicas": proof.replicas, "proven": proof.proven, "why": proof.why, "values": proof.values,
            "homeless": list(proof.homeless), "several": [{"value": v, "pods": p} for v, p in proof.several],
            "homes": dict(proof.homes), "idle": list(proof.idle), "shares": dict(proof.shares),
            "ok": proof.ok}


def keys_json(count: KeyCount, source: str) -> dict[str, Any]:
    return {"source": source, "count": count.keys, "one_home": count.one_home, "no_home": count.no_home,
            "several_homes": count.several,
            "null_several": count.null_several, "hopped": count.hopped, "load": count.load(), "skew": count.skew,
            "samples": {kind: [{"key": k, "pods": pods_of(mask, count.pods)} for k, mask in items]
                        for kind, items in count.samples.items()}}


def change_json(what: str, unit: str, transfer: Transfer, null: tuple[str, str] | None = None) -> dict[str, Any]:
    return {"what": what, "unit": unit, "total": transfer.keys, "moved": transfer.moved,
            "lost_home": sum(c for (a, b), c in transfer.matrix.items() if b == NO_HOME and a != NO_HOME),
            "gained_home": sum(c for (a, b), c in transfer.matrix.items() if a == NO_HOME and b != NO_HOME),
            "matrix": [{"from": a, "to": b, "count": c, "share": c / transfer.keys if transfer.keys else 0.0}
                       for (a, b), c in sorted(transfer.matrix.items())],
            "null": {"from": null[0], "to": null[1]} if null is not None else None}


def verdict(routers: list[dict[str, Any]], allow_multiple: bool, allow_homeless: bool) -> list[str]:
    """Why the fleet fails (exit 1): a value or key with no home, or with several, unless allowed.

    ``NULL`` (a client without a key value) on several pods is the sharding examples' intent
    (``NULL|N`` on every pod: such a client has no shard and any pod may take it): shown, not failed.
    A NULL without a home fails like any value: such a client retries for ever."""
    failed: list[str] = []
    for r in routers:
        after = (r["change"] or {}).get("after")
        for p in [*r["proofs"], *([after] if after else [])]:
            if p["homeless"] and not allow_homeless:
                failed.append(f"{r['name']}: with {p['replicas']} pod(s), {len(p['homeless'])} value(s) have no home "
                              f"(proven): {', '.join(p['homeless'][:8])}")
            several = [s for s in p["several"] if s["value"] != NULL_KEY]
            if several and not allow_multiple:
                failed.append(f"{r['name']}: with {p['replicas']} pod(s), {len(several)} value(s) have several "
                              f"homes (proven): " + ", ".join(f"{s['value']} on {'+'.join(s['pods'])}"
                                                              for s in several[:8]))
        keys = r["keys"]
        if keys is not None:
            if keys["no_home"] and not allow_homeless:
                failed.append(f"{r['name']}: {keys['no_home']:,} of {keys['count']:,} key(s) have no home")
            if keys["several_homes"] and not allow_multiple:
                failed.append(f"{r['name']}: {keys['several_homes']:,} of {keys['count']:,} key(s) have several homes")
    return failed


def build(version: str, broker_version: str, pods: Sequence[Pod], routers: list[dict[str, Any]], assumed: list[str],
          allow_multiple: bool, allow_homeless: bool) -> dict[str, Any]:
    failed = verdict(routers, allow_multiple, allow_homeless)
    unknown = [r["name"] for r in routers if r["keys"] is None and not all(p["proven"] for p in r["proofs"])]
    return {"schema": SCHEMA, "version": version, "broker_version": broker_version, "pods": pods_json(pods),
            "routers": routers, "assumed": list(dict.fromkeys(assumed)), "failed": failed, "ok": not failed,
            "unknown": unknown}
