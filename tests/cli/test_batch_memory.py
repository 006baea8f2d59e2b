"""``simulate --keys-file`` holds a chunk of a keys file (text, CSV, JSON lines), not the file: its peak
memory does not grow with the number of keys (issue 21), to stdout or to ``-o FILE``; and what streaming changes about
reading the file (its bounds, a file changed between its check and its routing)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")

from artemis_routing_cli.cli import simulate_batch as sb  # noqa: E402
from artemis_routing_cli.errors import UsageError  # noqa: E402
from tests.conftest import broker_xml  # noqa: E402

ROUTER = """
<connectors><connector name="c1">tcp://h1:61616</connector><connector name="c2">tcp://h2:61616</connector>
  <connector name="c3">tcp://h3:61616</connector></connectors>
<connection-routers><connection-router name="hash">
  <key-type>CLIENT_ID</key-type>
  <policy name="CONSISTENT_HASH"/>
  <pool><static-connectors><connector-ref>c1</connector-ref><connector-ref>c2</connector-ref>
    <connector-ref>c3</connector-ref></static-connectors></pool>
</connection-router></connection-routers>"""
SMALL = 100_000
KF = "artemis_routing_cli.cli.keys_file"
# The old code held the whole file (twice, while joining what it read): some 100 bytes per key of
# 48 bytes; a streaming batch holds the same chunk whatever the number of keys.
BYTES_PER_EXTRA_KEY = 8


def _keys(path: Path, n: int) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        for start in range(0, n, 10_000):
            fh.write("".join(f"client-{i:09d}-{'é' * 8}-{'x' * 21}\n" for i in range(start, min(n, start + 10_000))))
    return path


def _peak_rss_bytes(args: list[str], cwd: Path) -> int:
    """The child's peak resident memory (its own ru_maxrss, from wait4)."""
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, err
    return usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)


@pytest.mark.skipif(not hasattr(os, "wait4"), reason="needs wait4 for a child's peak memory")
@pytest.mark.parametrize("to_file", [False, True])
def test_peak_memory_is_flat_in_the_number_of_keys(tmp_path: Path, to_file: bool) -> None:
    cfg = tmp_path / "broker.xml"
    cfg.write_text(broker_xml(ROUTER), encoding="utf-8")
    small, big = _keys(tmp_path / "small.txt", SMALL), _keys(tmp_path / "big.txt", 8 * SMALL)
    assert big.stat().st_size > 8 * SMALL * 48

    def peak(keys: Path) -> int:
        out = ["-o", str(tmp_path / "out.jsonl")] if to_file else []
        return _peak_rss_bytes([sys.executable, "-m", "artemis_routing_cli", "simulate", "-c", str(cfg),
                                "--keys-file", str(keys), *out], tmp_path)

    grown = peak(big) - peak(small)
    assert grown < BYTES_PER_EXTRA_KEY * 7 * SMALL, f"{grown / (7 * SMALL):.1f} bytes per extra key"


# A CSV file's records (a dict each) were held whole: some 400 bytes per key before; now a chunk.
CSV_SMALL = 50_000


@pytest.mark.skipif(not hasattr(os, "wait4"), reason="needs wait4 for a child's peak memory")
def test_peak_memory_is_flat_in_the_number_of_keys_of_a_csv_file(tmp_path: Path) -> None:
    cfg = tmp_path / "broker.xml"
    cfg.write_text(broker_xml(ROUTER), encoding="utf-8")

    def peak(n: int) -> int:
        keys = tmp_path / f"keys-{n}.csv"
        with keys.open("w", encoding="utf-8", newline="") as fh:
            fh.write("client_id,user_name\n")
            fh.writelines(f"client-{i:09d}-{'é' * 4},user-{i}\n" for i in range(n))
        return _peak_rss_bytes([sys.executable, "-m", "artemis_routing_cli", "simulate", "-c", str(cfg),
                                "--keys-file", str(keys), "-o", str(tmp_path / "out.jsonl")], tmp_path)

    grown = peak(8 * CSV_SMALL) - peak(CSV_SMALL)
    assert grown < BYTES_PER_EXTRA_KEY * 7 * CSV_SMALL, f"{grown / (7 * CSV_SMALL):.1f} bytes per extra key"


def test_a_text_file_is_bounded_by_its_longest_line_not_its_size(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(f"{KF}.MAX_KEY_LINE_BYTES", 10)
    monkeypatch.setattr(f"{KF}.TEXT_CHUNK_BYTES", 4)
    text = tmp_path / "keys.txt"
    text.write_text("k1\n" * 40, encoding="utf-8")  # 120 bytes: twelve longest lines, streamed
    assert sb.load_keys(str(text)).keys() == ["k1"] * 40
    csv = tmp_path / "keys.csv"  # CSV and JSON lines too (before: held whole, at most 256 MiB)
    csv.write_text("key\n" + "k1\n" * 40, encoding="utf-8")
    assert sb.read_keys(str(csv)) == ([(n, {"key": "k1"}) for n in range(2, 42)], 124)
    jsonl = tmp_path / "keys.jsonl"
    jsonl.write_text('{"key":"k"}\n' * 4, encoding="utf-8")
    with pytest.raises(UsageError, match="a line longer than") as err:
        sb.load_keys(str(jsonl))
    assert err.value.line == 1
    text.write_text("k1\n" * 5 + "x" * 11 + "\nk2\n", encoding="utf-8")
    with pytest.raises(UsageError, match="a line longer than") as err:
        sb.load_keys(str(text))
    assert err.value.line == 6


def test_a_text_file_changed_after_its_check_is_an_error_not_other_keys(tmp_path: Path) -> None:
    text = tmp_path / "keys.txt"
    text.write_text("a\nb\n", encoding="utf-8")
    loaded = sb.load_keys(str(text))
    text.write_text("a\nb\nc\n", encoding="utf-8")
    with pytest.raises(UsageError, match="changed while arouter was reading it"):
        loaded.keys()
    csv = tmp_path / "keys.csv"
    csv.write_text("key\na\n", encoding="utf-8")
    loaded = sb.load_keys(str(csv))
    csv.write_text("key\nb\n", encoding="utf-8")
    os.utime(csv, ns=(0, 0))
    with pytest.raises(UsageError, match="changed while arouter was reading it"):
        list(loaded.record_chunks(10))
