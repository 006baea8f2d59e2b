"""Route every row of a key DataFrame through the routers, on the executors (Arrow batches).

Two engines, the same answers:

- ``jvm`` (:mod:`.sql_route`): the deterministic router shapes as Spark SQL expressions over our own
  Java UDFs (FNV-1a, java.util.regex ``find``/``matches``); no row leaves the JVM;
- ``pandas``: each Arrow batch goes through :func:`routing.batch.route_batch`, the numpy twin of the
  engine proven equal to :meth:`Router.route`.

``engine="auto"`` routes every router the JVM path covers there (when the UDF jar can be built and
loaded) and the others in pandas; ``"jvm"`` insists on the UDFs; ``"pandas"`` never uses them.
Routers whose answers depend on the order of keys (ROUND_ROBIN, LEAST_CONNECTIONS) make the
pandas stage run as one ordered partition, so the sequence is the one ``simulate --keys-file`` gives.

Output columns per router ``i`` (``r{i}_…``): ``key_value``, ``status``, ``target``, ``node_id``,
``local``, ``null`` (the key resolved to NULL); per what-if scenario ``j``: ``w{j}_status``,
``w{j}_target``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from copy import deepcopy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..routing.batch import route_batch, vectorisable
from ..routing.keys import NULL_KEY, RECORD_COLUMNS, Connection
from ..routing.router import Router
from .inputs import BAD, META_COLUMNS, list_columns
from .sql_route import BAD_KEY  # the status of a row that is not a key for a router (both engines)

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession

KEY_TYPE_COLUMN = {v: k for k, v in RECORD_COLUMNS.items()}
BAD_ROW = "_bad_row"  # the row is not a key for any router (see inputs.BAD)
ENGINES = ("auto", "jvm", "pandas")


@dataclass
class RouterJob:
    """A router to analyze, with its what-if variants (label, router)."""

    router: Router
    scenarios: list[tuple[str, Router]] = field(default_factory=list)


def prefix(i: int) -> str:
    return f"r{i}_"


def job_fields(i: int, job: RouterJob, full: bool = True) -> list[tuple[str, str]]:
    """The output columns of router ``i`` and their Spark SQL types."""
    p = prefix(i)
    out = [(f"{p}status", "string"), (f"{p}target", "string"), (f"{p}local", "boolean"), (f"{p}null", "boolean")]
    if full:
        out += [(f"{p}key_value", "string"), (f"{p}node_id", "string")]
    for j in range(len(job.scenarios)):
        out += [(f"{p}w{j}_status", "string"), (f"{p}w{j}_target", "string")]
    return out


def output_fields(jobs: Sequence[RouterJob], input_columns: Sequence[str], full: bool = True,
                  indices: Sequence[int] | None = None) -> list[tuple[str, str]]:
    fields = ([(c, META_COLUMNS.get(c, "string")) for c in input_columns if c != "_row"] + [("_row", "bigint")]
              if full else [])
    for i, job in enumerate(jobs):
        if indices is None or i in indices:
            fields += job_fields(i, job, full)
    return fields


def output_schema(jobs: Sequence[RouterJob], input_columns: Sequence[str], full: bool = True) -> str:
    return ", ".join(f"`{n}` {t}" for n, t in output_fields(jobs, input_columns, full))


def _strings(series: pd.Series) -> list[str | None]:
    values = series.tolist()
    if series.isna().any():
        return [None if v is None or v != v else v for v in values]
    return values


def _lists(values: list[str | None]) -> list[tuple[str, ...] | None]:
    """A JSON list column's texts as tuples (the roles, each as given)."""
    import json

    return [None if v is None else tuple(json.loads(v)) for v in values]


def _inputs(router: Router, batch: pd.DataFrame,
            lists: frozenset[str] = frozenset()) -> tuple[list, list[str | None]]:
    """What route_batch takes: key strings (a ``key`` column) or one Connection per row; and per row,
    why it is not a key (None for a key): a value the router cannot read, or a bad input row.
    ``lists``: the columns holding a JSON list's text (inputs.LIST_MARK)."""
    from ..routing.keys import connection_from_record

    bad_input = _strings(batch[BAD]) if BAD in batch.columns else [None] * len(batch)
    if "key" in batch.columns:
        keys = _lists(_strings(batch["key"])) if "key" in lists else _strings(batch["key"])
        # an address, or a host name a Java client must be able to send: checked key by key
        if router.key_type != "SOURCE_IP" and (router.key_type != "SNI_HOST" or router.sni_encoding == "raw"):
            return keys, bad_input
        errors = list(bad_input)
        seen: dict[str, str | None] = {}
        for i, k in enumerate(keys):
            if errors[i] is None and k:
                if k not in seen:
                    try:
                        connection_from_record(router.key_type, {"key": k}, router.sni_encoding)
                        seen[k] = None
                    except UsageError as exc:
                        seen[k] = exc.message
                errors[i] = seen[k]
        return keys, errors
    cols: dict[str, list] = {c: _strings(batch[c]) for c in batch.columns if c in RECORD_COLUMNS}
    for c in lists & set(cols):
        cols[c] = _lists(cols[c])
    names = list(cols)
    out: list[Connection] = []
    errors = list(bad_input)
    memo: dict[tuple, Connection | str] = {}
    for i, values in enumerate(zip(*(cols[c] for c in names), strict=True)):
        conn = memo.get(values)
        if conn is None:
            try:
                conn = connection_from_record(router.key_type, dict(zip(names, values, strict=True)),
                                              router.sni_encoding)
            except UsageError as exc:
                conn = exc.message
            memo[values] = conn
        if isinstance(conn, str):
            errors[i] = errors[i] or conn
            conn = Connection()
        out.append(conn)
    if not names:
        out = [Connection()] * len(batch)
    return out, errors


def _route_good(router: Router, items: list, errors: list[str | None]):  # noqa: ANN202 (BatchResult)
    """route_batch over the rows that are keys; the others answer BAD_KEY (and never reach the router,
    so a round-robin position or a cache is as if they were not in the input)."""
    if not any(errors):
        return route_batch(router, items)
    import numpy as np

    good = [i for i, e in enumerate(errors) if e is None]
    res = route_batch(router, [items[i] for i in good])
    n = len(items)
    cols = []
    for name in ("key", "key_value", "status", "target", "node_id"):
        col = np.full(n, BAD_KEY if name == "status" else None, dtype=object)
        col[good] = getattr(res, name)
        cols.append(col)
    local = np.zeros(n, dtype=bool)
    local[good] = res.local
    return type(res)(*cols, local, vectorised=res.vectorised)


def route_frames(jobs: Sequence[RouterJob], frames: Iterator[pd.DataFrame], full: bool = True, *,
                 indices: Sequence[int] | None = None, keep: Sequence[str] = (),
                 lists: frozenset[str] = frozenset()) -> Iterator[pd.DataFrame]:
    """mapInPandas body: every batch through every router (and its scenarios).

    Without ``full`` only the columns the summary counts leave the Python worker (less Arrow traffic),
    plus ``keep`` (answers already computed on the JVM). ``indices``: route only these routers.
    """
    for batch in frames:
        out = batch.copy() if full else batch[list(keep)].copy()
        for i, job in enumerate(jobs):
            if indices is not None and i not in indices:
                continue
            p = prefix(i)
            items, errors = _inputs(job.router, batch, lists)
            res = _route_good(job.router, items, errors)
            out[f"{p}status"] = res.status
            out[f"{p}target"] = res.target
            out[f"{p}local"] = res.local
            out[f"{p}null"] = res.key == NULL_KEY
            if full:
                out[f"{p}key_value"] = res.key_value
                out[f"{p}node_id"] = res.node_id
            for j, (_, variant) in enumerate(job.scenarios):
                w = _route_good(variant, items, errors)
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


_said: set[str] = set()


def jvm_ready(spark: SparkSession, engine: str, progress: Callable[[str], None]) -> bool:
    """Whether the Java UDFs can be used; ``engine="jvm"`` makes their absence an error."""
    if engine not in ENGINES:
        raise UsageError(f"--engine {engine!r}: use one of {', '.join(ENGINES)}")
    if engine == "pandas":
        return False
    from .jvm_udf import enable

    reason = enable(spark)
    if reason is None:
        return True
    if engine == "jvm":
        raise UsageError(f"--engine jvm: {reason}")
    if reason not in _said:
        _said.add(reason)
        progress(f"routing in Python (pandas UDFs): {reason}")
    return False


def plan(jobs: Sequence[RouterJob], columns: Sequence[str], jvm: bool) -> list[str]:
    """The engine of each router: ``jvm`` when it and all its what-if variants are covered."""
    from .sql_route import uncovered

    out = []
    for job in jobs:
        routers = [job.router, *(v for _, v in job.scenarios)]
        out.append("jvm" if jvm and all(uncovered(r, columns) is None for r in routers) else "pandas")
    return out


def _sql_type(name: str) -> str:
    return "int" if name.endswith("slot") else "boolean" if name.endswith(("_local", "_null")) else "string"


def _route(keys: DataFrame, jobs: Sequence[RouterJob], full: bool, engine: str,
           progress: Callable[[str], None], compact: bool) -> tuple[DataFrame, dict[str, list]]:
    """The answer columns of every router, and (``compact``) how to decode the JVM routers' slots."""
    from pyspark.sql import functions as F

    jvm = jvm_ready(keys.sparkSession, engine, progress)
    engines = plan(jobs, keys.columns, jvm)
    flag: list[tuple[str, str]] = []
    if BAD in keys.columns:  # rows that are not keys at all, whatever the router: counted apart
        keys = keys.withColumn(BAD_ROW, F.col(BAD).isNotNull())
        flag = [(BAD_ROW, "boolean")]
    job_list = [RouterJob(_without_cache(j.router), [(s, _without_cache(v)) for s, v in j.scenarios])
                for j in jobs]
    frame = keys
    inputs = output_fields(job_list, [c for c in keys.columns if c != BAD_ROW], full, []) if full else []
    inputs += flag
    fields: dict[int, list[tuple[str, str]]] = {}
    decoders: dict[str, list] = {}
    on_jvm = [i for i, e in enumerate(engines) if e == "jvm"]
    if on_jvm:
        from .sql_route import SqlRouting

        sql = SqlRouting(keys.columns)
        for i in on_jvm:
            before = set(sql.outputs)
            sql.add_router(prefix(i), job_list[i].router, [v for _, v in job_list[i].scenarios], full, compact)
            fields[i] = [(n, _sql_type(n)) for n in sql.outputs if n not in before]
        frame = sql.apply(frame)
        decoders = sql.decoders
    in_pandas = [i for i, e in enumerate(engines) if e == "pandas"]
    for i in in_pandas:
        fields[i] = job_fields(i, job_list[i], full)
    if in_pandas:
        from .executors import check_executors

        check_executors(keys.sparkSession)
        if ordered([jobs[i] for i in in_pandas]):
            frame = frame.coalesce(1)
        done = [n for i in on_jvm for n, _ in fields[i]] + [n for n, _ in flag]
        schema = ", ".join(f"`{n}` {t}" for n, t in inputs + [f for i in sorted(fields) for f in fields[i]])

        lists = list_columns(keys)

        def run(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
            return route_frames(job_list, frames, full, indices=in_pandas, keep=done, lists=lists)

        frame = frame.mapInPandas(run, schema)
    return frame.select(*[n for n, _ in inputs + [f for i in sorted(fields) for f in fields[i]]]), decoders


def assign(keys: DataFrame, jobs: Sequence[RouterJob], *, full: bool = True, engine: str = "auto",
           progress: Callable[[str], None] = lambda _msg: None) -> DataFrame:
    """The per-key assignments of every router (wide: one row per input key).

    ``full=False`` keeps only what the summary counts (no input columns, key values or node ids).
    ``engine``: auto, jvm or pandas (see the module docstring).
    """
    return _route(keys, jobs, full, engine, progress, compact=False)[0]


def count_answers(keys: DataFrame, jobs: Sequence[RouterJob], *, engine: str = "auto",
                  progress: Callable[[str], None] = lambda _msg: None) -> DataFrame:
    """One row per distinct answer combination: the summary's group columns and ``count``.

    JVM-routed routers are counted by their small int slots and decoded after the aggregation, so
    the per-key work never builds the answer strings.
    """
    from pyspark.sql import functions as F

    frame, decoders = _route(keys, jobs, False, engine, progress, compact=True)
    counted = frame.groupBy(*frame.columns).count()
    cols = [c for name in frame.columns for c in decoders.get(name, [F.col(name)])]
    return counted.select(*cols, "count")
