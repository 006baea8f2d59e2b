"""Key populations as Spark DataFrames: text (one key per line), CSV, JSON lines or Parquet.

Columns: a single ``key`` column (the value of each router's key type), or a column per key type
(client_id, user_name, source_ip, sni_host, roles), as ``arouter simulate --keys-file`` reads them.
Every row gets ``_row``, increasing in file order, so per-key results can be put back in order.
Any URI Spark reads works (file:, hdfs:, s3a:, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UsageError
from ..routing.keys import RECORD_COLUMNS

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

FORMATS = ("auto", "text", "csv", "json", "parquet")
ROW = "_row"
# Column metadata of a JSON list column (roles), carried as its JSON text
LIST_MARK = "arouter_json_list"


def list_columns(df: DataFrame) -> frozenset[str]:
    """The columns that hold a JSON list's text (see :data:`LIST_MARK`)."""
    return frozenset(f.name for f in df.schema.fields if f.metadata.get(LIST_MARK))


def detect_format(path: str) -> str:
    lower = path.lower().rstrip("/")
    if lower.endswith(".csv"):
        return "csv"
    if lower.endswith((".jsonl", ".ndjson", ".json")):
        return "json"
    if lower.endswith((".parquet", ".pq")):
        return "parquet"
    return "text"


def read_keys(spark: SparkSession, path: str, fmt: str = "auto") -> DataFrame:
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType

    if fmt not in FORMATS:
        raise UsageError(f"--keys-format {fmt!r}: use one of {', '.join(FORMATS)}")
    kind = detect_format(path) if fmt == "auto" else fmt
    reader = spark.read
    try:
        if kind == "text":
            # Only "\n" ends a key, as in simulate --keys-file: a "\r" stays part of the key.
            df = reader.option("lineSep", "\n").option("encoding", "UTF-8").text(path)
            df = df.withColumnRenamed("value", "key")
        elif kind == "csv":
            # Empty fields are empty strings (as Python's csv reads them), never null.
            df = (reader.option("header", "true").option("inferSchema", "false").option("multiLine", "true")
                  .option("escape", '"').csv(path))
        elif kind == "json":
            df = reader.json(path)
        else:
            df = reader.parquet(path)
    except Exception as exc:  # AnalysisException: path does not exist, unreadable data
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UsageError(f"cannot read keys: {first}", file=path) from None
    names = [f.name for f in df.schema.fields]
    unknown = [c for c in names if c != "key" and c not in RECORD_COLUMNS and not c.startswith("_corrupt")]
    if unknown:
        raise UsageError(f"unknown column(s) {', '.join(unknown)}; use key or {', '.join(RECORD_COLUMNS)}",
                         file=path)
    if not names or (("key" in names) and len(names) > 1):
        raise UsageError("give either a single key column or a column per key type", file=path)
    cols = []
    for f in df.schema.fields:
        if f.name.startswith("_corrupt"):
            raise UsageError("some lines are not valid JSON objects", file=path)
        if isinstance(f.dataType, ArrayType):
            if f.name not in ("roles", "key"):
                raise UsageError(f"{f.name}: only roles (or a ROLE_NAME key) may be a list", file=path)
            # one role per item, taken as given (a name may hold a comma), as simulate reads a JSON array:
            # carried as its JSON text, marked so that the router reads it back as a list
            cols.append(F.to_json(F.col(f.name).cast("array<string>")).alias(f.name, metadata={LIST_MARK: True}))
        elif kind == "csv":
            # An empty CSV field is the empty string (Python's csv), which Spark reads as null.
            cols.append(F.coalesce(F.col(f.name).cast("string"), F.lit("")).alias(f.name))
        else:
            cols.append(F.col(f.name).cast("string").alias(f.name))
    return df.select(*cols).withColumn(ROW, F.monotonically_increasing_id())
