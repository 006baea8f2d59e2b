"""Real Spark peers the analyze tests start themselves: a Python without arouter (as a cluster's
executors have), and a Spark Connect server from the pyspark install."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import sysconfig
import threading
import venv
from collections import deque
from collections.abc import Iterator
from pathlib import Path

CONNECT_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
CONNECT_STARTED = "Spark Connect server started at"
SERVER_START_TIMEOUT = 300  # s: a JVM and a SparkContext on a loaded 2-core machine


def python_without_arouter(tmp: Path, lacking: tuple[str, ...] = ()) -> Path:
    """An interpreter with numpy, pandas, pyarrow and pyspark but no ``artemis_routing_cli`` (nor
    the modules ``lacking`` names: a .pth line makes their import fail as a missing module's does).

    A virtualenv that sees this interpreter's site-packages through a plain path line (so the
    editable install's import hook, itself a .pth file there, is not run), started with ``-I`` so
    no PYTHONPATH or working directory brings the package back.
    """
    env_dir = tmp / "bare-venv"
    venv.create(env_dir, with_pip=False, system_site_packages=False, symlinks=True)
    purelib = Path(sysconfig.get_paths(vars={"base": str(env_dir), "platbase": str(env_dir)})["purelib"])
    purelib.mkdir(parents=True, exist_ok=True)
    (purelib / "host-site.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    if lacking:
        (purelib / "lacking.pth").write_text(f"import sys; sys.modules.update(dict.fromkeys({list(lacking)!r}))\n",
                                             encoding="utf-8")
    wrapper = tmp / "bare-python"
    wrapper.write_text(f'#!/bin/sh\nexec "{env_dir / "bin" / "python"}" -I "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    probe = subprocess.run(
        [str(wrapper), "-c", "import importlib.util, sys;"
         f"[__import__(m) for m in {[m for m in ('numpy', 'pandas', 'pyarrow', 'pyspark') if m not in lacking]!r}];"
         "sys.exit(importlib.util.find_spec('artemis_routing_cli') is not None)"],
        capture_output=True, text=True, timeout=60, check=False)
    assert probe.returncode == 0, f"the bare Python is not what the test needs: {probe.stderr}"
    return wrapper


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


@contextlib.contextmanager
def connect_server(worker_python: Path, work: Path) -> Iterator[str]:
    """A Spark Connect server (local[2]) on a free loopback port, its Python workers ``worker_python``;
    yields its ``sc://`` URL once the server says it listens, and stops it (its process group) after."""
    port = free_port()
    home = spark_home()
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1",
           "PYSPARK_PYTHON": str(worker_python), "SPARK_LOG_DIR": str(work), "SPARK_PID_DIR": str(work)}
    env.pop("SPARK_REMOTE", None)
    env.pop("PYSPARK_GATEWAY_PORT", None)
    cmd = [str(home / "bin" / "spark-submit"), "--class", CONNECT_CLASS, "--master", "local[2]",
           "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
           "--conf", f"spark.connect.grpc.binding.port={port}",
           "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.host=127.0.0.1",
           "--conf", "spark.driver.bindAddress=127.0.0.1", "--conf", "spark.sql.shuffle.partitions=2",
           "--conf", f"spark.pyspark.python={worker_python}"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=work,
                            start_new_session=True)
    ready = threading.Event()
    started = threading.Event()
    tail: deque[str] = deque(maxlen=40)

    def read() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace")
            tail.append(line)
            if CONNECT_STARTED in line:
                started.set()
                ready.set()
        ready.set()  # the server exited: the wait below ends and says so

    threading.Thread(target=read, daemon=True).start()
    try:
        ready.wait(SERVER_START_TIMEOUT)
        if not started.is_set() or proc.poll() is not None:
            raise AssertionError("the Spark Connect server did not start:\n" + "".join(tail))
        yield f"sc://127.0.0.1:{port}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


def run_arouter(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess with a deadline for a Spark run on a loaded machine."""
    full_env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **(env or {})}
    full_env.pop("ARTEMIS_INSTANCE", None)
    return subprocess.run([sys.executable, "-m", "artemis_routing_cli", *args], capture_output=True, text=True,
                          env=full_env, timeout=timeout, cwd=Path(__file__).resolve().parents[2], check=False)
