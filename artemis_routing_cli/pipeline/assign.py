"""Route every row of a key DataFrame through the routers, on the executors (Arrow batches).

Each batch goes through :func:`routing.batch.route_batch`, the numpy twin of the engine proven
equal to :meth:`Router.route`; there is no other implementation of the semantics here.
Routers whose answers depend on the order of keys (ROUND_ROBIN, LEAST_CONNECTIONS) make the
whole job run as one ordered partition, so the sequence is the one ``simulate --keys-file`` gives.

Output columns per router ``i`` (``r{i}_…``): ``key_value``, ``status``, ``target``, ``node_id``,
``local``, ``null`` (the key resolved to NULL); per what-if scenario ``j``: ``w{j}_status``,
``w{j}_target``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from copy import deepcopy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..routing.batch import route_batch, vectorisable
from ..routing.keys import NULL_KEY, RECORD_COLUMNS, Connection
from ..routing.router import Router

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame

KEY_TYPE_COLUMN = {v: k for k, v in RECORD_COLUMNS.items()}


@dataclass
class RouterJob:
    """A router to analyze, with its what-if variants (label, router)."""

    router: Router
    scenarios: list[tuple[str, Router]] = field(default_factory=list)


def prefix(i: int) -> str:
    return f"r{i}_"


def output_schema(jobs: Sequence[RouterJob], input_columns: Sequence[str], full: bool = True) -> str:
    parts = ([f"`{c}` string" for c in input_columns if c != "_row"] + ["_row bigint"]) if full else []
    for i, job in enumerate(jobs):
        p = prefix(i)
        parts += [f"{p}status string", f"{p}target string", f"{p}local boolean", f"{p}null boolean"]
        if full:
            parts += [f"{p}key_value string", f"{p}node_id string"]
        for j in range(len(job.scenarios)):
            parts += [f"{p}w{j}_status string", f"{p}w{j}_target string"]
    return ", ".join(parts)


def _strings(series: pd.Series) -> list[str | None]:
    values = series.tolist()
    if series.isna().any():
        return [None if v is None or v != v else v for v in values]
    return values


def _inputs(router: Router, batch: pd.DataFrame) -> list:
    """What route_batch takes: key strings (a ``key`` column) or one Connection per row."""
    if "key" in batch.columns:
        return _strings(batch["key"])
    from ..routing.keys import connection_from_record

    cols = {c: _strings(batch[c]) for c in batch.columns if c in RECORD_COLUMNS}
    names = list(cols)
    out: list[Connection] = []
    memo: dict[tuple, Connection] = {}
    for values in zip(*(cols[c] for c in names), strict=True):
        conn = memo.get(values)
        if conn is None:
            conn = memo[values] = connection_from_record(router.key_type, dict(zip(names, values, strict=True)))
        out.append(conn)
    if not names:
        out = [Connection()] * len(batch)
    return out


def route_frames(jobs: Sequence[RouterJob], frames: Iterator[pd.DataFrame],
                 full: bool = True) -> Iterator[pd.DataFrame]:
    """mapInPandas body: every batch through every router (and its scenarios).

    Without ``full`` only the columns the summary counts leave the Python worker (less Arrow traffic).
    """
    import pandas as pd

    for batch in frames:
        out = batch.copy() if full else pd.DataFrame(index=batch.index)
        for i, job in enumerate(jobs):
            p = prefix(i)
            items = _inputs(job.router, batch)
            res = route_batch(job.router, items)
            out[f"{p}status"] = res.status
            out[f"{p}target"] = res.target
            out[f"{p}local"] = res.local
            out[f"{p}null"] = res.key == NULL_KEY
            if full:
                out[f"{p}key_value"] = res.key_value
                out[f"{p}node_id"] = res.node_id
            for j, (_, variant) in enumerate(job.scenarios):
                w = route_batch(variant, items)
                out[f"{p}w{j}_status"] = w.status
                out[f"{p}w{j}_target"] = w.target
        yield out


def ordered(jobs: Sequence[RouterJob]) -> bool:
    """True when some router's answers depend on earlier keys: route in one ordered partition."""
    return any(not vectorisable(r) for job in jobs for r in [job.router, *(v for _, v in job.scenarios)])


def _without_cache(router: Router) -> Router:
    """A copy for the executors. A deterministic router's cache only ever repeats the policy's
    answer (routing.batch.vectorisable), so the copy drops it and every batch stays vectorised."""
    copy = deepcopy(router)
    if vectorisable(copy):
        copy.cache = None
    return copy


def assign(keys: DataFrame, jobs: Sequence[RouterJob], *, full: bool = True) -> DataFrame:
    """The per-key assignments of every router (wide: one row per input key).

    ``full=False`` keeps only what the summary counts (no input columns, key values or node ids).
    """
    frame = keys.coalesce(1) if ordered(jobs) else keys
    schema = output_schema(jobs, keys.columns, full)
    job_list = [RouterJob(_without_cache(j.router), [(s, _without_cache(v)) for s, v in j.scenarios])
                for j in jobs]

    def run(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        return route_frames(job_list, frames, full)

    return frame.mapInPandas(run, schema)
