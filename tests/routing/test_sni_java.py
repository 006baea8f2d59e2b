"""SNI_HOST: what a Java client sends (IDN.toASCII with STD3 rules, SNIHostName) and how Netty reads
bytes (one char per byte, toLowerCase(Locale.US)), held against the JDK on random and edge names."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from artemis_routing_cli.routing.keys import Connection, resolve_key, sni_from_host, sni_host_key
from artemis_routing_cli.routing.sni import SniNameError, java_idn_to_ascii, java_sni_host_name, sni_as_received
from tests.javacache import compiled

from .java import role_order_oracle as codec

pytestmark = pytest.mark.skipif(shutil.which("javac") is None or shutil.which("java") is None, reason="no JDK")
SOURCE = Path(__file__).resolve().parent / "java" / "SniOracle.java"

ATOMS = [*"abcXYZ019-_ .", "\u3002", "\uff0e", "\uff61", "\u00e9", "\u00c9", "\u00df", "\u0130", "\u0131", "\u03a3",
         "\u03c2", "\uff21", "\U0001F600", "\u0627", "\u0628", "\u05e9", "\u0301", "\u00ad", "\u200d", "\u0221",
         "\u0378", "\u4e2d", "\ufb01", "\u2122", "\u2177", "\ud800", "\x00", "xn--", "XN--", "\u00fc", "\u2024",
         "\u0660", "\u05be", "\U000E0001", "\u1806", "\u200b", "\ufeff", "\u3000", "\u2028", "K", "\u212a", "\u01c5",
         "\u0340", "\U0001D400", "\U00020000", "\U0002FFFF"]
EDGES = ["a" * 63, "a" * 64, "\u00e9" * 30, "\u00e9" * 60, ".", "\u3002", "a.", "a..b", "", "-a", "a-", "A.B.", ".a",
         "xn--abc", "caf\u00e9.example", "CAF\u00c9", "stra\u00dfe.de", "Broker-1.Example.NET", "my_host", "a b",
         "\U0001F600.example", "\uff21\uff22\uff23.example", "\u0130stanbul"]


@pytest.fixture(scope="module")
def classdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compiled(SOURCE)


def _java(classdir: Path, lines: list[str]) -> list[str]:
    proc = subprocess.run(["java", "-cp", str(classdir), "SniOracle"], input="".join(x + "\n" for x in lines),
                          capture_output=True, text=True, check=True, timeout=300)
    out = proc.stdout.split("\n")[:-1]
    assert len(out) == len(lines), proc.stderr
    return out


def _ours(fn, name: str) -> str:  # type: ignore[no-untyped-def]
    try:
        return codec.token(fn(name))
    except SniNameError:
        return "!"


def test_java_client_names_match_idn_and_snihostname(classdir: Path) -> None:
    rng = random.Random(2003)
    safe = [*"abcXYZ019-.", "\u00e9", "\u00c9", "\u00df", "\u0130", "\u03a3", "\uff21", "\u4e2d", "\u00ad", "\u3002",
            "\u212a", "\ufb01", "\u00fc"]
    names = ["".join(rng.choice(ATOMS if rng.random() < 0.5 else safe) for _ in range(rng.randint(0, 12)))
             for _ in range(6000)] + EDGES
    answers = _java(classdir, [codec.token(n) for n in names])
    refused = 0
    for name, line in zip(names, answers, strict=True):
        idn, sni = line.split("\t")
        assert _ours(java_idn_to_ascii, name) == idn, name
        assert _ours(java_sni_host_name, name) == sni, name
        refused += sni == "!"
    assert 1000 < refused < len(names) - 1000, refused  # both kinds well covered


def test_python_idna_codec_alone_is_not_java(classdir: Path) -> None:
    """Why arouter does not just use Python's codec: no STD3 rules (underscores pass), unassigned
    code points allowed, a trailing dot kept."""
    assert "my_host".encode("idna") == b"my_host"
    with pytest.raises(SniNameError):
        java_sni_host_name("my_host")
    assert "\u0221x".encode("idna").startswith(b"xn--")
    with pytest.raises(SniNameError):
        java_sni_host_name("\u0221x")


def test_netty_lower_case_of_every_byte_matches_the_jdk(classdir: Path) -> None:
    data = bytes(range(256))
    (answer,) = _java(classdir, ["lower " + data.hex()])
    assert sni_host_key(data.decode("latin-1")) == codec.untoken(answer)


def test_key_is_what_the_broker_reads() -> None:
    assert resolve_key("SNI_HOST", None, Connection(sni_host=sni_from_host("CAF\u00c9.Example"))).key \
        == "xn--caf-dma.example"
    assert resolve_key("SNI_HOST", None, Connection(sni_host=sni_from_host("Stra\u00dfe.DE"))).key == "strasse.de"
    raw = sni_as_received("\u0130stanbul", "raw")
    assert raw == "\u00c4\u00b0stanbul" and sni_host_key(raw) == "\u00e4\u00b0stanbul"
