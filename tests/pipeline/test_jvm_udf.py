"""Our Java UDFs are the engine's FNV-1a and java.util.regex calls; without javac, Python routes."""

from __future__ import annotations

import pytest

from artemis_routing_cli.errors import UsageError
from artemis_routing_cli.jregex.javaregex import compile_java
from artemis_routing_cli.routing.fnv import fnv1a32

pytestmark = pytest.mark.spark

TEXTS = ["", "a", "test", "FOO1", "NULL", "h\u00e9llo", "\U0001F600x", "x\U0001F600\U0001F4A9", "\u4e2d\u6587-7",
         "a\r\nb", "a\u0085", "line\n", "\u0130stanbul", "e\u0301", "aaa-bbb", "$.artemis.internal.router.client.1",
         "I5", "i9x", "caf\u00c9"]
PATTERNS = ["a*", "[^-]+", "(?x) FOO \\d+ # comment", "^\\p{L}+", "\\p{IsHan}+", "[\\x{1F600}-\\x{1F64F}]+",
            "(?i)caf\u00e9", "(?iu)caf\u00e9", "a.b", "(?s)a.b", "^$", "(?m)^b$", ".$", "\\bx", "\\w+",
            "e\\p{M}", "[0-3]", "(?i)i\\d", "NULL|FOO.*"]

HOSTS = ["a.example", "A.Example", "a_b.example", "host.", ".", "x..y", "caf\u00e9.example", "stra\u00dfe.de",
         "\U0001F600.example", "-a.example", "a-.example", "a b", "xn--caf-dma.example", "xn--caf\u00e9.x",
         "\uff21\uff22.example", "a\u3002b", "x" * 63 + ".example", "x" * 64 + ".example", "\u0221.example",
         "\u05d0\u05d1", "\u05d0a", "1.2.3.4", "localhost", "a\u00ad.example"]


def test_udfs_equal_the_engine(spark) -> None:
    from pyspark.sql import functions as F

    from artemis_routing_cli.pipeline.jvm_udf import FIND, FNV, MATCHES, enable

    assert enable(spark) is None
    pairs = spark.createDataFrame([(t, p) for t in TEXTS for p in PATTERNS], "t string, p string")
    rows = pairs.select("t", "p", F.call_function(FNV, "t").alias("h"), F.call_function(FIND, "t", "p").alias("f"),
                        F.call_function(MATCHES, "t", "p").alias("m")).collect()
    got = sorted((r["t"], r["p"], r["h"], r["f"], r["m"]) for r in rows)
    want = sorted((t, p, fnv1a32(t), compile_java(p).find(t), compile_java(p).matches(t))
                  for t in TEXTS for p in PATTERNS)
    assert got == want
    assert {r[3] for r in got} >= {"", None}  # empty matches and no match both occur
    # new SNIHostName on the JVM and the engine's Java client model agree on which names can be sent
    from artemis_routing_cli.pipeline.jvm_udf import SNI_SENDABLE, sni_sendable

    hosts = spark.createDataFrame([(h,) for h in HOSTS], "h string")
    sent = {r["h"]: r["ok"] for r in hosts.select("h", F.call_function(SNI_SENDABLE, "h").alias("ok")).collect()}
    assert sent == {h: sni_sendable(h) for h in HOSTS}
    assert set(sent.values()) == {True, False}


def test_without_javac_auto_routes_in_python_and_jvm_refuses(spark, tmp_path, monkeypatch) -> None:
    from artemis_routing_cli.pipeline.assign import assign
    from artemis_routing_cli.pipeline.jvm_udf import enable
    from artemis_routing_cli.pipeline.run import build_jobs
    from artemis_routing_cli.routing.batch import route_batch
    from tests.conftest import broker_xml
    from tests.pipeline.test_pipeline import CONNECTORS, ROUTERS, engine_state

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no jar built yet
    monkeypatch.setenv("PATH", str(tmp_path))  # and no javac to build one
    monkeypatch.delenv("JAVA_HOME", raising=False)
    assert "javac not found" in (enable(spark) or "")
    from artemis_routing_cli.config import load_text
    from artemis_routing_cli.routing.selection import select_named

    cfg = load_text(broker_xml(CONNECTORS + ROUTERS))
    router = select_named(cfg, engine_state(), ["hash-filtered"], None)[0]  # node ids of every router
    keys = ["FOO1", "a-b", "", "\U0001F600"]
    frame = spark.createDataFrame([(k, i) for i, k in enumerate(keys)], "key string, _row bigint")
    said: list[str] = []
    rows = assign(frame, build_jobs([router], []), progress=said.append).orderBy("_row").collect()
    assert said == ["routing in Python (pandas UDFs): javac not found (a JDK, not only a JRE, builds the Java UDFs)"]
    expected = route_batch(router, keys)
    assert [r["r0_target"] for r in rows] == list(expected.target)
    with pytest.raises(UsageError, match="--engine jvm: javac not found"):
        assign(frame, build_jobs([router], []), engine="jvm")


def test_lone_surrogates_reach_both_engines_alike(spark, tmp_path) -> None:
    """Spark stores strings as UTF-8: a JSON ``\\ud800`` arrives as ``?`` on the JVM and in pandas alike."""
    import json

    from artemis_routing_cli.config import load_text
    from artemis_routing_cli.pipeline.assign import assign
    from artemis_routing_cli.pipeline.inputs import read_keys
    from artemis_routing_cli.pipeline.run import build_jobs
    from artemis_routing_cli.routing.router import Router
    from artemis_routing_cli.routing.targets import TargetState
    from tests.conftest import broker_xml
    from tests.pipeline.test_pipeline import CONNECTORS, STATIC

    path = tmp_path / "k.jsonl"
    ids = ["a\ud800b", "\udc00", "\ud83d\ude00", "x\udbff"]
    path.write_text("".join(json.dumps({"client_id": k}) + "\n" for k in ids), encoding="ascii")
    cfg = load_text(broker_xml(CONNECTORS + '<connection-routers><connection-router name="r"><key-type>CLIENT_ID'
                               '</key-type><key-filter>.+</key-filter><policy name="CONSISTENT_HASH"/>'
                               f"<pool>{STATIC}</pool></connection-router></connection-routers>"))
    router = Router.from_config(cfg, cfg.connection_routers[0], TargetState())
    jobs = build_jobs([router], [])
    keys = read_keys(spark, str(path))
    runs = [assign(keys, jobs, engine=e).orderBy("_row").collect() for e in ("jvm", "pandas")]
    assert [r.asDict() for r in runs[0]] == [r.asDict() for r in runs[1]]
    assert [r["r0_key_value"] for r in runs[0]] == ["a?b", "?", "\U0001F600", "x?"]
