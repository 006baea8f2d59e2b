"""The figures of a plain text input without a Spark SQL row per answer (``LineCounts.java``).

For the commonest run — one key per line, routers that read the line as a CLIENT_ID or USER_NAME key
with no key-filter and no local-target-filter, only the figures asked for — each line is read once as
the bytes Spark's text reader holds, checked for UTF-8 and hashed in one pass, and every router's slot
counted on the executors: no String, no UDF call and no aggregation row per key. The answers are the
JVM path's (:mod:`.sql_route`, whose :func:`~.sql_route.policy_slots` gives the slots and
:func:`~.sql_route.answer_of` decodes them); tests hold both equal to the engine's, invalid UTF-8,
``NULL``, internal client ids and what-if variants included.

Any other input or router goes the general way (:func:`.assign.count_answers`), as does a Spark
Connect session (the JVM is not reachable from the client).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..javastr import java_is_blank
from ..routing.batch import vectorisable
from ..routing.router import Router
from .assign import BAD_ROW, RouterJob, prefix
from .sql_route import answer_of, policy_slots
from .summary import Groups

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

RING = -(2**31)  # LineCounts.RING: the slot comes from the ring
KEY_TYPES = ("CLIENT_ID", "USER_NAME")
CODE_LIMIT = 2**62  # combinations are coded in one Java long


def uncovered(router: Router) -> str | None:
    """None when LineCounts answers for ``router`` on a text input, else why not."""
    if not vectorisable(router):
        return "its answers depend on the order of keys"
    if router.key_type not in KEY_TYPES:
        return f"{router.key_type} keys are not the line itself"
    if router.key_filter is not None and not java_is_blank(router.key_filter):
        return "it has a key-filter"
    if router.local_target_filter is not None:
        return "it has a local-target-filter"
    return None


def _variants(jobs: Sequence[RouterJob]) -> list[tuple[bool, Router]]:
    """Every router in code order: (is a main router, router)."""
    return [(main, r) for job in jobs for main, r in [(True, job.router), *((False, v) for _, v in job.scenarios)]]


def spec(jobs: Sequence[RouterJob]) -> tuple[list[int], list[tuple[bool, int, list]]] | None:
    """The int[] LineCounts reads, and per router (main, radix, picks) to decode the counts; None when
    a router is not covered or the combinations do not fit in a long."""
    out: list[int] = []
    layout: list[tuple[bool, int, list]] = []
    size = 2
    variants = _variants(jobs)
    for main, router in variants:
        if uncovered(router) is not None:
            return None
        picks, fixed, hashes = policy_slots(router)
        radix = len(picks) + 3  # slots -3..len(picks)-1
        size *= radix * (2 if main else 1)
        if size >= CODE_LIMIT:
            return None
        out += [int(main), int(router.key_type == "CLIENT_ID"), radix, RING if fixed is None else fixed,
                len(hashes), *hashes]
        layout.append((main, radix, picks))
    return [len(variants), *out], layout


def decode(code: int, jobs: Sequence[RouterJob], layout: Sequence[tuple[bool, int, list]]) -> dict[str, object]:
    """The group columns (summary.group_columns, with the bad-row flag) of one combination."""
    values: dict[str, object] = {}
    parts: list[tuple[int, int | None]] = []
    for main, radix, _ in reversed(layout):
        null = None
        if main:
            code, null = divmod(code, 2)
        code, slot = divmod(code, radix)
        parts.append((slot - 3, null))
    parts.reverse()
    values[BAD_ROW] = bool(code)
    at = 0
    for i, job in enumerate(jobs):
        p = prefix(i)
        slot, null = parts[at]
        status, target, local = answer_of(slot, layout[at][2])
        values.update({f"{p}status": status, f"{p}target": target, f"{p}local": local, f"{p}null": bool(null)})
        at += 1
        for j in range(len(job.scenarios)):
            status, target, _ = answer_of(parts[at][0], layout[at][2])
            values.update({f"{p}w{j}_status": status, f"{p}w{j}_target": target})
            at += 1
    return values


def count_lines(spark: SparkSession, path: str, jobs: Sequence[RouterJob]) -> Groups | None:
    """The groups of every line of the text input ``path``, or None when this way does not apply
    (a router not covered, a Connect session, the Java classes not loaded: see
    :func:`.jvm_udf.enable_classes`)."""
    from .connect import is_remote
    from .jvm_udf import enable_classes

    made = spec(jobs)
    if made is None or is_remote(spark) or enable_classes(spark) is not None:
        return None
    ints, layout = made
    lines = spark.read.option("lineSep", "\n").option("encoding", "UTF-8").text(path)
    if lines.columns != ["value"]:  # partition columns from the directory names: the general way
        return None
    sc = spark.sparkContext
    jvm = sc._jvm  # type: ignore[attr-defined]
    counts = jvm.arouter.udf.LineCounts
    ints_java = _java_array(sc, jvm.int, ints)
    files = lines.inputFiles()
    pairs = counts.countFiles(sc._jsc, _java_array(sc, jvm.String, files), ints_java) if files else None
    if pairs is None:  # a path Hadoop would glob or hide: Spark's own text rows
        pairs = counts.count(lines._jdf, ints_java)
    pairs = list(pairs)
    return [(decode(pairs[i], jobs, layout), int(pairs[i + 1])) for i in range(0, len(pairs), 2)]


def _java_array(sc: object, kind: object, values: Sequence[object]) -> object:
    array = sc._gateway.new_array(kind, len(values))  # type: ignore[attr-defined]
    for i, v in enumerate(values):
        array[i] = v
    return array
