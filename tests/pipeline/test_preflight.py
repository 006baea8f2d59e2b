"""analyze checks its input and options before Spark starts: each of these answers in well under a
second with exit 2, where before it started Spark (10-20 s) and failed, or read the input wrongly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from artemis_routing_cli.errors import UsageError
from artemis_routing_cli.pipeline.preflight import (
    RouterInput,
    check_routers,
    detect,
    inspect,
    parse_key_columns,
)
from artemis_routing_cli.pipeline.session import check_master, plain_spark_error, worker_python
from tests.cli.helpers import arouter

SPARK_STARTED = "Spark workers run"  # said just before Spark starts


def test_readme_first_example_names_the_routers_that_can_take_client_ids(tmp_path: Path) -> None:
    keys = tmp_path / "client-ids.txt"
    keys.write_text("FOO1\nFOO2\napp-7\n", encoding="utf-8")
    run = arouter("analyze", "--keys", str(keys), "-r", "simple-router", "--master", "local[1]")
    assert run.code == 2
    assert "router 'simple-router' cannot take these keys: it reads SOURCE_IP and line 1 ('FOO1')" in run.err
    assert "-r sticky-router (CLIENT_ID)" in run.err
    assert SPARK_STARTED not in run.err


def test_without_r_routers_that_cannot_read_the_keys_are_left_out_and_said() -> None:
    from artemis_routing_cli.pipeline.preflight import KeysInput

    text = KeysInput("ids.txt", "text", "text", ("key",), {}, ((1, "FOO1"), (2, "FOO2")))
    routers = [RouterInput("by-ip", "SOURCE_IP"), RouterInput("by-id", "CLIENT_ID")]
    checked = check_routers(text, routers, chosen=False)
    assert checked.skip == {"by-ip"}
    assert any("routing with by-id" in n for n in checked.notes)
    with pytest.raises(UsageError, match="by-ip"):
        check_routers(text, routers[:1], chosen=False, candidates=routers)


def test_source_ip_keys_are_accepted_for_a_source_ip_router() -> None:
    from artemis_routing_cli.pipeline.preflight import KeysInput

    text = KeysInput("ips.txt", "text", "text", ("key",), {}, ((1, "10.0.0.1"), (2, "[::1]:5000")))
    assert check_routers(text, [RouterInput("by-ip", "SOURCE_IP")], chosen=True).skip == frozenset()


def test_a_router_whose_key_type_has_no_column_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "keys.csv"
    f.write_text("user_name\nbob\n", encoding="utf-8")
    inp = inspect(str(f))
    with pytest.raises(UsageError, match="reads CLIENT_ID and the input has no client_id column"):
        check_routers(inp, [RouterInput("r", "CLIENT_ID")], chosen=True)


@pytest.mark.parametrize("content,expected", [
    (b"PAR1\x15\x04", "parquet"),
    (b"ORC\x0a\x03", "orc"),
    (b'{"client_id": "a"}\n', "json"),
    (b"client_id,user_name\na,b\n", "csv"),
    (b"FOO1\nFOO2\n", "text"),
])
def test_a_directory_of_extension_less_files_is_read_by_its_data(tmp_path: Path, content: bytes,
                                                                  expected: str) -> None:
    d = tmp_path / "ids"
    d.mkdir()
    (d / "_SUCCESS").write_bytes(b"")
    (d / ".part-00000.crc").write_bytes(b"xx")
    (d / "part-00000").write_bytes(content)
    if expected == "text":
        with pytest.raises(UsageError, match="cannot tell the format"):
            detect(str(d))
    else:
        assert detect(str(d))[0] == expected


def test_parquet_directory_is_detected_not_read_as_text(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    d = tmp_path / "ids"
    d.mkdir()
    pq.write_table(pa.table({"client_id": ["a", "b"]}), d / "part-00000-x.snappy.parquet")
    inp = inspect(str(d))
    assert inp.format == "parquet" and inp.columns == ("client_id",)
    extless = tmp_path / "ids2"
    extless.mkdir()
    pq.write_table(pa.table({"client_id": ["a"]}), extless / "part-00000")
    assert inspect(str(extless)).format == "parquet"


def test_orc_columns_are_read_from_the_footer(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    orc = pytest.importorskip("pyarrow.orc")
    f = tmp_path / "keys.orc"
    orc.write_table(pa.table({"mqtt_client": ["a"], "other": [1]}), f)
    inp = inspect(str(f), key_columns=parse_key_columns(["CLIENT_ID=mqtt_client"]))
    assert inp.format == "orc" and inp.key_columns() == ("client_id",)


def test_remote_paths_without_extension_are_not_guessed() -> None:
    with pytest.raises(UsageError, match="give --keys-format"):
        detect("hdfs:///ids/")
    assert detect("hdfs:///ids/", "parquet") == ("parquet", "--keys-format parquet")
    assert detect("s3a://bucket/ids.parquet")[0] == "parquet"


def test_extra_columns_need_a_key_column_mapping(tmp_path: Path) -> None:
    """Without a key column the hint lists the columns and names no guessed one (``CLIENT_ID=id`` would
    route the wrong column)."""
    f = tmp_path / "wide.csv"
    f.write_text("id,mqtt_client,region\n1,a,eu\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"no key column \(columns: id, mqtt_client, region\).*"
                                         r"--key-column KEYTYPE=COLUMN") as caught:
        inspect(str(f))
    assert "CLIENT_ID=id" not in str(caught.value)
    inp = inspect(str(f), key_columns=parse_key_columns(["CLIENT_ID=mqtt_client"]))
    assert inp.key_columns() == ("client_id",)
    with pytest.raises(UsageError, match="'nope', which the input does not have"):
        inspect(str(f), key_columns=parse_key_columns(["CLIENT_ID=nope"]))
    j = tmp_path / "wide.jsonl"
    j.write_text(json.dumps({"mqtt_client": "a", "n": 1}) + "\n", encoding="utf-8")
    assert inspect(str(j), key_columns={"client_id": "mqtt_client"}).columns == ("mqtt_client", "n")


@pytest.mark.parametrize("items,message", [
    (["CLIENT_ID"], "expected KEYTYPE=COLUMN"),
    (["CLIENTID=a"], "unknown key type"),
    (["CLIENT_ID=a", "client_id=b"], "given twice"),
])
def test_key_column_option_is_checked(items: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_key_columns(items)


def test_fifo_or_device_is_not_read(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "keys"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="regular file"):
        detect(str(fifo))


@pytest.mark.parametrize("args,message", [
    (["--output-format", "avro"], "--output-format 'avro'"),
    (["--mode", "replace"], "--mode 'replace'"),
    (["-f", "yaml"], "--format 'yaml'"),
    (["--spark-log-level", "LOUD"], "--spark-log-level 'LOUD'"),
    (["--master", "sparc://x:7077"], "is not a Spark master URL"),
    (["--key-column", "CLIENT_ID=nope"], "which the input does not have"),
])
def test_option_errors_come_before_spark(tmp_path: Path, args: list[str], message: str) -> None:
    keys = tmp_path / "keys.csv"
    keys.write_text("client_id\nFOO1\n", encoding="utf-8")
    run = arouter("analyze", "--keys", str(keys), "-r", "sticky-router", *args)
    assert run.code == 2, run.err
    assert message in run.err
    assert SPARK_STARTED not in run.err


def test_an_existing_output_is_refused_before_spark_unless_a_mode_says(tmp_path: Path) -> None:
    keys = tmp_path / "keys.txt"
    keys.write_text("FOO1\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    run = arouter("analyze", "--keys", str(keys), "-r", "sticky-router", "--output", str(out))
    assert run.code == 2 and "exists: choose another path, or --mode overwrite|append" in run.err
    assert SPARK_STARTED not in run.err


def test_an_unreachable_standalone_master_is_one_line(unused_tcp_port: int) -> None:
    with pytest.raises(UsageError, match="cannot reach the Spark master"):
        check_master(f"spark://127.0.0.1:{unused_tcp_port}", timeout=2)
    check_master("local[2]")
    check_master("local-cluster[2,1,1024]")


def test_common_spark_failures_read_as_one_sentence_with_the_fix() -> None:
    s3 = plain_spark_error('py4j.protocol.Py4JJavaError: ... java.io.IOException: No FileSystem for scheme "s3a"')
    assert s3 is not None and "hadoop-aws" in s3
    assert "is not a Spark master URL" in (plain_spark_error("Could not parse Master URL: 'x'", "x") or "")
    assert plain_spark_error("something else entirely") is None


def test_workers_run_the_python_that_runs_arouter(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    assert worker_python({}) == (sys.executable, "the Python running arouter")
    monkeypatch.setenv("PYSPARK_PYTHON", "/opt/py")
    assert worker_python({})[0] == "/opt/py"
    assert worker_python({"spark.pyspark.python": "/x/python"}) == ("/x/python", "--conf spark.pyspark.python")


@pytest.fixture
def unused_tcp_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_extra_column_beside_a_key_column_is_not_read(tmp_path: Path) -> None:
    """A CSV with client_id and one more column is taken: the extra column is not read (and said)."""
    from artemis_routing_cli.pipeline.preflight import RouterInput, check_routers, other_columns

    f = tmp_path / "keys.csv"
    f.write_text("client_id,region\nFOO1,eu\n", encoding="utf-8")
    inp = inspect(str(f))
    assert other_columns(inp) == ["region"]
    assert check_routers(inp, [RouterInput("r", "CLIENT_ID")], chosen=True).skip == frozenset()


def test_text_marks_and_samples_read_as_the_keys_are(tmp_path: Path) -> None:
    """A text file with a byte order mark and CR LF: said, its sampled keys without them, and not read
    as raw bytes by the line-counting path (plain() is False) unless --keep-cr keeps the CR."""
    import dataclasses

    f = tmp_path / "keys.txt"
    f.write_bytes(b"\xef\xbb\xbf10.0.0.1\r\n10.0.0.2\r\n")
    inp = inspect(str(f))
    assert inp.bom and inp.crlf and not inp.plain()
    assert inp.samples[:2] == ((1, "10.0.0.1"), (2, "10.0.0.2"))
    g = tmp_path / "crlf.txt"
    g.write_bytes(b"a\r\nb\r\n")
    assert dataclasses.replace(inspect(str(g)), keep_cr=True).plain()
