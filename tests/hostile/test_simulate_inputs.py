"""simulate's own inputs (keys files, messages, -p, --targets): one located line and exit 2, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import LOCATED, SAMPLE, assert_clean, capped

HUGE = "1" * 5000


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    path = tmp_path / "broker.xml"
    path.write_text(SAMPLE)
    return path


@pytest.mark.parametrize(("name", "content", "expected"), [
    ("k.jsonl", '{"client_id": ' + HUGE + "}\n", "5,000 digits"),
    ("k.jsonl", '{"client_id": ' + "[" * 100_000 + "]" * 100_000 + "}\n", "nested deeper"),
    ("k.jsonl", '{"client_id": NaN}\n', "NaN"),
    ("k.jsonl", '{"client_id": 1e999}\n', "out of range"),
], ids=["digits", "deep", "nan", "inf"])
def test_keys_files_outside_the_bounds_are_one_located_line(tmp_path: Path, sample: Path, name: str, content: str,
                                                            expected: str) -> None:
    keys = tmp_path / name
    keys.write_text(content)
    run = capped("simulate", "-c", str(sample), "--keys-file", str(keys), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert_clean(run, 2)
    assert LOCATED.match(run.err) and expected in run.err, run.err
    assert not (tmp_path / "out").exists()


def test_csv_field_over_128_kib_is_a_key(tmp_path: Path, sample: Path) -> None:
    keys = tmp_path / "k.csv"
    keys.write_text("client_id\n" + "a" * 200_000 + "\n")
    run = capped("simulate", "-c", str(sample), "-r", "simple-router", "--keys-file", str(keys), "-f", "jsonl",
                 cwd=tmp_path)
    assert_clean(run, 0)
    assert run.out.count("\n") == 1


@pytest.mark.parametrize(("content", "expected"), [
    ('{"properties": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested deeper"),
    ('{"properties": {"a": ' + HUGE + "}}", "5,000 digits"),
    ('{"properties": {"a": Infinity}}', "Infinity"),
], ids=["deep", "digits", "inf"])
def test_message_files_outside_the_bounds_are_one_located_line(tmp_path: Path, sample: Path, content: str,
                                                               expected: str) -> None:
    message = tmp_path / "m.json"
    message.write_text(content)
    run = capped("simulate", "-c", str(sample), "-a", "q", "--message", str(message), cwd=tmp_path)
    assert_clean(run, 2)
    assert LOCATED.match(run.err) and expected in run.err, run.err


@pytest.mark.parametrize("value", [HUGE, HUGE + "L", "long:" + HUGE, "-" + HUGE], ids=["int", "L", "long", "neg"])
def test_property_of_thousands_of_digits_is_a_usage_error(sample: Path, value: str) -> None:
    run = capped("simulate", "-c", str(sample), "-a", "q", "-p", f"a={value}")
    assert_clean(run, 2)
    assert "does not fit" in run.err or "range" in run.err, run.err


def test_targets_file_nested_deeply_is_one_located_line(tmp_path: Path, sample: Path) -> None:
    targets = tmp_path / "t.json"
    targets.write_text('{"targets": ' + "[" * 100_000 + "]" * 100_000 + "}")
    run = capped("simulate", "-c", str(sample), "--targets", str(targets), "-k", "CLIENT_ID=FOO1", cwd=tmp_path)
    assert_clean(run, 2)
    assert LOCATED.match(run.err), run.err
