"""``arouter analyze --remote sc://HOST:PORT``: the run on a Spark Connect server, no local JVM.

The Connect client speaks gRPC to a server that already runs Spark (``start-connect-server.sh``,
a cluster's Connect endpoint), so the run's fixed cost is the work itself. What the classic
session gives through py4j has a Connect-side counterpart here:

- progress: the server's execution progress (``registerProgressHandler``) instead of the JVM
  status tracker;
- arouter on the workers: a Python artifact (``addArtifacts(..., pyfile=True)``) instead of
  ``addPyFile`` (:mod:`.ship`);
- the Java UDFs: the jar is uploaded as a session artifact instead of ``ADD JAR`` (:mod:`.jvm_udf`).

``--spark-log-level`` has no counterpart (the server's log4j decides; see ``LOG_LEVEL_REMOTE``): it
is refused with ``--remote`` rather than silently ignored.

The URL may carry parameters (``sc://host:port/;token=...``): only host and port are ever printed.
"""

from __future__ import annotations

import os
import re
import socket
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import UsageError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_PORT = 15002  # Spark Connect's gRPC port
ENV = "SPARK_REMOTE"
CONNECT_PACKAGES = ("grpc", "grpc_status", "google.rpc", "zstandard", "pandas", "pyarrow")
# A Connect client has no call that sets the server's log level (no SparkContext.setLogLevel, and the
# server refuses spark.log.level as a session setting): the option is refused rather than ignored.
LOG_LEVEL_REMOTE = ("--spark-log-level cannot apply to {server}: its log level is the server's own "
                    "(its log4j2 configuration) and a Connect client cannot change it; drop "
                    "--spark-log-level, or give --master to run Spark here")
_URL = re.compile(r"sc://(?P<host>\[[0-9A-Fa-f:.]+\]|[^:/;\[\]]+)(?::(?P<port>\d{1,5}))?/?(?:;.*)?")


@dataclass(frozen=True)
class Remote:
    url: str
    host: str
    port: int
    from_env: bool

    @property
    def shown(self) -> str:
        """What may be printed: the environment's value never is; a URL without its parameters."""
        if self.from_env:
            return f"the Spark Connect server {ENV} names"
        return f"the Spark Connect server sc://{self.host}:{self.port}"


def parse_remote(url: str, from_env: bool = False) -> Remote:
    found = _URL.fullmatch(url.strip())
    what = ENV if from_env else f"--remote {url!r}"
    if found is None:
        raise UsageError(f"{what} is not a Spark Connect URL: use sc://HOST:PORT (port {DEFAULT_PORT} "
                         "by default)")
    port = int(found["port"] or DEFAULT_PORT)
    if not 0 < port < 65536:
        raise UsageError(f"{what}: the port must be between 1 and 65535")
    return Remote(url.strip(), found["host"].strip("[]"), port, from_env)


def resolve_remote(remote: str | None, master: str | None,
                   environ: dict[str, str] | None = None) -> tuple[Remote | None, str | None]:
    """The Connect server to use (``--remote``, else ``SPARK_REMOTE`` unless ``--master`` is given),
    and a note for stderr when the environment decided."""
    env = os.environ if environ is None else environ
    if remote is not None:
        if master is not None:
            raise UsageError("--remote and --master both say where Spark runs: give --remote sc://HOST:PORT "
                             "for a Spark Connect server, or --master for a Spark master, not both")
        return parse_remote(remote), None
    value = env.get(ENV, "").strip()
    if not value:
        return None, None
    if master is not None:
        return None, f"{ENV} is set but --master is given: Spark runs on the master, not on a Connect server"
    found = parse_remote(value, from_env=True)
    return found, f"Spark Connect server from {ENV} (--master runs Spark here instead)"


def check_remote(remote: Remote, timeout: float = 5.0) -> None:
    """The server must accept a TCP connection: gRPC would retry for a long time before it says so."""
    try:
        with socket.create_connection((remote.host, remote.port), timeout=timeout):
            return
    except OSError as exc:
        why = exc.strerror or str(exc) or type(exc).__name__
    raise UsageError(f"cannot reach {remote.shown} ({why}): check the URL and that the server is running "
                     "(start-connect-server.sh)")


GRPC_READY_TIMEOUT = 20.0  # s: an HTTP/2 handshake with a server that speaks gRPC


def check_grpc(remote: Remote, timeout: float = GRPC_READY_TIMEOUT) -> None:
    """The port must speak gRPC (HTTP/2). Against anything else the Connect client retries with
    back-off for about ten minutes before it fails; a channel that is not ready in ``timeout`` is
    one plain error instead."""
    import grpc

    target = f"[{remote.host}]:{remote.port}" if ":" in remote.host else f"{remote.host}:{remote.port}"
    tls = re.search(r";\s*use_ssl\s*=\s*true", remote.url, re.IGNORECASE) is not None
    channel = (grpc.secure_channel(target, grpc.ssl_channel_credentials()) if tls
               else grpc.insecure_channel(target))
    try:
        grpc.channel_ready_future(channel).result(timeout=timeout)
    except grpc.FutureTimeoutError:
        raise UsageError(f"{remote.shown} does not answer as a Spark Connect (gRPC) server within "
                         f"{timeout:.0f} s: check the port (the server's spark.connect.grpc.binding.port, "
                         f"{DEFAULT_PORT} by default) and TLS (;use_ssl=true)") from None
    finally:
        channel.close()


def _missing_client() -> str | None:
    import importlib.util

    for name in CONNECT_PACKAGES:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except ModuleNotFoundError:
            return name
    return None


def connect_session(remote: Remote, conf: dict[str, str] | None = None) -> SparkSession:
    """A Spark Connect session; the first request is made here so a refusal is one plain line."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise UsageError("arouter analyze needs pyspark: pip install 'artemis-routing-cli[connect]'") from None
    missing = _missing_client()
    if missing is not None:
        raise UsageError(f"--remote needs the Spark Connect client ({missing} is not installed): "
                         "pip install 'artemis-routing-cli[connect]'")
    import warnings

    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    check_grpc(remote)
    builder = SparkSession.builder.remote(remote.url)
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    try:
        spark = builder.getOrCreate()
        spark.version  # noqa: B018 (the first request: the server answers or the URL is wrong)
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UsageError(f"cannot start a session on {remote.shown}: {first}") from None
    return spark


def is_remote(spark: Any) -> bool:  # noqa: ANN401 (a classic or a Connect SparkSession)
    return type(spark).__module__.startswith("pyspark.sql.connect")


@dataclass(frozen=True)
class _Info:
    name: str
    numTasks: int  # noqa: N815 (the status tracker's spelling, which progress.snapshot reads)
    numCompletedTasks: int  # noqa: N815
    numActiveTasks: int  # noqa: N815


class ConnectTracker:
    """The server's execution progress, read as :func:`.progress.snapshot` reads Spark's status tracker."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stages: dict[int, _Info] = {}

    def __call__(self, stages: Iterable[Any] | None, inflight_tasks: int,  # noqa: ANN401
                 operation_id: str | None, done: bool) -> None:
        active = {}
        for s in stages or []:
            if not s.done:
                running = max(0, min(int(inflight_tasks), int(s.num_tasks) - int(s.num_completed_tasks)))
                active[int(s.stage_id)] = _Info(f"stage {s.stage_id}", int(s.num_tasks),
                                                int(s.num_completed_tasks), running)
        with self._lock:
            self._stages = {} if done else active

    def getActiveStageIds(self) -> list[int]:  # noqa: N802
        with self._lock:
            return list(self._stages)

    def getStageInfo(self, stage_id: int) -> _Info | None:  # noqa: N802
        with self._lock:
            return self._stages.get(stage_id)


def tracker(spark: Any) -> Any:  # noqa: ANN401
    """What :class:`.progress.Reporter` polls: Spark's status tracker, or the Connect server's progress."""
    if not is_remote(spark):
        return spark.sparkContext.statusTracker()
    found = ConnectTracker()
    spark.registerProgressHandler(found)
    return found
