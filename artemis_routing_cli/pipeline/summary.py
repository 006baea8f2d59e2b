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
from .assign import BAD_KEY, BAD_ROW, RouterJob, prefix

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

Groups = list[tuple[dict[str, object], int]]


def group_columns(jobs: Sequence[RouterJob], bad_rows: bool = False) -> list[str]:
    cols: list[str] = [BAD_ROW] if bad_rows else []
    for i, job in enumerate(jobs):
        p = prefix(i)
        cols += [f"{p}status", f"{p}target", f"{p}local", f"{p}null"]
        for j in range(len(job.scenarios)):
            cols += [f"{p}w{j}_status", f"{p}w{j}_target"]
    return cols


def collect_groups(assigned: DataFrame, jobs: Sequence[RouterJob]) -> Groups:
    """Count the per-key assignments by answer (one aggregation)."""
    return collect_counted(assigned.groupBy(*group_columns(jobs, BAD_ROW in assigned.columns)).count(), jobs)


def collect_counted(counted: DataFrame, jobs: Sequence[RouterJob]) -> Groups:
    """The groups of an already counted frame (group columns and ``count``, see assign.count_answers)."""
    cols = group_columns(jobs, BAD_ROW in counted.columns)
    rows = counted.collect()
    return [({c: r[c] for c in cols}, int(r["count"])) for r in rows]


def _label(target: object) -> str | None:
    return None if target is None else str(target)


def _ready_labels(router: Router) -> list[str]:
    """The labels of the router's ready targets (as the per-key answers name them)."""
    if router.pool is None:
        return []
    return list(dict.fromkeys("local" if t.local else t.name for t in router.pool.ready()))


def _imbalance(router: Router, per_target: Counter[str]) -> dict[str, object]:
    names = list(per_target)
    names += [label for label in _ready_labels(router) if label not in per_target]
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


def _is_bad(values: dict[str, object], jobs: Sequence[RouterJob]) -> bool:
    return bool(values.get(BAD_ROW)) or any(values[f"{prefix(i)}status"] == BAD_KEY for i in range(len(jobs)))


def summarise(jobs: Sequence[RouterJob], groups: Groups,
              bad_samples: Sequence[dict[str, object]] = ()) -> dict[str, object]:
    """The ``--format json`` document.

    Bad rows (not a key: a line that is not a JSON object, invalid UTF-8, a SOURCE_IP that is not an
    address) are counted apart (``bad_rows``, per router ``bad``) and sampled (``bad_row_samples``);
    every other figure is over the keys that were routed.
    """
    routers = []
    for i, job in enumerate(jobs):
        p = prefix(i)
        total = local = nulls = bad = 0
        per_target: Counter[str] = Counter()
        refused: Counter[str] = Counter({REFUSED_UNAVAILABLE: 0, REFUSED_USE_ANOTHER: 0})
        routed = []
        for values, count in groups:
            if values.get(BAD_ROW) or values[f"{p}status"] == BAD_KEY:
                bad += count
                continue
            routed.append((values, count))
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
                for values, count in routed)
            what_if.append({
                "scenario": label,
                "moved": transfer.moved,
                "moved_share": _share(transfer.moved, total),
                "flows": [{"from": a, "to": b, "count": c} for a, b, c in transfer.flows()],
            })
        for label in _ready_labels(job.router):
            per_target.setdefault(label, 0)  # a ready target no key reached is shown (and counted) with 0
        routers.append({
            "router": job.router.name,
            "key_type": job.router.key_type,
            "policy": job.router.policy.name if job.router.policy is not None else None,
            "total": total,
            "targets": [{"target": t, "count": c, "share": _share(c, total)}
                        for t, c in sorted(per_target.items(), key=lambda kv: (-kv[1], kv[0]))],
            "local": local,
            "null_keys": nulls,
            "bad": bad,
            "refused": dict(refused),
            "imbalance": _imbalance(job.router, per_target),
            "what_if": what_if,
            "warnings": list(job.router.warnings),
        })
    return {"routers": routers, "bad_rows": sum(c for v, c in groups if _is_bad(v, jobs)),
            "bad_row_samples": list(bad_samples)}


def _share(count: int, total: int) -> float:
    return round(count / total, 6) if total else 0.0
