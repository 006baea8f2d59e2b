"""The broker's reader on bytes that are not UTF-8, held against the JDK.

The broker reads broker.xml (and, in 2.38 to 2.40, broker properties files; a ``.json`` one in every
version) through ``new InputStreamReader(stream)`` in the JVM's default charset: UTF-8 on JDK 18+
(JEP 400), the locale's on JDK 17. Java's UTF-8 decoder replaces each malformed sequence with one
U+FFFD by its own rules, not Python's: an encoded surrogate (``ED A0 BD``, as CESU-8 writes half of
an emoji) is one U+FFFD for three bytes where Python's ``'replace'`` gives three. ``javastr.
java_utf8_decode_marked`` follows Java; this test holds it, and the places it marks, against the JDK
on chosen and random bytes, across the reader's 8192-byte buffer too.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

from artemis_routing_cli.javastr import java_utf8_decode_marked
from tests.javacache import compiled
from tests.javarun import needs_jdk

SOURCE = Path(__file__).resolve().parent / "java" / "Utf8ReaderOracle.java"

CHOSEN: list[bytes] = [
    b"ab", b"\xed\xa0\xbd\xed\xb8\x80", b"[\xed\xa0\xbd\xed\xb8\x80-\xed\xa0\xbd\xed\xb9\x8f]", b"\xc3\xa9",
    b"\xc3", b"\xc3a", b"\xe2\x82", b"\xe2\x82a", b"\xe0\x80\x80", b"\xe0\xa0", b"\xf0\x9f\x98", b"\xf0\x9f",
    b"\xf0\x9f\x98\x80", b"\xf4\x90\x80\x80", b"\xf5\x80", b"\xf8\x88\x80\x80\x80", b"\x80\x80", b"\xff\xfe",
    b"\xef\xbf\xbd", b"\xc0\xaf", b"\xc1\xbf", b"\xed\xbf\xbf", b"\xee\x80\x80", b"\xf0\x80\x80\x80",
    b"a" * 8191 + b"\xed\xa0\xbd", b"a" * 8190 + b"\xed\xa0\xbd", b"a" * 8191 + b"\xf0\x9f\x98\x80",
    b"a" * 8190 + b"\xe2\x82", b"a" * 8189 + b"\xf0\x9f\x98" + b"z",
]


def _random_cases(seed: int, count: int) -> list[bytes]:
    rng = random.Random(seed)
    alphabet = [0x41, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEE, 0xEF, 0xF0,
                0xF1, 0xF4, 0xF5, 0xF8, 0xFF]
    return [bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 9))) for _ in range(count)]


def _jdk(cases: list[bytes]) -> list[str]:
    needs_jdk()
    classes = compiled(SOURCE)
    proc = subprocess.run(["java", "-cp", str(classes), "Utf8ReaderOracle"],
                          input="".join(c.hex() + "\n" for c in cases).encode("ascii"),
                          capture_output=True, check=True, timeout=300)
    answers = []
    for line in proc.stdout.decode("ascii").splitlines():
        answers.append("" if line == "-" else "".join(chr(int(u, 16)) for u in line.split(",")))
    assert len(answers) == len(cases)
    return answers


def _utf16(text: str) -> str:
    """``text`` as Java's UTF-16 units, one char per unit."""
    data = text.encode("utf-16-be", "surrogatepass")
    return "".join(chr(int.from_bytes(data[i:i + 2], "big")) for i in range(0, len(data), 2))


def test_the_reader_decodes_as_java_does() -> None:
    cases = CHOSEN + _random_cases(36, 3000)
    for data, java in zip(cases, _jdk(cases), strict=True):
        assert _utf16(java_utf8_decode_marked(data)[0]) == java, data[-12:].hex()


def test_the_marks_are_the_replacements_of_malformed_bytes() -> None:
    text, marks = java_utf8_decode_marked(b"[\xed\xa0\xbd\xed\xb8\x80-\xef\xbf\xbd]")
    assert text == "[\ufffd\ufffd-\ufffd]"
    assert marks == [(1, 1), (2, 4)]  # a U+FFFD written as such is no replacement
    text, marks = java_utf8_decode_marked(b"ok \xc3\xa9")
    assert (text, marks) == ("ok \u00e9", [])
