"""AR701, AR702: ${} substitution and transport URLs."""

from __future__ import annotations

import pytest

from artemis_routing_cli.linting import LintSettings

from .helpers import lint_fragment, only

ACCEPTOR = '<acceptors><acceptor name="a">tcp://${arouter.host}:${arouter.port:61616}</acceptor></acceptors>'


def test_ar701_at_the_token(tmp_path) -> None:
    [d] = only(lint_fragment(tmp_path, ACCEPTOR, LintSettings(environ={})), "AR701")
    assert (d.line, d.column) == (2, ACCEPTOR.index("${arouter.host}") + 1)
    assert "${arouter.host}" in d.message


def test_ar701_quiet_when_the_property_is_given(tmp_path) -> None:
    settings = LintSettings(properties={"arouter.host": "0.0.0.0"}, environ={})
    assert only(lint_fragment(tmp_path, ACCEPTOR, settings), "AR701") == []


def test_ar701_quiet_when_the_environment_has_it(tmp_path) -> None:
    settings = LintSettings(environ={"arouter.host": "0.0.0.0"})
    assert only(lint_fragment(tmp_path, ACCEPTOR, settings), "AR701") == []


def test_ar702_acceptor(tmp_path) -> None:
    frag = '<acceptors><acceptor name="a">tcp://0.0.0.0:port?router=r</acceptor></acceptors>'
    [d] = only(lint_fragment(tmp_path, frag), "AR702")
    assert "cannot listen" in d.message and d.line == 2


@pytest.mark.parametrize("token", ["${}", "${ }", "${:61616}", "${ : x }"])
def test_ar705_empty_property_name(tmp_path, token: str) -> None:
    frag = f'<acceptors><acceptor name="a">tcp://0.0.0.0:{token}</acceptor></acceptors>'
    [d] = only(lint_fragment(tmp_path, frag), "AR705")
    assert d.severity.value == "error" and token in d.message and d.line == 2
    assert only(lint_fragment(tmp_path, frag), "AR701") == []


def test_ar705_inside_a_comment_too(tmp_path) -> None:
    assert only(lint_fragment(tmp_path, "<!-- port: ${} -->"), "AR705")


def test_ar705_not_for_a_no_break_space_name(tmp_path) -> None:
    """String.trim keeps U+00A0, so the name is not empty (an unset property, AR701)."""
    diags = lint_fragment(tmp_path, "<!-- ${\u00a0} -->")
    assert only(diags, "AR705") == [] and only(diags, "AR701")
