"""SourceAddress.java (the JVM path's SOURCE_IP key) against the engine, on the JDK, no Spark:
every address form simulate accepts (IPv4, IPv6, IPv4 tails, mapped, scopes, ports, Java's own
``/host:port`` text) and thousands of near-misses give the same key, or are refused by both."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from artemis_routing_cli.pipeline.jvm_udf import JAVA_DIR, source_key
from tests.javacache import compiled

HARNESS = """
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

public final class Harness {
    public static void main(String[] args) throws IOException {
        boolean nat = args[0].equals("1");
        boolean every = args[1].equals("1");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out), false, "US-ASCII");
        HexFormat hex = HexFormat.of();
        for (String line; (line = in.readLine()) != null; ) {
            String value = new String(hex.parseHex(line), StandardCharsets.UTF_8);
            String key = arouter.udf.SourceAddress.key(value, nat, every);
            out.println(key == null ? "-" : hex.formatHex(key.getBytes(StandardCharsets.UTF_8)));
        }
        out.flush();
    }
}
"""

GIVEN = [
    "10.0.0.1", "10.0.0.1:5000", " 10.0.0.1 ", "\u00a010.0.0.1\u2007", "\x8510.0.0.1", "10.0.0.1:",
    "010.0.0.1", "10.0.0.256", "10.0.0", "10.0.0.1.", "1.2.3.4:٣", "1.2.3.4:5:6", "1.2.3.4%1",
    "::1", "[::1]", "[::1]:5000", "::", "[::]", "0::0", "::1%0", "::1%00", "::1%007", "::1%", "::1%x", "::1%1%2",
    "fe80::1", "fe80::1%2", "[fe80::1%2]:99", "febf::1", "fec0::1", "FE80::AbCd", "::ffff:1.2.3.4",
    "::ffff:102:304", "[::ffff:10.0.0.1]:1", "::1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:8",
    "1:2:3:4:5:6:7:8:9", "1::2::3", ":1:2:3:4:5:6:7", "1:2:3:4:5:6:7:", "1::", "::1:", ":::", "12345::1",
    "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8::", "1:2:3:4:5:6:1.2.3", "g::1", "１::1",
    "/10.0.0.1:5000", " /[0:0:0:0:0:0:0:1%0]:5000", "/garbage", "/", "/a:", "[]", "[::1", "::1]", "[1.2.3.4]",
    "[::1]:", "[::1]x", "[::1]:5x", "", " ", "FOO1", "10.0.0.1\n", "[::1]\t", "ffff::%1", "0:0:0:0:0:ffff:a:b%3",
]


def _fuzz(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = list("0123456789abcdefABCDEF:.%[]/ ") + ["0", ":", ".", "ff", "::", "1.2.3.4", "fe80", "ffff",
                                                        "\u00a0", "\u3000", "٣", "１", "\u2028", "\x85", "é"]
    out = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 14))) for _ in range(n // 2)]
    while len(out) < n:  # addresses, then one edit (a char dropped, doubled or replaced) half the time
        v6 = ":".join(rng.choice(["0", "1", "fe80", "ffff", "abcd", "00ff", ""]) for _ in range(rng.randrange(3, 9)))
        v4 = ".".join(str(rng.choice([0, 1, 10, 127, 255, 256, 7])) for _ in range(4))
        base = rng.choice([v4, v6, v6 + "%" + rng.choice(["0", "2", "01", ""]), f"[{v6}]:{rng.randrange(99)}",
                           f"{v4}:{rng.randrange(99)}", f"::ffff:{v4}", f"{v6}:{v4}"])
        if base and rng.random() < 0.5:
            i = rng.randrange(len(base))
            base = base[:i] + rng.choice(["", base[i] * 2, rng.choice(alphabet)]) + base[i + 1:]
        out.append(base)
    return out


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Path:
    javac = shutil.which("javac")
    if javac is None or shutil.which("java") is None:
        pytest.skip("no JDK")
    src = tmp_path_factory.mktemp("harness")
    (src / "Harness.java").write_text(HARNESS, encoding="utf-8")
    return compiled(JAVA_DIR / "SourceAddress.java", src / "Harness.java", options=(), timeout=300)


def _java_keys(classes: Path, values: list[str], native: bool, every: bool) -> list[str | None]:
    java = shutil.which("java")
    assert java is not None
    data = "".join(v.encode("utf-8").hex() + "\n" for v in values)
    proc = subprocess.run([java, "-cp", str(classes), "Harness", "1" if native else "0", "1" if every else "0"],
                          input=data, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    return [None if line == "-" else bytes.fromhex(line).decode("utf-8") for line in proc.stdout.splitlines()]


@pytest.mark.parametrize(("native", "broker"), [(True, (2, 41)), (True, (2, 35)), (False, (2, 41))])
def test_java_source_key_equals_the_engine(harness: Path, native: bool, broker: tuple[int, int]) -> None:
    values = GIVEN + _fuzz(6000, hash(broker) & 0xFFFF ^ native)
    got = _java_keys(harness, values, native, broker < (2, 36))
    want = [source_key(v, native, broker) for v in values]
    diffs = [(v, g, w) for v, g, w in zip(values, got, want, strict=True) if g != w]
    assert diffs == []
    assert sum(w is not None for w in want) > 800  # the fuzz reaches addresses, not only garbage


def test_java_strips_what_python_strips() -> None:
    text = (JAVA_DIR / "SourceAddress.java").read_text(encoding="utf-8")
    listed = text.split('PY_SPACE = "', 1)[1].split(";", 1)[0]
    chars = "".join(part.split('"', 1)[0] for part in listed.split('+ "'))
    decoded = chars.encode("ascii").decode("unicode_escape")
    assert decoded == "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())
