"""A quiet SparkSession: local[2] by default, any ``--master``, or the one spark-submit made.

The JVM's log4j output is cut down before the JVM starts (a log4j2 configuration passed with
``spark.driver.extraJavaOptions``), so the console shows only arouter's own progress and errors.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import Interrupted, UsageError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[2]"
DEFAULT_LOG_LEVEL = "ERROR"
LOG_LEVELS = ("ALL", "DEBUG", "ERROR", "FATAL", "INFO", "OFF", "TRACE", "WARN")
# Rows per Arrow batch handed to the routing function: large batches amortise numpy's per-call cost.
ARROW_BATCH_ROWS = 50_000

_LOG4J2 = """\
status = error
rootLogger.level = {level}
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark %p %c{{1}}: %m%n
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = error
logger.spark.name = org.apache.spark
logger.spark.level = {level}
logger.utils.name = org.apache.spark.util.Utils
logger.utils.level = {quiet}
logger.executor.name = org.apache.spark.executor.Executor
logger.executor.level = {quiet}
logger.tasks.name = org.apache.spark.scheduler.TaskSetManager
logger.tasks.level = {quiet}
"""
# Lines the JVM prints at start-up whatever log4j says (Spark 4 adds --add-modules jdk.incubator.vector).
JVM_NOISE = ("WARNING: Using incubator modules",)
# Set once the run is interrupted: the JVM's stderr (stack traces of tasks cut short while Spark
# stops) is dropped from then on.
_JVM_MUTED = threading.Event()
# Loggers that only repeat a failure arouter reports itself in one line: silent unless asked for.
QUIET_UNLESS = ("ALL", "DEBUG", "TRACE", "INFO", "WARN")


@contextlib.contextmanager
def _jvm_stderr_filtered() -> Iterator[None]:
    """Start the JVM with its stderr behind a pipe that drops known start-up noise.

    The JVM inherits file descriptor 2 when it is launched; Python's own fd 2 is restored right after.
    """
    try:
        saved = os.dup(2)
        read_end, write_end = os.pipe()
    except OSError:
        yield
        return
    os.dup2(write_end, 2)
    os.close(write_end)

    def forward() -> None:
        with os.fdopen(read_end, "rb") as source:
            for line in source:
                if not _JVM_MUTED.is_set() and not line.decode("utf-8", "replace").startswith(JVM_NOISE):
                    os.write(saved, line)

    threading.Thread(target=forward, name="arouter-jvm-stderr", daemon=True).start()
    try:
        yield
    finally:
        os.dup2(saved, 2)


@contextlib.contextmanager
def interruptible(spark: SparkSession, what: str) -> Iterator[None]:
    """Ctrl-C in the block is one line (:class:`Interrupted`, exit 130) and no traceback.

    PySpark's own SIGINT handler cancels the jobs from inside the signal handler, on the Py4J
    connection the interrupted call is using, and both sides then print tracebacks. This handler
    only records the request, mutes the JVM's stderr and Python's logging (Py4J logs the broken
    call) and interrupts the main thread; the jobs are cancelled on a fresh connection after that,
    and a second Ctrl-C is ignored while Spark stops (the caller stops it)."""
    import logging
    import signal

    asked = False

    def handler(signum: int, frame: object) -> None:
        nonlocal asked
        if asked:
            return
        asked = True
        _JVM_MUTED.set()
        logging.disable(logging.CRITICAL)
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread: leave SIGINT as it is
        yield
        return
    try:
        yield
    except BaseException:
        if not asked:
            raise
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the rest is stopping: not to be cut short
        _cancel_quietly(spark)
        raise Interrupted(f"interrupted: {what}") from None
    finally:
        if not asked:
            signal.signal(signal.SIGINT, previous)


def _cancel_quietly(spark: SparkSession) -> None:
    try:
        context = getattr(spark, "sparkContext", None)
        if context is not None:
            context.cancelAllJobs()
        else:  # Spark Connect
            spark.interruptAll()
    except Exception:  # Spark is going down anyway: stop() follows
        pass


def java_available() -> bool:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return True
    return shutil.which("java") is not None


def parse_conf(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--conf {item!r}: expected key=value, e.g. spark.executor.memory=4g")
        out[name.strip()] = value
    return out


def worker_python(conf: dict[str, str]) -> tuple[str, str]:
    """The Python the executors start, and why: ``spark.pyspark.python`` from ``--conf``, else
    ``PYSPARK_PYTHON`` from the environment, else the interpreter running arouter.

    PySpark itself starts ``python3`` from PATH, which outside an activated virtualenv (a pipx
    install, a system Python) is an interpreter without arouter: every pandas-routed router then
    fails on the executors. PySpark reads only the environment variable when it creates the
    context (``spark.pyspark.python`` is read by spark-submit alone), so arouter sets it.
    """
    if conf.get("spark.pyspark.python"):
        return conf["spark.pyspark.python"], "--conf spark.pyspark.python"
    if os.environ.get("PYSPARK_PYTHON"):
        return os.environ["PYSPARK_PYTHON"], "PYSPARK_PYTHON"
    return sys.executable, "the Python running arouter"


def _under_spark_submit() -> bool:
    """spark-submit starts the JVM first and hands Python its gateway."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def start_session(master: str | None = None, conf: dict[str, str] | None = None,
                  log_level: str = DEFAULT_LOG_LEVEL, app_name: str = "arouter analyze") -> SparkSession:
    """Start (or join) a SparkSession with quiet logging; one plain error when Java is missing."""
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    level = log_level.upper()
    if level not in LOG_LEVELS:
        raise UsageError(f"--spark-log-level {log_level!r}: use one of {', '.join(LOG_LEVELS)}")
    submitted = _under_spark_submit()
    if not submitted and not java_available():
        raise UsageError("arouter analyze needs Java (a JDK 17 or later) for Spark: none found on PATH "
                         "or in JAVA_HOME")
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise UsageError("arouter analyze needs pyspark: pip install 'artemis-routing-cli[spark]'") from None

    builder = SparkSession.builder.appName(app_name)
    if not submitted:
        python, _why = worker_python(conf or {})
        os.environ["PYSPARK_PYTHON"] = python
        log_file = Path(tempfile.gettempdir()) / f"arouter-log4j2-{level.lower()}.properties"
        quiet = level.lower() if level in QUIET_UNLESS else "off"
        log_file.write_text(_LOG4J2.format(level=level.lower(), quiet=quiet), encoding="utf-8")
        java_opts = f"-Dlog4j2.configurationFile=file:{log_file} -Dlog4j.configurationFile=file:{log_file}"
        # The driver only: an executor elsewhere has no such file (its JVM would start with a log4j
        # configuration that does not exist), and in local[N] the executors are the driver's JVM.
        builder = (builder.master(master or DEFAULT_MASTER)
                   .config("spark.driver.extraJavaOptions", java_opts)
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.sql.shuffle.partitions", "8"))
        if (master or DEFAULT_MASTER).startswith("local"):
            builder = (builder.config("spark.driver.host", "127.0.0.1")
                       .config("spark.driver.bindAddress", "127.0.0.1"))
            os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    elif master:
        builder = builder.master(master)
    builder = builder.config("spark.sql.execution.arrow.maxRecordsPerBatch", str(ARROW_BATCH_ROWS))
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    try:
        with _jvm_stderr_filtered():
            spark = builder.getOrCreate()
    except Exception as exc:  # the JVM did not start: say why in one line
        plain = plain_spark_error(str(exc), master)
        if plain is not None:
            raise UsageError(plain) from None
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"cannot start Spark: {first}") from None
    spark.sparkContext.setLogLevel(level)
    return spark


_MASTER_FORMS = "local[N], spark://HOST:PORT, yarn or k8s://https://HOST:PORT"


def check_master(master: str | None, timeout: float = 5.0) -> None:
    """Refuse a master URL Spark cannot use, before the JVM starts (Spark would take a minute to say so).

    A standalone master (``spark://HOST:PORT[,HOST:PORT]``) must accept a TCP connection on one of
    its addresses: Spark itself retries for about a minute before it gives up.
    """
    if master is None:
        return
    m = master.strip()
    if re.fullmatch(r"local(\[(\d+|\*)(,\d+)?\])?|local-cluster\[\d+,\d+,\d+\]|yarn|k8s://\S+|mesos://\S+", m):
        return
    if not m.startswith("spark://"):
        raise UsageError(f"--master {master!r} is not a Spark master URL: use {_MASTER_FORMS}")
    import socket

    reasons = []
    for hostport in m[len("spark://"):].split(","):
        host, sep, port = hostport.rpartition(":")
        if not sep or not port.isdigit():
            raise UsageError(f"--master {master!r}: expected spark://HOST:PORT (the master's port, 7077 by default)")
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
                return
        except OSError as exc:
            reasons.append(f"{hostport}: {exc.strerror or exc}")
    raise UsageError(f"cannot reach the Spark master {master} ({'; '.join(reasons)}): check the URL and that "
                     "the master is running")


_PLAIN_ERRORS: tuple[tuple[str, str], ...] = (
    (r"Could not parse Master URL", "--master {master!r} is not a Spark master URL: use " + _MASTER_FORMS),
    (r"No FileSystem for scheme \W?s3a|S3AFileSystem not found|ClassNotFoundException: Class "
     r"org\.apache\.hadoop\.fs\.s3a",
     "Spark cannot read s3a:// paths without the hadoop-aws jar: add --conf "
     "spark.jars.packages=org.apache.hadoop:hadoop-aws:VERSION (VERSION = the Hadoop version of your Spark), "
     "or use a Spark distribution that has it"),
    (r"No FileSystem for scheme \W?(\w+)",
     "Spark has no file system for {scheme}:// paths: add the jar that provides it with "
     "--conf spark.jars.packages=..."),
    (r"All masters are unresponsive|Failed to connect to master",
     "cannot reach the Spark master {master}: check the URL and that the master is running"),
    (r"JAVA_GATEWAY_EXITED|Java gateway process exited",
     "the JVM exited while Spark started: check JAVA_HOME and that Java 17 or later is installed"),
)


def plain_spark_error(text: str, master: str | None = None) -> str | None:
    """A common Spark/Py4J failure as one plain sentence with its fix, or None."""
    for pattern, message in _PLAIN_ERRORS:
        found = re.search(pattern, text)
        if found:
            scheme = found.group(1) if found.groups() else ""
            return message.format(master=master or DEFAULT_MASTER, scheme=scheme)
    return None
