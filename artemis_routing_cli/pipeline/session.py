"""A quiet SparkSession: local[2] by default, any ``--master``, or the one spark-submit made.

The JVM's log4j output is cut down before the JVM starts (a log4j2 configuration passed with
``spark.driver.extraJavaOptions``), so the console shows only arouter's own progress and errors.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError

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
                if not line.decode("utf-8", "replace").startswith(JVM_NOISE):
                    os.write(saved, line)

    threading.Thread(target=forward, name="arouter-jvm-stderr", daemon=True).start()
    try:
        yield
    finally:
        os.dup2(saved, 2)


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
        log_file = Path(tempfile.gettempdir()) / f"arouter-log4j2-{level.lower()}.properties"
        quiet = level.lower() if level in QUIET_UNLESS else "off"
        log_file.write_text(_LOG4J2.format(level=level.lower(), quiet=quiet), encoding="utf-8")
        java_opts = f"-Dlog4j2.configurationFile=file:{log_file} -Dlog4j.configurationFile=file:{log_file}"
        builder = (builder.master(master or DEFAULT_MASTER)
                   .config("spark.driver.extraJavaOptions", java_opts)
                   .config("spark.executor.extraJavaOptions", java_opts)
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
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"cannot start Spark: {first}") from None
    spark.sparkContext.setLogLevel(level)
    return spark
