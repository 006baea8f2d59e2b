"""``arouter fleet --keys PATH --spark`` counts the same homes as the local path (analyze's pipeline,
local Spark), on the shards and on a pool followed one hop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import arouter

DATA = Path(__file__).parent / "data"

pytest.importorskip("pyspark")


@pytest.mark.parametrize(("cr", "version"), [("shard-cr.yaml", "2.41"), ("pool-local-cr.yaml", "2.41"),
                                             ("same-filter-cr.yaml", "2.41"), ("shard-cr.yaml", "2.22")])
def test_spark_counts_what_the_local_path_counts(tmp_path: Path, cr: str, version: str) -> None:
    keys = tmp_path / "keys.txt"
    # the local path's keys, but a router's own client ids (Spark's groups cannot tell them apart)
    keys.write_text("".join(line + "\n" for line in (DATA / "keys.txt").read_text().splitlines()
                            if not line.startswith("$.artemis.internal.")), encoding="utf-8")
    # 2.22: the sign rule before 2.23 (negative values: no home), on the Spark SQL twin too
    local = arouter("fleet", "--cr", str(DATA / cr), "--keys", str(keys), "--broker-version", version, "-f", "json")
    spark = arouter("fleet", "--cr", str(DATA / cr), "--keys", str(keys), "--broker-version", version, "--spark",
                    "--engine", "jvm", "-f", "json")
    assert spark.code == local.code, spark.err
    a, b = json.loads(local.out)["routers"][0]["keys"], json.loads(spark.out)["routers"][0]["keys"]
    for doc in (a, b):
        doc.pop("source")
        doc.pop("samples")
    assert a == b and a["count"] > 0


def test_a_change_on_spark_is_the_local_change(tmp_path: Path) -> None:
    keys = tmp_path / "keys.txt"
    keys.write_text("".join(f"client-{i}\n" for i in range(3000)), encoding="utf-8")
    args = ["fleet", "--cr", str(DATA / "shard-cr.yaml"), "--new-cr", str(DATA / "shard4-cr.yaml"), "--keys", str(keys),
            "-f", "json"]
    local, spark = arouter(*args), arouter(*args, "--spark")
    assert spark.code == local.code == 0, spark.err
    a, b = json.loads(local.out)["routers"][0]["change"], json.loads(spark.out)["routers"][0]["change"]
    assert a == b and a["unit"] == "keys" and a["total"] == 3000 and a["moved"] > 0
