"""Who moves, on Spark: ``arouter diff --keys PATH`` routes the population through each old and new
router with analyze's pipeline (assign.count_answers: the JVM/pandas engines, one group-by) and
counts the answer pairs with routing.transfer, the same computation as the local diff and as
analyze's what-if churn."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..routing.router import Router
from ..routing.transfer import (
    NOT_DEPLOYED,
    Answer,
    KeyTotals,
    Side,
    Transfer,
    becomes_refused,
    count_transfer,
    moves,
    side_answer,
)
from .assign import BAD_KEY, BAD_ROW, RouterJob, count_answers, prefix
from .inputs import read_keys
from .preflight import KeysInput
from .summary import collect_counted

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def spark_transfers(spark: SparkSession, keys_path: str, pairs: Sequence[tuple[str, Side, Side]], *,
                    keys_format: str = "auto", engine: str = "auto",
                    progress: Callable[[str], None] = lambda _m: None,
                    inp: KeysInput | None = None) -> tuple[dict[str, Transfer], KeyTotals]:
    """The transfer of every ``(name, old, new)`` pair (a side is a Router or a fixed Answer), and the
    keys (not answers) that move or become refused on at least one router.

    Rows that are not keys (analyze's bad rows) are left out of every matrix and said.
    """
    keys = read_keys(spark, keys_path, keys_format, inp)
    jobs: list[RouterJob] = []
    slot: dict[tuple[int, int], int] = {}  # (pair, side) -> job index
    for p, (_name, old, new) in enumerate(pairs):
        for s, side in enumerate((old, new)):
            if isinstance(side, Router):
                side.tracing = False
                slot[(p, s)] = len(jobs)
                jobs.append(RouterJob(side))
    progress(f"routing keys from {keys_path} and counting")
    if jobs:
        groups = collect_counted(count_answers(keys, jobs, engine=engine, progress=progress), jobs)
    else:
        groups = [({}, keys.count())]
    bad = [(v, c) for v, c in groups
           if v.get(BAD_ROW) or any(v.get(f"{prefix(i)}status") == BAD_KEY for i in range(len(jobs)))]
    if bad:
        progress(f"{sum(c for _, c in bad):,} rows are not keys (not UTF-8, not a JSON object, or not an "
                 "address for a SOURCE_IP router) and are left out")
        groups = [g for g in groups if g not in bad]

    def answer(p: int, s: int, side: Side, values: dict[str, object]) -> Answer:
        i = slot.get((p, s))
        if i is None:
            return side if isinstance(side, Answer) else NOT_DEPLOYED
        q = prefix(i)
        target = values[f"{q}target"]
        return side_answer(side, (str(values[f"{q}status"]), None if target is None else str(target),
                                  bool(values[f"{q}local"]), bool(values[f"{q}null"])))

    per_group = [([(answer(p, 0, old, v), answer(p, 1, new, v)) for p, (_n, old, new) in enumerate(pairs)], c)
                 for v, c in groups]
    transfers = {name: count_transfer((both[p][0], both[p][1], c) for both, c in per_group)
                 for p, (name, _old, _new) in enumerate(pairs)}
    totals = KeyTotals(sum(c for _b, c in per_group),
                       sum(c for both, c in per_group if any(moves(x, y) for x, y in both)),
                       sum(c for both, c in per_group if any(becomes_refused(x, y) for x, y in both)))
    return transfers, totals
