"""Per-router figures from the per-key assignments: counts, shares, refusals, imbalance, churn.

One Spark aggregation (a group-by over the small answer columns of every router) feeds every
figure; the rest is arithmetic on the driver.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..routing.router import OK, REFUSED_UNAVAILABLE, REFUSED_USE_ANOTHER, Router
from ..routing.transfer import Answer, count_transfer
from .assign import RouterJob, prefix

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

Groups = list[tuple[dict[str, object], int]]


def group_columns(jobs: Sequence[RouterJob]) -> list[str]:
    cols: list[str] = []
    for i, job in enumerate(jobs):
        p = prefix(i)
        cols += [f"{p}status", f"{p}target", f"{p}local", f"{p}null"]
        for j in range(len(job.scenarios)):
            cols += [f"{p}w{j}_status", f"{p}w{j}_target"]
    return cols


def collect_groups(assigned: DataFrame, jobs: Sequence[RouterJob]) -> Groups:
    """Count the per-key assignments by answer (one aggregation)."""
    return collect_counted(assigned.groupBy(*group_columns(jobs)).count(), jobs)


def collect_counted(counted: DataFrame, jobs: Sequence[RouterJob]) -> Groups:
    """The groups of an already counted frame (group columns and ``count``, see assign.count_answers)."""
    cols = group_columns(jobs)
    rows = counted.collect()
    return [({c: r[c] for c in cols}, int(r["count"])) for r in rows]


def _label(target: object) -> str | None:
    return None if target is None else str(target)


def _imbalance(router: Router, per_target: Counter[str]) -> dict[str, object]:
    names = list(per_target)
    if router.pool is not None:
        for t in router.pool.ready():
            label = "local" if t.local else t.name
            if label not in per_target:
                names.append(label)
    counts = [per_target.get(n, 0) for n in names]
    if not counts or sum(counts) == 0:
        return {"targets": len(counts), "max_over_mean": None, "coefficient_of_variation": None}
    mean = sum(counts) / len(counts)
    var = sum((c - mean) ** 2 for c in counts) / len(counts)
    return {
        "targets": len(counts),
        "max_over_mean": round(max(counts) / mean, 6),
        "coefficient_of_variation": round(math.sqrt(var) / mean, 6),
        "min": min(counts),
        "max": max(counts),
    }


def summarise(jobs: Sequence[RouterJob], groups: Groups) -> dict[str, object]:
    """The ``--format json`` document."""
    routers = []
    for i, job in enumerate(jobs):
        p = prefix(i)
        total = local = nulls = 0
        per_target: Counter[str] = Counter()
        refused: Counter[str] = Counter({REFUSED_UNAVAILABLE: 0, REFUSED_USE_ANOTHER: 0})
        for values, count in groups:
            total += count
            status, target = values[f"{p}status"], values[f"{p}target"]
            if status == OK and target is not None:
                per_target[str(target)] += count
            else:
                refused[str(status)] += count
            if values[f"{p}local"]:
                local += count
            if values[f"{p}null"]:
                nulls += count
        what_if = []
        for j, (label, _variant) in enumerate(job.scenarios):
            # The same computation as arouter diff's churn (routing.transfer).
            transfer = count_transfer(
                (Answer(str(values[f"{p}status"]), _label(values[f"{p}target"])),
                 Answer(str(values[f"{p}w{j}_status"]), _label(values[f"{p}w{j}_target"])), count)
                for values, count in groups)
            what_if.append({
                "scenario": label,
                "moved": transfer.moved,
                "moved_share": _share(transfer.moved, total),
                "flows": [{"from": a, "to": b, "count": c} for a, b, c in transfer.flows()],
            })
        routers.append({
            "router": job.router.name,
            "key_type": job.router.key_type,
            "policy": job.router.policy.name if job.router.policy is not None else None,
            "total": total,
            "targets": [{"target": t, "count": c, "share": _share(c, total)}
                        for t, c in sorted(per_target.items(), key=lambda kv: (-kv[1], kv[0]))],
            "local": local,
            "null_keys": nulls,
            "refused": dict(refused),
            "imbalance": _imbalance(job.router, per_target),
            "what_if": what_if,
            "warnings": list(job.router.warnings),
        })
    return {"routers": routers}


def _share(count: int, total: int) -> float:
    return round(count / total, 6) if total else 0.0
