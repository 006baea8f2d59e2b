"""Output files are written whole or not at all; a path that cannot be written is a one-line error."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from artemis_routing_cli.errors import UsageError
from artemis_routing_cli.outfile import atomic_text, write_text
from tests.cli.helpers import arouter
from tests.conftest import SAMPLE


def test_write_replaces_the_whole_file(tmp_path: Path) -> None:
    dest = tmp_path / "report.json"
    dest.write_text("old\n", encoding="utf-8")
    write_text(str(dest), "new\n")
    assert dest.read_text(encoding="utf-8") == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_a_failure_while_writing_keeps_the_earlier_file_and_leaves_no_temp(tmp_path: Path) -> None:
    dest = tmp_path / "out.jsonl"
    dest.write_text("earlier\n", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_text(str(dest)) as fh:
        fh.write("half a record")
        raise RuntimeError("the run failed")
    assert dest.read_text(encoding="utf-8") == "earlier\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_permissions_follow_the_umask_or_the_existing_file(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        fresh = tmp_path / "fresh.txt"
        write_text(str(fresh), "x")
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o640
        kept = tmp_path / "kept.txt"
        kept.write_text("x", encoding="utf-8")
        kept.chmod(0o604)
        write_text(str(kept), "y")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o604
    finally:
        os.umask(old)


@pytest.mark.parametrize("where", ["missing-dir/out.txt", "."])
def test_unwritable_paths_are_usage_errors(tmp_path: Path, where: str) -> None:
    with pytest.raises(UsageError) as info:
        write_text(str(tmp_path / where), "x", what="report")
    assert "cannot write the report" in str(info.value)


def test_validate_to_a_missing_folder_is_exit_2_with_one_line(tmp_path: Path) -> None:
    target = tmp_path / "nope" / "out.json"
    run = arouter("validate", "-f", "json", "-o", str(target), str(SAMPLE))
    assert run.code == 2
    assert run.err.strip().splitlines() == [f"arouter: {target}: cannot write the report: No such file or directory"]


def test_batch_records_to_a_missing_folder_is_exit_2(tmp_path: Path) -> None:
    keys = tmp_path / "keys.txt"
    keys.write_text("FOO1\nBAR2\n", encoding="utf-8")
    run = arouter("simulate", "-c", str(SAMPLE), "-r", "sticky-router", "--keys-file", str(keys),
                  "-o", str(tmp_path / "no" / "x.jsonl"))
    assert run.code == 2
    assert "cannot write the records: No such file or directory" in run.err
    assert "Traceback" not in run.err and "internal error" not in run.err


def test_output_without_a_batch_is_refused() -> None:
    run = arouter("simulate", "-c", str(SAMPLE), "-k", "CLIENT_ID=FOO1", "-o", "out.json")
    assert run.code == 2
    assert "--output writes the records of a --keys-file batch" in run.err
