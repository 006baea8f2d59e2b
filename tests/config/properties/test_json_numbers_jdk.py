"""JSON numbers in the JSON form become the text ``BigDecimal.toString()`` gives (non-integers):
arouter's conversion against the JDK's own BigDecimal."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from artemis_routing_cli.config.properties.jsonform import load_json
from tests.javacache import compiled

HERE = Path(__file__).parent
NUMBERS = ["1e3", "1.50", "0.0000001", "1E-7", "123.456e5", "-2.5E-10", "0.000001", "1e0", "10.0", "-0.0",
           "1.0E+2", "5e-1", "12345678901234567890.5"]


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK")
def test_non_integer_numbers_read_as_bigdecimal_text(tmp_path: Path) -> None:
    classes = compiled(HERE / "BigDecimalOracle.java", options=())
    java = subprocess.run(["java", "-cp", str(classes), "BigDecimalOracle", *NUMBERS], check=True,
                          capture_output=True, text=True).stdout.splitlines()
    ours = [value for _, value, _ in load_json("{" + ", ".join(f'"k{i}": {n}' for i, n in enumerate(NUMBERS)) + "}")]
    assert ours == java


def test_integers_read_as_longs() -> None:
    assert [v for _, v, _ in load_json('{"a": 60000, "b": -0, "c": -12}')] == ["60000", "0", "-12"]
