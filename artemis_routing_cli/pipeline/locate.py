"""Where an input row is: its file and its line (text) or record number (CSV, JSON lines, Parquet,
ORC), found from Spark's file metadata rather than an id nobody can look up.

Spark reads a file in splits (blocks); rows of one block keep their order and get consecutive ids
(``monotonically_increasing_id`` within a partition). One small aggregation — per file and block:
its rows and its first id — gives each block's first line, and a row's line is that plus its offset
in the block. Records: CSV records after the header, JSON lines' non-blank lines, Parquet/ORC rows.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .inputs import BLOCK, FILE, ROW

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@dataclass(frozen=True)
class Blocks:
    """Per (file, block start): the first row id of the block and the line/record number of that row."""

    unit: str  # "line" or "record"
    first: dict[tuple[str, int], tuple[int, int]]

    def where(self, file: str, block: int, row: int) -> int | None:
        found = self.first.get((file, block))
        if found is None:
            return None
        first_row, first_number = found
        return first_number + (row - first_row)

    def table(self, spark) -> DataFrame:  # noqa: ANN001
        """The blocks as a small frame to join: file, block, first row id, first number."""
        rows = [(f, b, r, n) for (f, b), (r, n) in self.first.items()]
        return spark.createDataFrame(rows, f"`{FILE}` string, `{BLOCK}` bigint, `_first_row` bigint, `_first_n` bigint")


def blocks(keys: DataFrame, kind: str) -> Blocks:
    from pyspark.sql import functions as F

    counted = keys.groupBy(FILE, BLOCK).agg(F.count(F.lit(1)).alias("n"), F.min(ROW).alias("first")).collect()
    per_file: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    for r in counted:
        per_file[r[FILE]].append((int(r[BLOCK]), int(r["n"]), int(r["first"])))
    first: dict[tuple[str, int], tuple[int, int]] = {}
    for file, parts in per_file.items():
        number = 1
        for block, n, first_row in sorted(parts):
            first[(file, block)] = (first_row, number)
            number += n
    return Blocks("line" if kind == "text" else "record", first)


def with_position(frame: DataFrame, found: Blocks) -> DataFrame:
    """``frame`` (with _file, _block, _row) plus ``file`` and ``line``/``record`` columns."""
    from pyspark.sql import functions as F

    table = F.broadcast(found.table(frame.sparkSession))
    joined = frame.join(table, [FILE, BLOCK], "left")
    return joined.withColumn("file", F.regexp_replace(F.col(FILE), "^file:(//)?", "")).withColumn(
        found.unit, (F.col("_first_n") + F.col(ROW) - F.col("_first_row")).cast("bigint"))


def shown_path(uri: str) -> str:
    """A local file's path as the user wrote it (Spark says file:/...)."""
    if uri.startswith("file://"):
        return uri[7:]
    if uri.startswith("file:"):
        return uri[5:]
    return uri


def at_or_before(file: str, block: int, row: int):  # noqa: ANN201 (a pyspark Column)
    """A condition: the row is at or before (file, block, row) in input order (files by name, then
    blocks by offset, then rows)."""
    from pyspark.sql import functions as F

    f, b, r = F.col(FILE), F.col(BLOCK), F.col(ROW)
    return (f < F.lit(file)) | ((f == F.lit(file)) & ((b < F.lit(block)) | ((b == F.lit(block)) & (r <= F.lit(row)))))
