"""Text from the user (names and values in broker.xml, keys, paths) is printed as it is: never read
as rich markup (``[/x]`` used to crash with an internal error) or emoji codes (``:smile:`` became
an emoji), and tabs are kept when the output is piped."""

from __future__ import annotations

from pathlib import Path

from tests.cli.helpers import arouter
from tests.conftest import broker_xml

TRICKY = ":warning:[/x][bold]"


def test_validate_text_output_quotes_names_and_values_verbatim(tmp_path: Path) -> None:
    path = tmp_path / "broker.xml"
    divert = (f'<diverts><divert name="d"><address>a{TRICKY}\tz</address>'
              f"<forwarding-address>a{TRICKY}\tz</forwarding-address></divert></diverts>")
    path.write_text(broker_xml(divert), encoding="utf-8")
    run = arouter("validate", str(path))
    assert run.code == 0, run.err
    [line] = [x for x in run.out.splitlines() if "AR503" in x]
    assert f"forwards to its own address 'a{TRICKY}\tz'" in line
    saved = tmp_path / "report.txt"
    assert arouter("validate", str(path), "-o", str(saved)).code == 0
    assert saved.read_text(encoding="utf-8").splitlines()[0] == line


def test_unreadable_path_with_brackets_is_a_one_line_error(tmp_path: Path) -> None:
    missing = tmp_path / "no[/x]such.xml"
    run = arouter("validate", str(missing))
    assert run.code == 2
    assert run.err.strip() == f"arouter: {missing}: file not found"


def test_simulate_shows_a_key_with_brackets_and_colons_as_given() -> None:
    run = arouter("simulate", "--key", f"CLIENT_ID={TRICKY}", "-r", "sticky-router", "--explain")
    assert run.code == 0, run.err
    assert f"sticky-router  CLIENT_ID  {TRICKY}" in run.out
    assert f"key: CLIENT_ID = '{TRICKY}'" in run.out
