"""analyze's input options beyond ``--keys`` (pipeline/table_input.py does the work)."""

from __future__ import annotations

import typer

KEYS_TABLE = typer.Option(None, "--keys-table", metavar="DB.TABLE",
                          help="Keys from a table of the Spark catalog instead of --keys. A Hive metastore: "
                               "--conf spark.sql.catalogImplementation=hive.")
WHERE = typer.Option(None, "--where", metavar="SQL",
                     help="Only the rows this Spark SQL condition keeps, over the input's own columns "
                          "(e.g. \"region = 'eu'\"); line and record numbers stay the input's.")
ID_COLUMN = typer.Option(None, "--id-column", metavar="NAME",
                         help="The input's own id column: shown as row in --output and in the bad-row "
                              "samples, instead of file and line/record.")
MAX_ERRORS = typer.Option(None, "--max-errors", metavar="N", min=0,
                          help="Stop once more than N rows are bad (exit 1; the figures cover the rows read up "
                               "to there). Default: no limit.")
