"""The diff as one JSON document (``arouter diff -f json``); every other output renders it.

Shape (format ``arouter-diff/1``)::

    {"format", "old": {"source", "read"}, "new": {...}, "keys": {"source", "count"} | null,
     "assumed": [...], "config_refused": {"old": [...], "new": [...]},
     "routers": [{"name", "status", "deploy": {"old", "new", "reasons"}, "changes": [{"setting", "old",
                  "new", "line", "file", "ignored"?}], "keys", "moved", "churn", "became": {...},
                  "matrix": [{"from", "to", "count", "share"}], "node_ids": {target: [ids]}}],
     "diverts": [{"name", "status", "changes"}], "cluster_connections": [...], "flow": {...} | null,
     "summary": {..., "keys", "moved", "became_refused"}}

The summary counts keys: ``moved`` is the number of keys that move on at least one router (each
router's own count is in its section), ``became_refused`` the keys newly refused by at least one.

Routers whose deployability changed come first, then changed, added, removed, unchanged ones.
``matrix`` covers every key (unchanged keys as from == to).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..routing.transfer import KeyTotals, Transfer
from .configdiff import ADDED, CHANGED, REMOVED, ConfigDiff, SectionDiff

FORMAT = "arouter-diff/1"
DEPLOYED, REFUSED = "deployed", "refused"
_ORDER = {CHANGED: 1, ADDED: 2, REMOVED: 3}


def _deploy(section: SectionDiff) -> dict[str, Any]:
    old = None if section.status == ADDED else (REFUSED if section.old_refused else DEPLOYED)
    new = None if section.status == REMOVED else (REFUSED if section.new_refused else DEPLOYED)
    return {"old": old, "new": new, "changed": old is not None and new is not None and old != new,
            "reasons": list(section.new_refused if new == REFUSED else section.old_refused if old == REFUSED else ())}


def _transfer(t: Transfer | None) -> dict[str, Any]:
    if t is None:
        return {"keys": None, "moved": None, "churn": None, "matrix": []}
    return {
        "keys": t.keys,
        "moved": t.moved,
        "churn": round(t.churn, 6),
        "became": {"local": t.became_local, "remote": t.became_remote, "refused": t.became_refused,
                   "routed": t.became_routed, "null": t.became_null, "not_null": t.left_null},
        "matrix": [{"from": a, "to": b, "count": c, "share": round(c / t.keys, 6) if t.keys else 0.0}
                   for (a, b), c in sorted(t.matrix.items(), key=lambda kv: (kv[0][0] != kv[0][1], -kv[1], kv[0]))],
        "node_ids": {label: sorted(ids) for label, ids in sorted(t.node_ids.items())},
    }


def _section(s: SectionDiff) -> dict[str, Any]:
    return {"name": s.name, "status": s.status, "file": s.file, "line": s.line,
            "changes": [c.to_json() for c in s.changes]}


def build_document(diff: ConfigDiff, transfers: Mapping[str, Transfer | None], totals: KeyTotals | None, *,
                   old: Mapping[str, Any], new: Mapping[str, Any], keys: Mapping[str, Any] | None,
                   assumed: Sequence[str], config_refused: tuple[Sequence[str], Sequence[str]],
                   flow: Mapping[str, Any] | None, version: str) -> dict[str, Any]:
    routers = []
    for s in sorted(diff.routers, key=lambda s: (not _deploy(s)["changed"], _ORDER.get(s.status, 4))):
        routers.append({**_section(s), "deploy": _deploy(s), **_transfer(transfers.get(s.name))})
    keyed = [r for r in routers if r["keys"]]
    return {
        "format": FORMAT,
        "generated_by": f"arouter {version}",
        "old": dict(old),
        "new": dict(new),
        "keys": dict(keys) if keys is not None else None,
        "assumed": list(assumed),
        "config_refused": {"old": list(config_refused[0]), "new": list(config_refused[1])},
        "routers": routers,
        "diverts": [_section(s) for s in diff.diverts],
        "cluster_connections": [_section(s) for s in diff.cluster_connections],
        "flow": dict(flow) if flow is not None else None,
        "summary": {
            "routers_changed": sum(1 for r in routers if r["status"] != "unchanged"),
            "routers_refused_now": [r["name"] for r in routers if r["deploy"]["new"] == REFUSED
                                    and r["deploy"]["old"] != REFUSED],
            "diverts_changed": sum(1 for s in diff.diverts if s.status != "unchanged"),
            "cluster_connections_changed": sum(1 for s in diff.cluster_connections if s.status != "unchanged"),
            # keys, not router answers: a key that moves on two routers is one key that moves
            "keys": totals.keys if totals is not None else None,
            "moved": totals.moved if totals is not None else 0,
            "max_churn": max((r["churn"] for r in keyed), default=0.0),
            "became_refused": totals.became_refused if totals is not None else 0,
        },
    }
