"""The user's own Artemis installation (``--broker-home``, ``$ARTEMIS_HOME``): where it is, which
version it is, and the jar that holds its schema and its loader.

The version is read from the installation's jars, never guessed from the folder's name: the
``Implementation-Version`` of ``lib/artemis-server-*.jar``'s manifest (its file name as a fallback).
Everything is read with bounds: a manifest is a few hundred bytes, an XSD a few hundred KiB.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError

# The manifest of artemis-server is ~350 bytes; 64 KiB is far more than any manifest has.
MAX_MANIFEST_BYTES = 64 * 1024
# Artemis renamed broker-balancers to connection-routers in 2.21.0 (ARTEMIS-3365).
ROUTERS_SINCE = (2, 21)
OLDEST_KNOWN = (2, 18)  # the first release with broker balancers
_JAR = re.compile(r"artemis-server-(\d+\.\d+\.\d+)(?:[.-][\w.-]*)?\.jar")
_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)(?:[.-][\w.-]*)?")


@dataclass(frozen=True, slots=True)
class BrokerHome:
    """One Artemis installation: ``path`` holds ``bin/artemis`` and ``lib/``."""

    path: Path
    version: str  # as the jar says it, e.g. "2.40.0"
    server_jar: Path

    @property
    def lib(self) -> Path:
        return self.path / "lib"

    @property
    def release(self) -> tuple[int, int, int]:
        m = _VERSION.fullmatch(self.version)
        assert m is not None  # checked when the home was read
        return int(m.group(1)), int(m.group(2)), int(m.group(3))

    @property
    def minor(self) -> tuple[int, int]:
        return self.release[:2]

    @property
    def has_routers(self) -> bool:
        """Whether this version names them connection routers (2.21+) rather than broker balancers."""
        return self.minor >= ROUTERS_SINCE

    def describe(self) -> str:
        return f"Artemis {self.version} at {self.path}"


def looks_like_home(path: Path) -> bool:
    """A quick look: a ``lib`` folder with an ``artemis-server`` jar."""
    try:
        return any(_JAR.fullmatch(p.name) for p in (path / "lib").iterdir())
    except OSError:
        return False


def read_broker_home(text: str, *, option: str = "--broker-home") -> BrokerHome:
    """The installation at ``text``; UsageError (one line) when it holds no broker arouter can read."""
    path = Path(text).expanduser()
    if not path.is_dir():
        raise UsageError(f"{option} {text}: no such directory")
    lib = path / "lib"
    try:
        jars = sorted(p for p in lib.iterdir() if _JAR.fullmatch(p.name)) if lib.is_dir() else []
    except OSError as exc:
        raise UsageError(f"{option} {text}: cannot read {lib}: {exc.strerror or exc}") from None
    if not jars:
        raise UsageError(f"{option} {text}: no Artemis installation there (no lib/artemis-server-*.jar)",
                         hint=_instance_hint(path))
    if len(jars) > 1:
        raise UsageError(f"{option} {text}: more than one artemis-server jar in lib/ "
                         f"({', '.join(p.name for p in jars)}): which version is this?")
    jar = jars[0]
    version = _manifest_version(jar, option, text)
    named = _JAR.fullmatch(jar.name)
    version = version or (named.group(1) if named else "")
    m = _VERSION.fullmatch(version)
    if m is None:
        raise UsageError(f"{option} {text}: cannot read the Artemis version of {jar.name}")
    if (int(m.group(1)), int(m.group(2))) < OLDEST_KNOWN:
        raise UsageError(f"{option} {text}: Artemis {version} has no connection routing "
                         f"(broker balancers came in {'.'.join(map(str, OLDEST_KNOWN))})")
    return BrokerHome(path.resolve(), version, jar.resolve())


def _manifest_version(jar: Path, option: str, text: str) -> str | None:
    try:
        with zipfile.ZipFile(jar) as z:
            info = z.getinfo("META-INF/MANIFEST.MF")
            if info.file_size > MAX_MANIFEST_BYTES:
                return None
            with z.open(info) as fh:
                manifest = fh.read(MAX_MANIFEST_BYTES).decode("utf-8", "replace")
    except KeyError:
        return None
    except (OSError, zipfile.BadZipFile) as exc:
        raise UsageError(f"{option} {text}: cannot read {jar.name}: {exc}") from None
    for line in manifest.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "Implementation-Version" and value.strip():
            return value.strip()
    return None


def _instance_hint(path: Path) -> str | None:
    """When ``path`` is a broker *instance*, where its home is (its etc/artemis.profile says)."""
    profile = path / "etc" / "artemis.profile"
    try:
        if not profile.is_file() or profile.stat().st_size > MAX_MANIFEST_BYTES:
            return None
        text = profile.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(r"^ARTEMIS_HOME=['\"]?([^'\"\n]+)", text, re.M)
    where = f"; its home is {m.group(1)}" if m else ""
    return f"{path} is a broker instance, not an installation{where}"
