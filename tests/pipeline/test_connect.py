"""``analyze --remote``: a real Spark Connect server started by the test (pyspark's own server class),
answers compared key by key with ``simulate --keys-file``; and the option errors, before any Spark."""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.helpers import arouter
from tests.pipeline.peers import connect_server, free_port, python_without_arouter, run_arouter

ROUTER = "sticky-router"  # the bundled sample: CLIENT_ID, CONSISTENT_HASH over a static pool


def _keys(tmp: Path, n: int, seed: int) -> Path:
    rng = random.Random(seed)
    path = tmp / "ids.txt"
    path.write_text("".join(f"app-{rng.randrange(10**6)}" + rng.choice(["", "-x", "\u00e9", "\U0001F600"]) + "\n"
                            for _ in range(n)), encoding="utf-8")
    return path


def _simulated(keys: Path) -> dict[int, tuple[str, str, str]]:
    sim = arouter("simulate", "-r", ROUTER, "--keys-file", str(keys), "-f", "jsonl")
    assert sim.code == 0, sim.err
    return {n: (x["key"], x["status"], x["target"] or "")
            for n, x in enumerate(map(json.loads, sim.out.splitlines()), 1)}


def _written(out: Path) -> dict[int, tuple[str, str, str]]:
    rows = [row for f in sorted(out.glob("*.csv")) for row in csv.DictReader(f.open(encoding="utf-8"))]
    return {int(r["line"]): (r["key"], r["status"], r["target"]) for r in rows}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("pyspark")
    pytest.importorskip("pyarrow")
    for client in ("grpc", "grpc_status", "zstandard", "google.rpc"):
        pytest.importorskip(client)
    from artemis_routing_cli.pipeline.session import java_available

    if not java_available():
        pytest.skip("Java is not installed")
    work = tmp_path_factory.mktemp("connect")
    # The server's Python workers cannot import arouter (as on a cluster): the run ships it.
    with connect_server(python_without_arouter(work), work) as url:
        yield url


@pytest.mark.spark
def test_remote_gives_simulates_answers_key_by_key(server: str, tmp_path: Path) -> None:
    keys = _keys(tmp_path, 1500, 11)
    out = tmp_path / "assignments"
    run = run_arouter("analyze", "--keys", str(keys), "-r", ROUTER, "--remote", server, "--output", str(out),
                      "--output-format", "csv", "-f", "json")
    assert run.returncode == 0, run.stderr
    assert f"Spark runs on the Spark Connect server {server}" in run.stderr
    assert "Spark workers run" not in run.stderr  # the server chooses its workers' Python
    assert _written(out) == _simulated(keys)
    doc = json.loads(run.stdout)
    assert doc["routers"][0]["total"] == 1500


@pytest.mark.spark
def test_spark_remote_is_honoured_on_workers_without_arouter(server: str, tmp_path: Path) -> None:
    """``SPARK_REMOTE`` (with a parameter that must not be printed), the pandas engine on server workers
    whose Python has no arouter: the package goes to them as an artifact."""
    keys = _keys(tmp_path, 1200, 12)
    out = tmp_path / "assignments"
    secret_url = server + "/;user_id=arouter-test-user"
    run = run_arouter("analyze", "--keys", str(keys), "-r", ROUTER, "--engine", "pandas", "--output", str(out),
                      "--output-format", "csv", "-f", "json", env={"SPARK_REMOTE": secret_url})
    assert run.returncode == 0, run.stderr
    assert "Spark Connect server from SPARK_REMOTE" in run.stderr
    assert "arouter-test-user" not in run.stderr + run.stdout
    assert _written(out) == _simulated(keys)


def test_remote_and_master_together_are_one_error() -> None:
    run = arouter("analyze", "--keys", "x.txt", "--remote", "sc://127.0.0.1:15002", "--master", "local[1]")
    assert run.code == 2
    assert run.err.strip().count("\n") == 0 and "--remote and --master" in run.err


def test_an_unreachable_server_is_one_plain_sentence(tmp_path: Path) -> None:
    keys = tmp_path / "ids.txt"
    keys.write_text("a\n", encoding="utf-8")
    port = free_port()  # nothing listens there
    run = arouter("analyze", "--keys", str(keys), "-r", ROUTER, "--remote", f"sc://127.0.0.1:{port}")
    assert run.code == 2, run.err
    last = run.err.strip().splitlines()[-1]
    assert last.startswith(f"arouter: cannot reach the Spark Connect server sc://127.0.0.1:{port}"), run.err
    assert "Traceback" not in run.err


@pytest.mark.parametrize("url", ["http://127.0.0.1:15002", "sc://", "sc://host:99999"])
def test_a_url_that_is_not_spark_connect_is_refused(url: str) -> None:
    run = arouter("analyze", "--keys", "x.txt", "--remote", url)
    assert run.code == 2
    assert "--remote" in run.err and "Traceback" not in run.err


def test_spark_remote_from_the_environment_is_not_printed_when_wrong(tmp_path: Path) -> None:
    keys = tmp_path / "ids.txt"
    keys.write_text("a\n", encoding="utf-8")
    run = arouter("analyze", "--keys", str(keys), "-r", ROUTER, env={"SPARK_REMOTE": "grpc://secret-host:1"})
    assert run.code == 2
    assert "SPARK_REMOTE" in run.err and "secret-host" not in run.err


def test_a_port_that_does_not_speak_grpc_is_one_plain_error_not_ten_minutes_of_retries() -> None:
    """A real TCP server that answers like HTTP/1 and hangs up: the Connect client alone would retry
    with back-off for about ten minutes."""
    pytest.importorskip("grpc")
    import socket
    import threading

    from artemis_routing_cli.errors import UsageError
    from artemis_routing_cli.pipeline.connect import check_grpc, parse_remote

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    threading.Thread(target=serve, daemon=True).start()
    try:
        with pytest.raises(UsageError) as caught:
            check_grpc(parse_remote(f"sc://127.0.0.1:{port}"), timeout=2.0)
    finally:
        stop.set()
        listener.close()
    assert f"sc://127.0.0.1:{port} does not answer as a Spark Connect (gRPC) server" in caught.value.message


def test_spark_remote_gives_way_to_master_and_says_so() -> None:
    from artemis_routing_cli.pipeline.connect import resolve_remote

    found, said = resolve_remote(None, "local[1]", {"SPARK_REMOTE": "sc://h:1/;token=t"})
    assert found is None and said is not None and "--master" in said and "token" not in said
    found, said = resolve_remote(None, None, {"SPARK_REMOTE": "sc://h:1/;token=t"})
    assert found is not None and (found.host, found.port, found.from_env) == ("h", 1, True)
    assert "token" not in found.shown and said is not None
    found, _ = resolve_remote("sc://[::1]", None, {})
    assert found is not None and (found.host, found.port) == ("::1", 15002)


def test_the_servers_progress_reads_as_the_status_tracker() -> None:
    """The Connect server's progress events, polled by the same Reporter as Spark's status tracker."""
    from types import SimpleNamespace

    from artemis_routing_cli.pipeline.connect import ConnectTracker
    from artemis_routing_cli.pipeline.progress import describe, snapshot

    tracker = ConnectTracker()
    stage = SimpleNamespace(stage_id=3, num_tasks=8, num_completed_tasks=2, num_bytes_read=0, done=False)
    finished = SimpleNamespace(stage_id=2, num_tasks=1, num_completed_tasks=1, num_bytes_read=0, done=True)
    tracker([finished, stage], 2, "op", False)
    line = describe(snapshot(tracker), 10.0)
    assert line is not None and line.startswith("stage 3: 2/8 tasks done, 2 running, 10s elapsed")
    tracker([stage], 0, "op", True)
    assert snapshot(tracker) == []


_TRY_LOG_LEVEL = """
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
try:
    spark.sparkContext.setLogLevel("INFO")
    print("setLogLevel: applied")
except Exception as exc:
    print("setLogLevel: refused", type(exc).__name__)
try:
    spark.conf.set("spark.log.level", "INFO")
    print("spark.log.level: applied")
except Exception as exc:
    print("spark.log.level: refused", type(exc).__name__)
spark.stop()
"""


@pytest.mark.spark
def test_spark_log_level_is_refused_over_connect_where_it_cannot_apply(server: str, tmp_path: Path) -> None:
    """The real server: a Connect client can neither call setLogLevel nor set spark.log.level, so
    --spark-log-level with --remote (or SPARK_REMOTE) is refused before any work, not ignored."""
    import subprocess
    import sys

    tried = subprocess.run([sys.executable, "-c", _TRY_LOG_LEVEL, server], capture_output=True, text=True,
                           timeout=300, check=False)
    assert tried.returncode == 0, tried.stderr
    assert tried.stdout.splitlines()[0].startswith("setLogLevel: refused"), tried.stdout
    assert tried.stdout.splitlines()[1].startswith("spark.log.level: refused"), tried.stdout
    keys = _keys(tmp_path, 10, 13)
    for args, env in (((*("--remote", server), "--spark-log-level", "INFO"), None),
                      (("--spark-log-level", "warn"), {"SPARK_REMOTE": server})):
        run = arouter("analyze", "--keys", str(keys), "-r", ROUTER, *args, env=env)
        assert run.code == 2, run.err
        (line,) = run.err.strip().splitlines()
        assert line.startswith("arouter: --spark-log-level cannot apply to the Spark Connect server"), line
        assert "a Connect client cannot change it" in line and "Traceback" not in run.err
