"""The real Apache ActiveMQ Artemis binary distribution, from Maven Central, for the tests that use a
real broker or its classes (``org.apache.activemq:apache-artemis:VERSION:tar.gz:bin``).

``.ci/run`` fetches the versions in ``CI_VERSIONS`` into the local Maven repository (``mvn
dependency:get``, cached there between runs); a test asks :func:`artemis_home` for an unpacked copy,
made once per machine under ``~/.cache/arouter-tests/artemis/`` (or ``$AROUTER_ARTEMIS_CACHE``).
Where the tarball is missing the test skips, and fails in CI (``tests/real_clients.need``).
Nothing of the distribution is ever copied into the repository."""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
from pathlib import Path

#: The distributions .ci/run fetches: the newest served release the suite runs against.
CI_VERSIONS = ("2.40.0",)
DEFAULT_VERSION = CI_VERSIONS[0]


def m2_tarball(version: str) -> Path:
    """Where ``mvn dependency:get`` leaves the distribution's tarball in the local repository."""
    repo = Path(os.environ.get("MAVEN_REPO_LOCAL", Path.home() / ".m2" / "repository"))
    return repo / "org/apache/activemq/apache-artemis" / version / f"apache-artemis-{version}-bin.tar.gz"


def cache_root() -> Path:
    return Path(os.environ.get("AROUTER_ARTEMIS_CACHE", Path.home() / ".cache" / "arouter-tests" / "artemis"))


def fetch_command(version: str) -> str:
    return (f"mvn -q dependency:get -Dtransitive=false "
            f"-Dartifact=org.apache.activemq:apache-artemis:{version}:tar.gz:bin")


def artemis_home(version: str = DEFAULT_VERSION) -> Path:
    """An unpacked distribution of ``version`` (its ``bin/artemis`` and ``lib/``), unpacked once.

    Concurrent test workers may both unpack: each unpacks into a folder of its own and renames it into
    place; the loser of the race removes its copy and uses the winner's."""
    home = cache_root() / version / f"apache-artemis-{version}"
    if (home / "bin" / "artemis").is_file():
        return home
    from tests.real_clients import need  # pytest: not needed to read CI_VERSIONS (.ci/run, before pip)

    tarball = m2_tarball(version)
    need(tarball.is_file(), f"the Artemis {version} distribution ({fetch_command(version)})")
    (cache_root() / version).mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".unpack-", dir=cache_root() / version))
    try:
        with tarfile.open(tarball) as archive:
            archive.extractall(scratch, filter="tar")
        try:
            os.rename(scratch / f"apache-artemis-{version}", home)
        except OSError:
            if not (home / "bin" / "artemis").is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return home
