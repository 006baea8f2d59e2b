"""Our own Java UDFs on the Spark session: FNV-1a and the broker's two regex calls, on the JVM.

The Java sources ship in ``pipeline/java/``; at first use they are compiled with ``javac`` against
the session's own Spark API jar into a cache directory (``$XDG_CACHE_HOME/arouter`` or
``~/.cache/arouter``, one jar per source text, Spark version and Java release), added to the session
with ``ADD JAR`` (so executors fetch it, under spark-submit and on a cluster too; over Spark Connect it
is uploaded as a session artifact) and registered:

- ``arouter_fnv(s)`` -> int: the broker's FNV-1a over UTF-16 code units (signed, wrap-around in Java);
- ``arouter_find(s, pattern)`` -> string: ``Pattern.compile(pattern).matcher(s).find()`` and the first
  match's text, null when nothing is found (the key-filter);
- ``arouter_matches(s, pattern)`` -> boolean: ``matcher(s).matches()`` (the local-target-filter);
- ``arouter_source_ip(s, native, every_scope)`` -> string: the SOURCE_IP key of a source address as
  ``simulate`` reads it (routing/keys.py: ``source_address`` then ``source_ip_key``), null when ``s``
  is not an address (``SourceAddress.java``, checked against the engine by tests on the JDK);
- ``arouter_sni_sendable(host)`` -> boolean: whether ``new SNIHostName(host)`` accepts the name (a Java
  client can send it as SNI), the JDK's own check.

A tiny job checks the registered functions against the engine before they are used. When anything
fails (no javac, a compile error, a class the executors cannot load) :func:`enable` returns the
reason and the caller routes in Python instead.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..routing.fnv import fnv1a32

if TYPE_CHECKING:
    from pyspark.sql import Column, SparkSession

JAVA_DIR = Path(__file__).parent / "java"
PACKAGE = "arouter.udf"
FNV = "arouter_fnv"
FIND = "arouter_find"
MATCHES = "arouter_matches"
SOURCE_IP = "arouter_source_ip"
SNI_SENDABLE = "arouter_sni_sendable"
# SQL name -> (class, Spark SQL return type)
FUNCTIONS = {FNV: (f"{PACKAGE}.Fnv1a", "int"), FIND: (f"{PACKAGE}.RegexFind", "string"),
             MATCHES: (f"{PACKAGE}.RegexMatches", "boolean"), SOURCE_IP: (f"{PACKAGE}.SourceIpKey", "string"),
             SNI_SENDABLE: (f"{PACKAGE}.SniSendable", "boolean")}
COMPILE_TIMEOUT = 120  # s: javac on four small files takes a few seconds on a slow machine
# Self-check: strings and the engine's answers (artemis-facts §2.3 test vectors, a surrogate pair).
CHECK_TEXTS = ("a", "test", "", "FOO1", "h\u00e9llo", "\U0001F600x")
CHECK_PATTERN = "[^-]+"
CHECK_ADDRESSES = ("10.0.0.1:5000", "fe80::1%2", "[::1]", "::ffff:1.2.3.4", "01.2.3.4", "/10.0.0.2:1")
# as many as CHECK_ADDRESSES: one job checks both
CHECK_HOSTS = ("a.example", "A_B", "host.", "caf\u00e9.example", "x..y", "\U0001F600")

_enabled: dict[tuple[str, str], str | None] = {}  # (application id, cache) -> None (ready) or why not
_jar_added: set[tuple[str, str]] = set()  # (application id, cache) whose session has the jar


class UdfUnavailable(Exception):
    """The Java UDFs cannot be built or loaded here (the message says why, in one line)."""


def sources() -> list[Path]:
    return sorted(JAVA_DIR.glob("*.java"))


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "arouter"


def java_release(spark_version: str) -> str:
    """The class-file level: Spark 4 needs Java 17; Spark 3 still runs on Java 8."""
    major = spark_version.split(".", 1)[0]
    return "17" if major.isdigit() and int(major) >= 4 else "8"


def _javac() -> str:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "javac").exists():
        return str(Path(home) / "bin" / "javac")
    found = shutil.which("javac")
    if found is None:
        raise UdfUnavailable("javac not found (a JDK, not only a JRE, builds the Java UDFs)")
    return found


def build_jar(spark_classpath: str, spark_version: str) -> Path:
    """The UDF jar for this Spark, compiled once and cached; raises :class:`UdfUnavailable`."""
    files = sources()
    if not files:
        raise UdfUnavailable(f"no Java sources in {JAVA_DIR}")
    release = java_release(spark_version)
    digest = hashlib.sha256(f"{spark_version}\0{release}\0".encode())
    for f in files:
        digest.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    target_dir = cache_root() / f"udf-{digest.hexdigest()[:16]}"
    jar = target_dir / "arouter-udf.jar"
    if jar.is_file():
        return jar
    javac = _javac()
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target_dir) as tmp:
            classes = Path(tmp) / "classes"
            cmd = [javac, "--release", release, "-nowarn", "-encoding", "UTF-8", "-cp", spark_classpath,
                   "-d", str(classes), *map(str, files)]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT, check=False)
            if proc.returncode != 0:
                first = next((ln for ln in proc.stderr.splitlines() if ln.strip()), f"exit {proc.returncode}")
                raise UdfUnavailable(f"javac failed: {first.strip()}")
            staged = Path(tmp) / "arouter-udf.jar"
            with zipfile.ZipFile(staged, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nCreated-By: arouter\r\n\r\n")
                for cls in sorted(classes.rglob("*.class")):
                    z.write(cls, cls.relative_to(classes).as_posix())
            os.replace(staged, jar)  # atomic: a concurrent builder finds a whole jar or none
    except (OSError, subprocess.SubprocessError) as exc:
        raise UdfUnavailable(f"cannot build the UDF jar: {exc}") from None
    return jar


def _spark_classpath(spark: SparkSession) -> str:
    """The jar holding Spark's Java UDF interfaces, as the running JVM loaded it."""
    try:
        jvm = spark.sparkContext._jvm  # type: ignore[attr-defined]  (a Connect session has none)
        cls = jvm.java.lang.Class.forName("org.apache.spark.sql.api.java.UDF1")
        location = cls.getProtectionDomain().getCodeSource().getLocation().toURI()
        # its folder: LineCounts also needs Spark's core, catalyst and unsafe jars beside it
        return str(jvm.java.nio.file.Paths.get(location).getParent().toString()) + os.sep + "*"
    except Exception:  # any py4j failure: look beside pyspark instead
        import pyspark

        jars = Path(pyspark.__file__).parent / "jars"
        if not jars.is_dir() and os.environ.get("SPARK_HOME"):
            jars = Path(os.environ["SPARK_HOME"]) / "jars"
        return str(jars / "*")


def _sql_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _add_jar(spark: SparkSession) -> None:
    """Build the jar (or find it cached) and add it to the session, for the driver and the executors."""
    jar = build_jar(_spark_classpath(spark), spark.version)
    try:
        from .connect import is_remote

        if is_remote(spark):  # the jar goes up to the server with the session's other artifacts
            spark.addArtifacts(str(jar))
        else:
            spark.sql(f"ADD JAR {_sql_string(str(jar))}")
    except Exception as exc:  # py4j / Spark errors: one line, then Python routing
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UdfUnavailable(f"cannot load the UDF jar: {first}") from None


def _register(spark: SparkSession) -> None:
    from pyspark.sql import functions as F
    from pyspark.sql.types import BooleanType, IntegerType, StringType

    _add_jar_once(spark)
    types = {"int": IntegerType(), "string": StringType(), "boolean": BooleanType()}
    try:
        for name, (cls, rtype) in FUNCTIONS.items():
            spark.udf.registerJavaFunction(name, cls, types[rtype])
        rows = (spark.range(len(CHECK_TEXTS), numPartitions=1)
                .select(F.element_at(F.array(*map(F.lit, CHECK_TEXTS)), F.col("id").cast("int") + 1).alias("s"))
                .select("s", F.call_function(FNV, "s").alias("h"),
                        F.call_function(FIND, F.concat("s", F.lit("-x")), F.lit(CHECK_PATTERN)).alias("f"),
                        F.call_function(MATCHES, "s", F.lit("\\p{L}+")).alias("m"))
                .collect())
        # one job for the addresses and the host names (the two tuples are as long)
        def nth(values: tuple[str, ...]) -> Column:
            return F.element_at(F.array(*map(F.lit, values)), F.col("id").cast("int") + 1)

        pairs = (spark.range(len(CHECK_ADDRESSES), numPartitions=1)
                 .select(nth(CHECK_ADDRESSES).alias("s"), nth(CHECK_HOSTS).alias("h"))
                 .select("s", "h", F.call_function(SOURCE_IP, "s", F.lit(True), F.lit(False)).alias("k"),
                         F.call_function(SNI_SENDABLE, "h").alias("ok"))
                 .collect())
    except Exception as exc:  # py4j / Spark errors: one line, then Python routing
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UdfUnavailable(f"cannot load the UDF jar: {first}") from None
    from ..jregex.javaregex import compile_java

    find, full = compile_java(CHECK_PATTERN), compile_java("\\p{L}+")
    got = sorted((r["s"], r["h"], r["f"], r["m"]) for r in rows)
    want = sorted((s, fnv1a32(s), find.find(s + "-x"), full.matches(s)) for s in CHECK_TEXTS)
    if (got != want or sorted((r["s"], r["k"]) for r in pairs) != sorted((a, source_key(a)) for a in CHECK_ADDRESSES)
            or sorted((r["h"], r["ok"]) for r in pairs) != sorted((h, sni_sendable(h)) for h in CHECK_HOSTS)):
        raise UdfUnavailable("the Java UDFs disagree with the engine on the self-check")


def source_key(value: str, native: bool = True, broker: tuple[int, int] | None = None) -> str | None:
    """What ``arouter_source_ip`` answers, from the engine: the SOURCE_IP key, None for no address."""
    from ..errors import UsageError
    from ..routing.keys import NEWEST_BROKER, source_address, source_ip_key

    try:
        return source_ip_key(source_address(value, native=native, broker=broker or NEWEST_BROKER))
    except UsageError:
        return None


def sni_sendable(host: str) -> bool:
    """What ``arouter_sni_sendable`` answers, from the engine: a Java client can send ``host`` as SNI."""
    from ..routing.sni import SniNameError, java_sni_host_name

    try:
        java_sni_host_name(host)
    except SniNameError:
        return False
    return True


def _app(spark: SparkSession) -> tuple[str, str]:
    from .connect import is_remote

    session = spark.session_id if is_remote(spark) else spark.sparkContext.applicationId  # type: ignore[attr-defined]
    return session, str(cache_root())


def _add_jar_once(spark: SparkSession) -> None:
    app = _app(spark)
    if app not in _jar_added:
        _add_jar(spark)
        _jar_added.add(app)


def enable(spark: SparkSession) -> str | None:
    """Make the UDFs available on ``spark``: None when ready, else why not (once per application)."""
    app = _app(spark)
    if app not in _enabled:
        try:
            _register(spark)
            _enabled[app] = None
        except UdfUnavailable as exc:
            _enabled[app] = str(exc)
    return _enabled[app]


def enable_classes(spark: SparkSession) -> str | None:
    """The jar's classes on ``spark`` (driver and executors) without the SQL functions and their check
    jobs, for code that calls them itself (LineCounts): None when loaded, else why not. The driver
    checks the shared FNV-1a and UTF-8 reading against the engine first (no Spark job)."""
    app = _app(spark)
    if app in _enabled and _enabled[app] is not None:
        return _enabled[app]
    try:
        _add_jar_once(spark)
        counts = spark.sparkContext._jvm.arouter.udf.LineCounts  # type: ignore[attr-defined]
        got = [counts.hashBytes(bytearray(t.encode("utf-8"))) for t in CHECK_TEXTS]
        bad = counts.hashBytes(bytearray(b"\xed\xa0\x80"))  # an encoded surrogate: not UTF-8
    except UdfUnavailable as exc:
        return str(exc)
    except Exception as exc:  # py4j: the class did not load
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        return f"cannot load the UDF jar: {first}"
    if got != [fnv1a32(t) for t in CHECK_TEXTS] or bad is not None:
        return "the Java line counter disagrees with the engine on the self-check"
    return None
