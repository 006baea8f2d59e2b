"""Findings come out in one order on every run: by place and rule, and - at the same place, by the
same rule - in the order the rules reported them (not in hash order, which changes per process)."""

from __future__ import annotations

from artemis_routing_cli.diagnostics import Diagnostic, Severity
from artemis_routing_cli.linting import ordered


def finding(message: str, line: int = 3, rule: str = "AR601") -> Diagnostic:
    return Diagnostic(rule, Severity.WARNING, "semantics", message, "broker.xml", line, 5)


def test_findings_at_one_place_keep_the_order_they_were_reported_in():
    reported = [finding(f"finding {i}") for i in range(40)]
    assert ordered(reported) == reported


def test_findings_are_sorted_by_place_then_rule_and_duplicates_dropped():
    a, b, c = finding("late", line=9), finding("early", line=2, rule="AR602"), finding("early", line=2)
    assert ordered([a, b, c, a]) == [c, b, a]
