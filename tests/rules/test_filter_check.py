"""Checking divert filters without building them: the same verdict as parsing them."""

from __future__ import annotations

import pytest

from artemis_routing_cli.messages.selector import (
    FilterSyntaxError,
    blank_filter,
    clear_filter_caches,
    filter_syntax_error,
    may_query_body,
    parse_filter,
)
from artemis_routing_cli.messages.selector.lexer import DECIMAL, IDENT, STRING, common_shape


def _parse_error(text: str) -> tuple[str, int | None] | None:
    try:
        parse_filter(text)
    except FilterSyntaxError as err:
        return err.reason, err.column
    return None


# Each group: filters of one token shape, in order; a later one must not borrow an earlier verdict
# when a literal's value decides (ESCAPE takes one character) or the shape differs.
GROUPS = [
    ["a = 'x'", "b = 'y'", "colour = 'it''s'"],
    ["n > 1", "m > 99999999999999999999", "n > 'x'"],
    ["a LIKE 'x' ESCAPE '!'", "a LIKE 'y' ESCAPE '!!'", "a LIKE 'z' ESCAPE ''"],
    ["a IN ('x', 'y')", "b IN ('x')", "'a' IN ('x')"],
    ["XPATH '/a'", "XPATH '/b' AND x = 1"],
    ["hyphenated_props:a-b = 1", "a-b = 1", "hyphenated_props:  a-b = 'q'"],
    ["a = 1 --note\n", "a = /* c */ 1", "a =", "", "   "],
]


@pytest.mark.parametrize("group", GROUPS)
def test_verdict_equals_parsing(group: list[str]) -> None:
    clear_filter_caches()
    for _ in range(2):  # the second round answers from the shapes seen in the first
        for text in group:
            err = filter_syntax_error(text)
            assert (None if err is None else (err.reason, err.column)) == _parse_error(text), text


def test_common_shape_names_kinds_keywords_and_operators() -> None:
    assert common_shape("a = 'x' AND n > 12") == (IDENT, "=", STRING, "AND", IDENT, ">", DECIMAL)
    assert common_shape("a-b = 1", True) == (IDENT, "=", DECIMAL)
    assert common_shape("a - b = 1") is None  # '-' may start a comment: the general lexer decides
    assert common_shape("a = 0") is None and common_shape("a = 1.5") is None
    assert common_shape("é = 1") is None and common_shape("a = 'open") is None
    assert common_shape("  ") == ()


def test_blank_and_body_query_hints() -> None:
    assert blank_filter("") and blank_filter(" \t\n") and not blank_filter(" a ")
    assert may_query_body("xpath '/a'") and may_query_body("a = 1 OR XQuery 'x'")
    assert not may_query_body("a = 'x'")
    assert parse_filter("a = 'x'").body_queries == []
    assert parse_filter("XPATH '/a' OR b = 1").body_queries == ["XPATH '/a'"]
