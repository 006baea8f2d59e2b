"""The Properties reader against the JDK's own ``java.util.Properties.load`` (PropsOracle.java).

Edge cases written by hand and a few thousand random files built from the characters that matter
(separators, blanks, backslashes, ``u`` escapes, comment marks, every kind of line end) are loaded
by both; keys, values and their order must be equal, and so must the files the JDK rejects.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from artemis_routing_cli.config.properties.syntax import PropertiesSyntaxError, load_properties
from tests.javacache import compiled

HERE = Path(__file__).parent
pytestmark = pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK")

EDGES = [
    "a=b\n",
    "a = b \n",
    "a:b\nc d\ne\tf\ng\fh\n",
    "  # comment\n! other\nkey=value\n",
    "keyFilter=^\\d+\n",
    "keyFilter=^\\\\d+\n",
    "a=b\\\n   c\n",
    "a=b\\\\\nc=d\n",
    "a=\\u0041\\u00e9\n",
    "a=\\u004\n",
    "a=\\uZZZZ\n",
    "a=b\\",
    "a=1\na=2\nb=3\na=4\n",
    "\\\n#not a key\nx=1\n",
    "a=b\\\n\nc=d\n",
    "a=b\r\nc=d\rE=F\n",
    "a=b\\\r\n  c\r\n",
    "key\\ with\\ spaces = v\n",
    "k\\=e\\:y=v\n",
    "==\n",
    ":=x\n",
    "a==b\n",
    "a = = b\n",
    "a\n",
    "   \n\t\f\n",
    "# only comments\n",
    "a=\\t\\n\\r\\f\\x\n",
    "a=b\\\n# not a comment\n",
    "\\u0061=1\n",
    "caf\xe9=\xff\n",
    "a=b\\\n  \\\n  c\n",
    "\\",
    "\\\n",
    "\\\r",
    "\\\r\n",
    "  \\\n\n",
    "x\\\n\\\n",
    "a=b\\\\\\\nc\n",
]


def _oracle() -> Path:
    return compiled(HERE / "PropsOracle.java", options=())


def _jdk(classes: Path, files: list[Path]) -> list[list[tuple[str, str]] | str]:
    result = subprocess.run(["java", "-cp", str(classes), "PropsOracle", *map(str, files)], check=True,
                            capture_output=True, text=True)
    answers: list[list[tuple[str, str]] | str] = []
    for line in result.stdout.splitlines():
        kind, _, rest = line.partition(" ")
        if kind == "FILE":
            answers.append([])
        elif kind == "X":
            answers[-1] = "error"
        else:
            key, value = rest.split(" ")
            current = answers[-1]
            assert isinstance(current, list)
            current.append((_unhex(key), _unhex(value)))
    return answers


def _unhex(text: str) -> str:
    return "" if text == "-" else "".join(chr(int(text[i:i + 4], 16)) for i in range(0, len(text), 4))


def _ours(data: bytes) -> list[tuple[str, str]] | str:
    try:
        return [(e.key, e.value) for e in load_properties(data.decode("iso-8859-1"))]
    except PropertiesSyntaxError:
        return "error"


def _random_file(rng: random.Random) -> bytes:
    atoms = ["a", "b", "K", "=", ":", " ", "\t", "\f", "\\", "\\\\", "\\u0041", "\\u00", "\\uzz12", "#", "!",
             "\n", "\r", "\r\n", "\\\n", "\\\r\n", "x.y", "\"q\"", "\xe9", "u"]
    return "".join(rng.choice(atoms) for _ in range(rng.randint(0, 40))).encode("iso-8859-1")


def test_reader_equals_the_jdk(tmp_path: Path) -> None:
    classes = _oracle()
    rng = random.Random(19)
    inputs = [e.encode("iso-8859-1") for e in EDGES] + [_random_file(rng) for _ in range(3000)]
    files = []
    for n, data in enumerate(inputs):
        f = tmp_path / f"in{n}.properties"
        f.write_bytes(data)
        files.append(f)
    expected = _jdk(classes, files)
    assert len(expected) == len(inputs)
    mismatches = [(data, want, _ours(data)) for data, want in zip(inputs, expected, strict=True) if _ours(data) != want]
    assert mismatches == []


def test_lines_and_first_place_of_a_repeated_key() -> None:
    entries = load_properties("# c\na=1\n\nb=2\\\n  3\na=4\n")
    assert [(e.key, e.value, e.line, e.first_line) for e in entries] == [("a", "4", 6, 2), ("b", "23", 4, 4)]


def test_bad_unicode_escape_names_its_line() -> None:
    with pytest.raises(PropertiesSyntaxError) as err:
        load_properties("a=1\nb=\\u12\n")
    assert err.value.line == 2
