"""Key populations as Spark DataFrames: text (one key per line), CSV, JSON lines, Parquet or ORC.

Columns: a single ``key`` column (the value of each router's key type), or a column per key type
(client_id, user_name, source_ip, sni_host, roles), as ``arouter simulate --keys-file`` reads them;
or any columns, with ``--key-column KEYTYPE=COLUMN`` naming the ones that hold keys (the others are
not read). The format is decided before Spark starts (:mod:`.preflight`).
Every row gets ``_row``, increasing in file order, so per-key results can be put back in order.
Any URI Spark reads works (file:, hdfs:, s3a:, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UsageError
from ..routing.keys import RECORD_COLUMNS
from .preflight import FORMATS, KeysInput, detect, key_columns_problem

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["BAD", "BLOCK", "FILE", "FORMATS", "ID", "LIST_MARK", "META_COLUMNS", "ROW", "list_columns", "read_keys",
           "read_keys_and_positions"]
ROW = "_row"  # increasing in file order within each block of a file (monotonically_increasing_id)
FILE = "_file"  # the file a row came from
BLOCK = "_block"  # the byte offset of the file split it was read in
BAD = "_bad"  # why the row is not a key (null for a key): not a JSON object, invalid UTF-8
ID = "_id"  # the input's own row id (--id-column), as text
META_COLUMNS = {ROW: "bigint", FILE: "string", BLOCK: "bigint", BAD: "string", ID: "string"}
# Column metadata of a JSON list column (roles), carried as its JSON text
LIST_MARK = "arouter_json_list"


def list_columns(df: DataFrame) -> frozenset[str]:
    """The columns that hold a JSON list's text (see :data:`LIST_MARK`)."""
    return frozenset(f.name for f in df.schema.fields if f.metadata.get(LIST_MARK))


def read_keys(spark: SparkSession, path: str, fmt: str = "auto", inp: KeysInput | None = None) -> DataFrame:
    return read_keys_and_positions(spark, path, fmt, inp)[0]


def read_keys_and_positions(spark: SparkSession, path: str, fmt: str = "auto",
                            inp: KeysInput | None = None) -> tuple[DataFrame, DataFrame]:
    """The keys (after ``--where``), and every input row's _file, _block and _row (before it): line and
    record numbers count the rows of the input, not those the filter kept (see locate.py)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType

    from .table_input import TABLE, apply_where, read_table

    kind = inp.format if inp is not None else detect(path, fmt)[0]
    mapping = dict(inp.mapping) if inp is not None else {}
    id_column = inp.id_column if inp is not None else None
    reader = spark.read
    try:
        if kind == TABLE:
            df = read_table(spark, path)
        elif kind == "text":
            # Read as simulate --keys-file reads a text file (cli/keys_file.py): "\n" ends a key, a "\r"
            # ending a line is not part of it unless --keep-cr (taken off below), and a byte order mark
            # at the start of a file is dropped by Spark's (Hadoop's) line reader itself.
            df = reader.option("lineSep", "\n").option("encoding", "UTF-8").text(path)
            df = df.withColumnRenamed("value", "key")
        elif kind == "csv":
            # Empty fields are empty strings (as Python's csv reads them), never null.
            df = (reader.option("header", "true").option("inferSchema", "false").option("multiLine", "true")
                  .option("escape", '"').csv(path))
        elif kind == "json":
            df = reader.json(path)
        elif kind == "orc":
            df = reader.orc(path)
        else:
            df = reader.parquet(path)
    except UsageError:
        raise
    except Exception as exc:  # AnalysisException: path does not exist, unreadable data
        from .session import plain_spark_error

        first = plain_spark_error(str(exc)) or (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UsageError(f"cannot read keys: {first}", file=path) from None
    try:
        df = df.select("*", F.col("_metadata.file_path").alias(FILE),
                       F.col("_metadata.file_block_start").alias(BLOCK))
    except Exception:  # a table that is not files Spark reads itself (a view, a Hive SerDe table): by partition
        df = df.select("*", F.lit(path).alias(FILE), F.spark_partition_id().cast("bigint").alias(BLOCK))
    if kind == "text" and (inp is None or not inp.keep_cr):  # the CR of a CR LF, on the line's bytes
        df = df.withColumn("key", F.when(F.expr("substring(cast(key AS binary), -1, 1) = X'0D'"),
                                         F.expr("substring(cast(key AS binary), 1, octet_length(key) - 1)")
                                         .cast("string")).otherwise(F.col("key")))
    # The row id comes before --where: a filtered input keeps the line and record numbers of the file.
    df = df.withColumn(ROW, F.monotonically_increasing_id())
    positions = df.select(FILE, BLOCK, ROW)
    if id_column is not None:
        if id_column not in df.columns:
            raise UsageError(f"--id-column {id_column!r}: the input has no such column "
                             f"(columns: {', '.join(c for c in df.columns if c not in META_COLUMNS)})", file=path)
        df = df.withColumn(ID, F.col(f"`{id_column}`").cast("string"))
    if inp is not None and inp.where is not None:
        df = apply_where(df, inp.where)  # over the input's own columns
    if id_column is not None and id_column != "key" and id_column not in RECORD_COLUMNS \
            and id_column not in mapping.values():
        df = df.drop(id_column)
    carried = [c for c in (FILE, BLOCK, ID, ROW) if c in df.columns]
    if mapping:
        missing = [c for c in mapping.values() if c not in df.columns]
        if missing:
            raise UsageError(f"--key-column names {', '.join(repr(c) for c in missing)}, which the input does not "
                             f"have (columns: {', '.join(c for c in df.columns if c not in META_COLUMNS)})",
                             file=path)
        corrupt = [c for c in df.columns if c.startswith("_corrupt")]
        df = df.select(*[F.col(f"`{col}`").alias(record) for record, col in mapping.items()], *corrupt, *carried)
    names = [f.name for f in df.schema.fields if f.name not in carried]
    # columns not named like key columns are not read (preflight said so)
    unknown = [c for c in names if c != "key" and c not in RECORD_COLUMNS and not c.startswith("_corrupt")]
    names = [c for c in names if not c.startswith("_corrupt") and c not in unknown]
    problem = key_columns_problem(names + unknown)
    if problem is not None:
        raise UsageError(problem, file=path)
    df = df.drop(*unknown)
    cols = []
    bad = F.lit(None).cast("string")
    for f in df.schema.fields:
        if f.name in carried:
            continue
        if f.name.startswith("_corrupt"):
            bad = F.when(F.col(f.name).isNotNull(), F.lit("not a JSON object")).otherwise(bad)
            continue
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
    if kind == "text":
        # Spark's text reader keeps the bytes as they are: a line that is not UTF-8 is not a key
        # (simulate refuses such a file); it is a bad row, shown with U+FFFD for the bad bytes.
        valid = F.expr("is_valid_utf8(key)")
        bad = F.when(~valid, F.lit("invalid UTF-8")).otherwise(bad)
        cols = [F.when(valid, F.col("key")).otherwise(F.expr("make_valid_utf8(key)")).alias("key")]
    return df.select(*cols, *[c for c in carried if c != ROW], bad.alias(BAD), ROW), positions
