"""LineCounts (real local Spark): the figures of a plain text input counted on the executors without a
Spark SQL row per key equal the engine's answers line by line, and the general JVM path's counts, for
every router shape it takes: a consistent-hash ring (with the sample's local target), FIRST_ELEMENT,
no policy, CONSISTENT_HASH_MODULO, USER_NAME keys, what-if variants; lines that are not UTF-8,
``NULL``, internal client ids, empty lines and a ``\\r`` before the newline; files cut into many
splits; both ways of reading (Hadoop's line reader on the files, and Spark's text rows)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from artemis_routing_cli.routing.fnv import fnv1a32

pytestmark = pytest.mark.spark

CONNECTORS = {f"b{i}": f"{i:08x}-1111-11ee-8c99-0242ac12000{i}" for i in range(1, 5)}
INTERNAL = "$.artemis.internal.router.client."
PIECES = ["a", "Z", "0", "-", "\u00e9", "\u4e2d", "\U0001F600", "client", "\u0130", " ", "\t"]
# Byte strings that are not UTF-8: a lone continuation, overlongs, surrogates, past U+10FFFF,
# cut-off sequences, bytes never used in UTF-8
NOT_UTF8 = [b"\x80", b"a\xbfb", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xed\xa0\x80",
            b"\xed\xbf\xbf", b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80",
            b"\xff", b"\xfe", b"\xe2\x82", b"x\xf0\x9f\x98", b"\xc3", b"\xc3(", b"\xe2(\xa1", b"\xf8\x88\x80\x80\x80"]
# Edge cases that are UTF-8: the last code point of each length, U+10FFFF, the first after the surrogates
UTF8_EDGES = ["\x7f", "\x80", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uffff", "\U00010000", "\U0010ffff"]


def _config() -> str:
    conns = "".join(f'<connector name="{c}">tcp://{c}:61616</connector>' for c in CONNECTORS)
    refs = "".join(f"<connector-ref>{c}</connector-ref>" for c in CONNECTORS)
    pool = f"<pool><static-connectors>{refs}</static-connectors></pool>"
    local_pool = f"<pool><local-target-enabled>true</local-target-enabled><static-connectors>{refs}" \
                 "</static-connectors></pool>"
    routers = [
        ("ring", "CLIENT_ID", '<policy name="CONSISTENT_HASH"/>', pool),
        ("ring-local", "CLIENT_ID", '<policy name="CONSISTENT_HASH"/>', local_pool),
        ("users", "USER_NAME", '<policy name="CONSISTENT_HASH"/>', pool),
        ("first", "CLIENT_ID", '<policy name="FIRST_ELEMENT"/>', pool),
        ("no-policy", "CLIENT_ID", "", ""),
        ("modulo", "CLIENT_ID", '<policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="3"/>'
         "</policy>", pool),
    ]
    body = "".join(f'<connection-router name="{n}"><key-type>{k}</key-type>{p}{pl}</connection-router>'
                   for n, k, p, pl in routers)
    return (f'<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><connectors>{conns}</connectors>'
            f"<connection-routers>{body}</connection-routers></core></configuration>")


def _routers() -> list:
    from artemis_routing_cli.config import load_text
    from artemis_routing_cli.routing.router import Router
    from artemis_routing_cli.routing.targets import TargetState

    cfg = load_text(_config())
    state = TargetState(node_ids=CONNECTORS)
    return [Router.from_config(cfg, rc, state) for rc in cfg.connection_routers]


def _lines(seed: int, n: int) -> list[bytes]:
    rng = random.Random(seed)
    out: list[bytes] = [b"NULL", b"", b"x\r", INTERNAL.encode(), (INTERNAL + "NULL").encode(), b"NULL\r", b"null"]
    out += [s.encode() for s in UTF8_EDGES] + NOT_UTF8
    for _ in range(n):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 6))) + str(rng.randrange(1000))
        if rng.random() < 0.05:
            text = INTERNAL + text
        raw = text.encode()
        if rng.random() < 0.05:  # a bad byte somewhere in a key
            at = rng.randrange(len(raw) + 1)
            raw = raw[:at] + rng.choice(NOT_UTF8) + raw[at:]
        out.append(raw)
    rng.shuffle(out)
    return out


def _expected(lines: list[bytes], jobs: list) -> Counter:
    """The groups from the engine itself, line by line (Router.route, as simulate routes)."""
    from artemis_routing_cli.pipeline.assign import BAD_ROW, prefix
    from artemis_routing_cli.routing.keys import NULL_KEY, connection_from_record

    out: Counter = Counter()
    for raw in lines:
        try:
            key = raw.decode("utf-8")
        except UnicodeDecodeError:
            key = None
        values: dict[str, object] = {BAD_ROW: key is None}
        for i, job in enumerate(jobs):
            p = prefix(i)
            for tag, router in [("", job.router), *((f"w{j}_", v) for j, (_, v) in enumerate(job.scenarios))]:
                if key is None:
                    status, target, local, null = "BAD_KEY", None, False, False
                else:
                    res = router.route(connection_from_record(router.key_type, {"key": key}))
                    status, target, local = res.status, res.target_label, res.local
                    null = res.key == NULL_KEY
                values[f"{p}{tag}status"], values[f"{p}{tag}target"] = status, target
                if not tag:
                    values[f"{p}local"], values[f"{p}null"] = local, null
        out[tuple(sorted(values.items(), key=lambda kv: kv[0]))] += 1
    return out


def _counted(groups: list) -> Counter:
    out: Counter = Counter()
    for values, count in groups:
        out[tuple(sorted(values.items(), key=lambda kv: kv[0]))] += count
    return out


def _jobs() -> list:
    from artemis_routing_cli.pipeline.run import build_jobs
    from artemis_routing_cli.pipeline.whatif import parse_scenarios

    return build_jobs(_routers(), parse_scenarios(["down=b2", "add=ffffffff-0000-11ee-8c99-0242ac120009"]))


def test_hash_and_utf8_check_equal_pythons_strict_decoder_and_the_engines_fnv(spark) -> None:
    rng = random.Random(5)
    samples = [*NOT_UTF8, *(s.encode() for s in UTF8_EDGES), b""]
    for _ in range(1500):  # random bytes, and valid text with one byte changed
        if rng.random() < 0.5:
            samples.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8))))
        else:
            raw = bytearray("".join(rng.choice(PIECES) for _ in range(3)).encode())
            raw[rng.randrange(len(raw))] = rng.randrange(256)
            samples.append(bytes(raw))
    from artemis_routing_cli.pipeline.jvm_udf import enable

    assert enable(spark) is None
    java = spark.sparkContext._jvm.arouter.udf.LineCounts
    invalid = 0
    for raw in samples:
        try:
            want = fnv1a32(raw.decode("utf-8"))
        except UnicodeDecodeError:
            want = None
            invalid += 1
        assert java.hashBytes(bytearray(raw)) == want, raw
    assert 300 < invalid < len(samples) - 300  # both kinds were checked


@pytest.mark.parametrize(("split_bytes", "n"), [(None, 3000), (37, 250)])
def test_line_counts_equal_the_engine_and_the_general_jvm_path(spark, tmp_path: Path, split_bytes: int | None,
                                                               n: int) -> None:
    from artemis_routing_cli.pipeline.assign import count_answers
    from artemis_routing_cli.pipeline.inputs import read_keys
    from artemis_routing_cli.pipeline.line_counts import _java_array, count_lines, uncovered
    from artemis_routing_cli.pipeline.summary import collect_counted

    jobs = _jobs()
    assert all(uncovered(r) is None for job in jobs for r in [job.router, *(v for _, v in job.scenarios)])
    assert sum(len(job.scenarios) for job in jobs) >= 8  # the what-ifs apply to the pooled routers
    lines = _lines(11, n)
    plain = tmp_path / "keys.txt"
    plain.write_bytes(b"\n".join(lines))  # no newline after the last line
    odd_dir = tmp_path / "odd[1]"  # a glob character (escaped for Spark): read as Spark's text rows instead
    odd_dir.mkdir()
    odd = odd_dir / "keys.txt"
    odd.write_bytes(b"\n".join(lines) + b"\n")
    sc = spark.sparkContext
    files_of = spark.read.text(str(odd).replace("[", "\\[").replace("]", "\\]")).inputFiles()
    # Hadoop would read the name as a glob: LineCounts declines, and Spark's text rows are counted
    assert sc._jvm.arouter.udf.LineCounts.countFiles(sc._jsc, _java_array(sc, sc._jvm.String, files_of),
                                                      _java_array(sc, sc._jvm.int, [0])) is None
    want = _expected(lines, jobs)
    hadoop = spark.sparkContext._jsc.hadoopConfiguration()
    try:
        if split_bytes is not None:  # many splits, cut inside lines and inside UTF-8 sequences
            hadoop.set("mapreduce.input.fileinputformat.split.maxsize", str(split_bytes))
            spark.conf.set("spark.sql.files.maxPartitionBytes", str(split_bytes * 40))
            spark.conf.set("spark.sql.files.openCostInBytes", "0")
        for path in (str(plain), str(odd).replace("[", "\\[").replace("]", "\\]")):
            got = count_lines(spark, path, jobs)
            assert got is not None
            assert _counted(got) == want, path
        if split_bytes is None:
            # the general path reads keys as simulate --keys-file does: the CR ending a line is no part of
            # its key (count_lines is asked only for files whose first 64 KiB show no CR LF: run.py)
            read = [raw[:-1] if raw.endswith(b"\r") else raw for raw in lines]
            general = collect_counted(count_answers(read_keys(spark, str(plain)), jobs, engine="jvm"), jobs)
            assert _counted(general) == _expected(read, jobs)
            assert read != lines  # the file has such lines: this compares the reading too
    finally:
        hadoop.unset("mapreduce.input.fileinputformat.split.maxsize")
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
        spark.conf.unset("spark.sql.files.openCostInBytes")


def test_line_counts_leave_other_shapes_to_the_general_path(spark, tmp_path: Path) -> None:
    from artemis_routing_cli.pipeline.line_counts import count_lines, uncovered
    from artemis_routing_cli.pipeline.run import build_jobs
    from tests.pipeline.test_source_ip_jvm import _named

    path = tmp_path / "keys.txt"
    path.write_text("a\nb\n", encoding="utf-8")
    reasons = {name: uncovered(_named(name)) for name in
               ("local-partition", "simple-router", "consistent-hash-router", "evenly-balance", "shard-router")}
    assert reasons == {
        "local-partition": "it has a key-filter",
        "simple-router": "SOURCE_IP keys are not the line itself",
        "consistent-hash-router": "it has a local-target-filter",
        "evenly-balance": "its answers depend on the order of keys",
        "shard-router": "it has a local-target-filter",
    }
    assert count_lines(spark, str(path), build_jobs([_named("shard-router")], [])) is None
    assert count_lines(spark, str(path), build_jobs([_named("sticky-router")], [])) is not None
