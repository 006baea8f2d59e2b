"""analyze reads a keys file as simulate --keys-file does (cli/keys_file.py, real local Spark): a byte
order mark at the start and the CR of a CR LF are not part of the keys (--keep-cr keeps the CR), and a CSV
column not named like a key column is not read."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from artemis_routing_cli.cli.keys_file import Reading, load_keys
from artemis_routing_cli.pipeline.inputs import read_keys
from artemis_routing_cli.pipeline.preflight import inspect

pytestmark = pytest.mark.spark


def _keys(spark, path: Path, keep_cr: bool = False) -> list[str]:  # noqa: ANN001
    inp = dataclasses.replace(inspect(str(path)), keep_cr=keep_cr)
    return [r["key"] for r in read_keys(spark, str(path), inp=inp).orderBy("_row").collect()]


def test_text_keys_as_simulate_reads_them(spark, tmp_path: Path) -> None:  # noqa: ANN001
    path = tmp_path / "keys.txt"
    path.write_bytes(b"\xef\xbb\xbf10.0.0.1\r\nFOO1\r\nlone\rcr\nx\r\r\n\r\nlast\r")
    for keep_cr in (False, True):
        assert _keys(spark, path, keep_cr) == load_keys(str(path), Reading(keep_cr=keep_cr)).keys(), keep_cr
    assert _keys(spark, path)[:2] == ["10.0.0.1", "FOO1"]


def test_csv_extra_column_not_read(spark, tmp_path: Path) -> None:  # noqa: ANN001
    path = tmp_path / "keys.csv"
    path.write_text("client_id,region\nFOO1,eu\nBAR2,us\n", encoding="utf-8")
    df = read_keys(spark, str(path), inp=inspect(str(path)))
    assert "region" not in df.columns
    assert [r["client_id"] for r in df.orderBy("_row").collect()] == ["FOO1", "BAR2"]
