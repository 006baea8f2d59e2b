"""``--format text`` without colour: the lines made directly are the rich pieces joined, for any finding."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from artemis_routing_cli.diagnostics import BROKER_VERDICTS, Diagnostic, Severity
from artemis_routing_cli.linting import FileReport
from artemis_routing_cli.report.text import finding_lines, plain_finding_lines
from artemis_routing_cli.rules import all_rules

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
_DIAGNOSTIC = st.builds(
    Diagnostic, rule=st.sampled_from([*all_rules(), "AR999", ""]), severity=st.sampled_from(list(Severity)),
    category=st.sampled_from(["schema", "style"]), message=_TEXT, file=_TEXT, line=st.integers(0, 10**6),
    column=st.integers(0, 500), section=st.none() | _TEXT, hint=st.none() | _TEXT,
    broker=st.sampled_from(BROKER_VERDICTS))


@settings(deadline=None)  # the first example pays for imports
@given(st.lists(st.lists(_DIAGNOSTIC, max_size=6), max_size=3))
def test_plain_lines_are_the_pieces_joined(files: list[list[Diagnostic]]) -> None:
    reports = [FileReport(f"f{n}.xml", diags) for n, diags in enumerate(files)]
    assert plain_finding_lines(reports) == ["".join(text for text, _ in line) for line in finding_lines(reports)]
