"""Compile arouter's Java driver against an Artemis installation and run it, bounded.

The driver (``java/*.java``) is compiled with ``javac`` against the installation's ``lib/*`` once per
installation, driver source and JDK, into ``$XDG_CACHE_HOME/arouter/judge-HASH`` (else
``~/.cache/arouter``): javac writes into a private folder that is renamed into place, so a cache folder is
whole or absent. The JVM runs with a heap cap, in a scratch directory, with a wall-clock timeout; the
driver starts no server, binds no port and opens no connection. Every failure is one
:class:`~artemis_routing_cli.errors.UsageError` line (exit 2).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from ..config.brokerhome import BrokerHome

JAVA_DIR = Path(__file__).parent / "java"
MAIN_CLASS = "arouter.judge.Judge"
# javac over one small file takes 2-10 s on a busy machine; a JVM start for the loader 1-10 s.
COMPILE_TIMEOUT = 180.0
RUN_TIMEOUT = float(os.environ.get("AROUTER_JUDGE_TIMEOUT", "180"))
# The loader reads one broker.xml: the broker itself starts with far less than this.
HEAP = "-Xmx512m"
# What the driver prints is a few lines per router; more than this is not the driver talking.
MAX_OUTPUT_BYTES = 64 << 20


def _tool(name: str) -> str:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / name).is_file():
        return str(Path(home) / "bin" / name)
    found = shutil.which(name)
    if found is None:
        need = "a JDK (javac compiles arouter's driver against your broker)" if name == "javac" else "Java"
        raise UsageError(f"--broker-home: {name} not found on PATH: the broker's own loader needs {need}",
                         hint="install a JDK, set JAVA_HOME, or give --no-broker-home")
    return found


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "arouter"


def sources() -> list[Path]:
    return sorted(JAVA_DIR.glob("*.java"))


def classes_for(home: BrokerHome) -> Path:
    """The driver's classes for ``home``, compiled once (cached); UsageError when javac fails."""
    javac = _tool("javac")
    digest = hashlib.sha256()
    for part in (os.path.realpath(javac), str(home.server_jar), home.version):
        digest.update(part.encode("utf-8") + b"\0")
    try:
        digest.update(str(home.server_jar.stat().st_mtime_ns).encode())
    except OSError as exc:
        raise UsageError(f"cannot read {home.server_jar}: {exc.strerror or exc}") from None
    for source in sources():
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    final = cache_root() / f"judge-{digest.hexdigest()[:20]}"
    if (final / "arouter" / "judge").is_dir():
        return final
    try:
        cache_root().mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".judge-", dir=cache_root()))
    except OSError as exc:
        raise UsageError(f"cannot write arouter's cache {cache_root()}: {exc.strerror or exc}") from None
    try:
        cmd = [javac, "-nowarn", "-encoding", "UTF-8", "-cp", str(home.lib / "*"), "-d", str(work),
               *map(str, sources())]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT, check=False,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise UsageError(f"javac did not finish within {COMPILE_TIMEOUT:.0f} s compiling arouter's driver "
                             f"against {home.describe()}") from None
        except OSError as exc:
            raise UsageError(f"cannot run javac: {exc.strerror or exc}") from None
        if done.returncode != 0:
            first = next((ln.strip() for ln in done.stderr.splitlines() if "error:" in ln), None) or \
                next((ln.strip() for ln in done.stderr.splitlines() if ln.strip()), f"exit {done.returncode}")
            if not home.has_routers:
                raise UsageError(f"the broker's own loader is not supported for Artemis {home.version} (broker "
                                 "balancers, before 2.21): arouter's driver uses the connection-router classes")
            raise UsageError(f"arouter's driver does not compile against {home.describe()}: {first}")
        try:
            os.rename(work, final)
        except OSError:
            if not (final / "arouter" / "judge").is_dir():
                raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    return final


def run_driver(home: BrokerHome, args: list[str], stdin: bytes = b"", *, timeout: float | None = None) -> str:
    """Run the driver with ``args``; its stdout (UTF-8). UsageError when the JVM fails or times out."""
    classes = classes_for(home)
    java = _tool("java")
    cmd = [java, HEAP, "-Xss8m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true",
           "-cp", f"{classes}{os.pathsep}{home.lib / '*'}", MAIN_CLASS, *args]
    limit = RUN_TIMEOUT if timeout is None else timeout
    # (run where arouter runs: relative properties paths mean the same to both; the driver writes nothing)
    try:
        done = subprocess.run(cmd, input=stdin, capture_output=True, timeout=limit, check=False)
    except subprocess.TimeoutExpired:
        raise UsageError(f"the broker's loader ({home.describe()}) did not finish within {limit:.0f} s "
                         "(AROUTER_JUDGE_TIMEOUT sets the limit)") from None
    except OSError as exc:
        raise UsageError(f"cannot start Java: {exc.strerror or exc}") from None
    if done.returncode != 0 or len(done.stdout) > MAX_OUTPUT_BYTES:
        lines = [ln.strip() for ln in done.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
        said = next((ln for ln in lines if "Error" in ln or "Exception" in ln), lines[0] if lines else "")
        raise UsageError(f"the JVM running the broker's loader failed (exit {done.returncode}): {said[:300]}")
    return done.stdout.decode("utf-8", "replace")


def java_properties(values: dict[str, str]) -> bytes:
    """``values`` in java.util.Properties text form (every character escaped that Properties.load reads
    specially), UTF-8: the driver reads it with a UTF-8 Reader."""
    def esc(text: str, key: bool) -> str:
        out = []
        for i, ch in enumerate(text):
            if ch in "\\=:#! " and (key or ch != " " or i == 0):
                out.append("\\" + ch)
            elif ch == "\t":
                out.append("\\t")
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\r":
                out.append("\\r")
            elif ch == "\f":
                out.append("\\f")
            else:
                out.append(ch)
        return "".join(out)

    return "".join(f"{esc(k, True)}={esc(v, False)}\n" for k, v in values.items()).encode("utf-8", "surrogatepass")
