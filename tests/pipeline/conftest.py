"""One local[2] SparkSession for the whole pipeline suite (skipped without pyspark or Java)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark")
    pytest.importorskip("pyarrow")
    pytest.importorskip("pandas")
    from artemis_routing_cli.pipeline.session import java_available, start_session

    if not java_available():
        pytest.skip("Java is not installed")
    session = start_session("local[2]", {"spark.sql.shuffle.partitions": "2",
                                         "spark.default.parallelism": "2"})
    yield session
    session.stop()
