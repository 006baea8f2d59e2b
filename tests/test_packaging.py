"""What the package says about itself holds: its licence file, and the Spark floor README names."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_apache_license_is_shipped_whole() -> None:
    assert PYPROJECT["project"]["license"] == {"text": "Apache-2.0"}
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert re.search(r"Apache License\s+Version 2\.0, January 2004", text)
    assert "END OF TERMS AND CONDITIONS" in text and "9. Accepting Warranty or Additional Liability." in text


def test_the_spark_floor_is_the_version_readme_names_and_the_suite_runs() -> None:
    [spec] = [d for d in PYPROJECT["project"]["optional-dependencies"]["spark"] if d.startswith("pyspark")]
    floor = int(re.fullmatch(r"pyspark>=(\d+)", spec.split(";")[0].strip()).group(1))
    assert f"PySpark {floor} or later" in (REPO / "README.md").read_text(encoding="utf-8")
    pyspark = pytest.importorskip("pyspark")
    assert int(pyspark.__version__.split(".")[0]) >= floor
