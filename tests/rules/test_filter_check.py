"""Checking divert filters without building them: the same verdict as parsing them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from artemis_routing_cli.messages import selector
from artemis_routing_cli.messages.selector import (
    FilterSyntaxError,
    blank_filter,
    clear_filter_caches,
    filter_syntax_error,
    literal_key,
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


# Pieces a filter is made of, the ones that decide how it lexes included (digit classes, quotes,
# comments, hyphens, prefixes, ESCAPE).
_PIECES = ["a", "b1", "n-2", "x_9", "AND", "OR", "NOT", "LIKE", "ESCAPE", "IN", "IS", "NULL", "BETWEEN",
           "=", "<>", ">", "<=", "+", "-", "*", "/", "(", ")", ",", "0", "1", "7", "8", "9", "10", "08", "017",
           "019", "0x1F", "1.5", "1e3", "12L", "'x'", "''", "'it''s'", "'9'", "'", '"q"', "--c\n", "/* c */",
           "é", "XPATH", "hyphenated_props:", "convert_string_expressions:", " ", "  ", "\t"]


def _filters() -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(_PIECES), max_size=9).map("".join)


@settings(deadline=None)  # the first example pays for imports
@given(st.lists(_filters(), min_size=1, max_size=12))
def test_literal_key_verdicts_equal_parsing(texts: list[str]) -> None:
    """Filters answered from an earlier filter's literal key get the verdict parsing gives them."""
    clear_filter_caches()
    keys = [literal_key(t) for t in texts]
    for text, key in zip(texts, keys, strict=True):  # bytes for ASCII text: the same characters
        as_text = key.decode("ascii") if isinstance(key, bytes) else key
        assert as_text == selector._LITERAL_STRING.sub("''", text).translate(selector._DIGIT_CLASSES)
    for text in texts + [k.decode("ascii") if isinstance(k, bytes) else k for k in keys]:
        err = filter_syntax_error(text)
        assert (None if err is None else (err.reason, err.column)) == _parse_error(text), text


@pytest.mark.parametrize(("seen", "then"), [
    ("n > 1", "n > 7"), ("n > 10", "n > 70"), ("n > 89", "n > 98"), ("a = 'x'", "a = 'it''s -- /* '"),
    ("a IN ('x', 'y')", "a IN ('', '0x')"), ("hyphenated_props:a-1 = 2", "hyphenated_props:a-5 = 3"),
])
def test_literal_key_answers_filters_differing_in_literals(seen: str, then: str) -> None:
    clear_filter_caches()
    assert literal_key(seen) == literal_key(then)
    assert filter_syntax_error(seen) is None
    assert literal_key(then) in selector._PARSED_KEYS
    assert filter_syntax_error(then) is None and _parse_error(then) is None


@pytest.mark.parametrize(("seen", "then"), [
    ("n IN (017)", "n IN (018)"), ("n > 10", "n > 00"), ("a = 'x'", "a = 'x"), ("a = 'x'", "a = \"x\""),
    ("a LIKE 'x' ESCAPE '!'", "a LIKE 'x' ESCAPE '!!'"),
])
def test_literal_key_keeps_apart_what_lexes_differently(seen: str, then: str) -> None:
    clear_filter_caches()
    filter_syntax_error(seen)
    assert literal_key(then) not in selector._PARSED_KEYS
    err = filter_syntax_error(then)
    assert (None if err is None else (err.reason, err.column)) == _parse_error(then)


def test_literal_keys_are_bounded() -> None:
    clear_filter_caches()
    for n in range(selector._MAX_KEYS + 10):
        filter_syntax_error(f"p{n} = 1")
        assert len(selector._PARSED_KEYS) <= selector._MAX_KEYS
    long = "a = 1" + " AND a = 1" * 200
    assert len(long) > selector._MAX_KEYED_LENGTH
    clear_filter_caches()
    assert filter_syntax_error(long) is None and not selector._PARSED_KEYS  # no key for a long filter
