"""analyze's input options beyond a path: a catalog table (``--keys-table``), a row filter
(``--where``), the input's own row id (``--id-column``) and a bad-row limit (``--max-errors``).

What can be checked before Spark starts is checked here (the table name's form, that exactly one
input is given, the id column of a local file); what needs Spark (the table exists, ``--where``
parses and names columns the input has) is checked by :func:`read_table` and :func:`apply_where`
before any row is read, each failure one plain sentence (exit 2).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import UsageError
from .preflight import KeysInput, inspect

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

TABLE = "table"  # KeysInput.format of a catalog table
# A table name: up to three dot-separated parts (catalog.db.table), each plain or in backquotes.
_PART = r"(?:[A-Za-z0-9_]+|`(?:[^`]|``)+`)"
_TABLE_NAME = re.compile(rf"^{_PART}(?:\.{_PART}){{0,2}}$")


def check_table_name(name: str) -> str:
    if not _TABLE_NAME.match(name):
        raise UsageError(f"--keys-table {name!r}: expected a table name such as db.table (letters, digits and _, "
                         "or a part in `backquotes`)")
    return name


def key_input(keys: str | None, table: str | None, fmt: str, mapping: Mapping[str, str], where: str | None,
              id_column: str | None) -> KeysInput:
    """The key input as given by ``--keys`` or ``--keys-table`` and the options that shape it."""
    if (keys is None) == (table is None):
        raise UsageError("give the keys with --keys PATH or --keys-table db.table (one of them)")
    if where is not None and not where.strip():
        raise UsageError("--where is empty: give a Spark SQL condition, e.g. \"region = 'eu'\"")
    if id_column is not None and not id_column:
        raise UsageError("--id-column is empty: name the input's id column")
    if table is not None:
        if fmt != "auto":
            raise UsageError(f"--keys-format {fmt} is for files: a table has its own format")
        check_table_name(table)
        inp = KeysInput(table, TABLE, f"the table {table} (Spark catalog)", None, dict(mapping))
    else:
        assert keys is not None
        inp = inspect(keys, fmt, mapping, id_column)
        if id_column is not None and inp.format == "text":
            raise UsageError("--id-column needs an input with columns (CSV, JSON lines, Parquet, ORC or a table); "
                             "a text file holds one key per line", file=keys)
        if id_column is not None and inp.columns is not None and id_column not in inp.columns:
            raise UsageError(f"--id-column {id_column!r}: the input has no such column "
                             f"(columns: {', '.join(inp.columns)})", file=keys)
    return replace(inp, where=where, id_column=id_column)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    return re.sub(r"^\[[A-Z_.]+\]\s*", "", line).strip()  # Spark's [ERROR_CLASS] prefix


def read_table(spark: SparkSession, name: str) -> DataFrame:
    try:
        return spark.table(name)
    except Exception as exc:  # AnalysisException (no such table), ParseException
        if "TABLE_OR_VIEW_NOT_FOUND" in str(exc) or "not found" in str(exc).lower():
            impl = spark.conf.get("spark.sql.catalogImplementation", "in-memory")
            raise UsageError(f"--keys-table {name!r}: no such table in the Spark catalog ({impl}; a Hive metastore "
                             "needs --conf spark.sql.catalogImplementation=hive)") from None
        raise UsageError(f"--keys-table {name!r}: {_first_line(exc)}") from None


def apply_where(frame: DataFrame, where: str) -> DataFrame:
    """``frame`` filtered by the Spark SQL condition ``where``; a UsageError when it does not parse or
    does not resolve against the input's columns (Spark checks both without reading a row)."""
    from pyspark.sql import functions as F

    try:
        return frame.filter(F.expr(where))
    except Exception as exc:  # ParseException, AnalysisException
        raise UsageError(f"--where {where!r}: {_first_line(exc)}") from None

