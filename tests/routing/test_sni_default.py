"""``--sni-client default``: what a JSSE client that leaves SNI to the JDK sends (a client configured by
URL: the engine is made with the host, no ``SNIHostName`` set), held against the ClientHello a JDK
``SSLEngine`` writes (tests/routing/java/DefaultSniOracle.java). For a dotless host, an IP literal or a
name ``SNIHostName`` refuses the JDK sends no ``server_name``: the broker's key is NULL."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from artemis_routing_cli.routing.keys import NULL_KEY, connection_from_record, resolve_key
from artemis_routing_cli.routing.sni import jdk_default_sni
from tests.javacache import compiled

from .java import role_order_oracle as codec

pytestmark = pytest.mark.skipif(shutil.which("javac") is None or shutil.which("java") is None, reason="no JDK")
SOURCE = Path(__file__).resolve().parent / "java" / "DefaultSniOracle.java"

EDGES = ["\u00fcber", "EXAMPLE", "caf\u00e9", "caf\u00e9.example", "Broker1.Example.NET", "example.com.",
         "example.com..", "10.0.0.1", "10.1", "10.0.0.256", "1.2.3.4.5", "0x1.2", "::1", "[::1]", "my_host.example",
         ".example", "a..b", "localhost", "a.b", "a.", ".", "", "1.2.3.4.", "stra\u00dfe.de", "\U0001F600.example",
         "a" * 64 + ".b", "0.0.0.0", "4294967295", "1.16777215", "1.16777216", "\u0661.\u0662", "\uff11.\uff12",
         "a\u3002b"]
ATOMS = [*"ab0129.-_:", "\u00e9", "\u3002", "\uff0e", "\u00df", "\U0001F600", "\u0661", "XN--"]


@pytest.fixture(scope="module")
def classdir() -> Path:
    return compiled(SOURCE)


def _jdk(classdir: Path, names: list[str]) -> list[str | None]:
    proc = subprocess.run(["java", "-cp", str(classdir), "DefaultSniOracle"],
                          input="".join(codec.token(n) + "\n" for n in names), capture_output=True, text=True,
                          check=True, timeout=300)
    out = proc.stdout.split("\n")[:-1]
    assert len(out) == len(names), proc.stderr
    return [None if line == "-" else bytes.fromhex(line[1:]).decode("latin-1") for line in out]


def test_default_client_sends_what_the_jdk_sends(classdir: Path) -> None:
    rng = random.Random(17)
    plain = [*"abcxyz019"]

    def label() -> str:
        return "".join(rng.choice(ATOMS if rng.random() < 0.2 else plain) for _ in range(rng.randint(1, 6)))

    names = EDGES + [".".join(label() for _ in range(rng.randint(1, 3))) for _ in range(3000)]
    sent = _jdk(classdir, names)
    for name, jdk in zip(names, sent, strict=True):
        assert jdk_default_sni(name) == jdk, name
    assert sum(s is None for s in sent) > 300 and sum(s is not None for s in sent) > 300  # both well covered


def test_issue_hosts_are_null_keys() -> None:
    """The hosts the broker's own SNI handler gave NULL for: über, EXAMPLE, café."""
    for host in ("\u00fcber", "EXAMPLE", "caf\u00e9"):
        conn = connection_from_record("SNI_HOST", {"key": host}, "default")
        assert conn.sni_host is None
        assert resolve_key("SNI_HOST", None, conn).key == NULL_KEY
