"""Filters the broker refuses, with the column of the problem."""

from __future__ import annotations

import pytest

from artemis_routing_cli.errors import ArouterError
from artemis_routing_cli.messages import (
    UNSUPPORTED,
    FilterSyntaxError,
    Message,
    parse_filter,
    parse_optional_filter,
)

BAD = [
    ("a = ", 4, "expected an expression"),
    ("a > 'x'", 5, "string literal cannot be used with >"),
    ("'x' < a", 1, "string literal"),
    ("a BETWEEN 'a' AND 'z'", 11, "string literal cannot be used with BETWEEN"),
    ("a > TRUE", 5, "boolean value"),
    ("(a = 1) > 2", 2, "boolean value"),
    ("a = NULL", 5, "NULL cannot be compared"),
    ("NULL <> a", 1, "NULL cannot be compared"),
    ("TRUE = 1", 1, "TRUE/FALSE literal"),
    ("a IN ()", 7, "string literal in the IN list"),
    ("a IN (1, 2)", 7, "string literal in the IN list"),
    ("'x' IN ('x')", 5, "IN needs a property"),
    ("a LIKE b", 8, "string pattern after LIKE"),
    ("a LIKE 'x' ESCAPE 'ab'", 19, "exactly one character"),
    ("a LIKE 'x' ESCAPE ''", 19, "exactly one character"),
    ("a = 0x8000000000000000", 5, "does not fit in a long"),
    ("a = 09", 6, "unexpected number 9"),
    ("a = 1.5F", 8, "unexpected identifier 'F'"),
    ("a != 1", 3, "not-equal is written <>"),
    ("a == 1", 4, "expected an expression"),
    ('"abc = 1', 1, "quoted identifier is not closed"),
    ("a = 'abc", 5, "string literal is not closed"),
    ("1", 1, "will not result in a boolean"),
    ("a + 1", 1, "will not result in a boolean"),
    ("-a", 1, "will not result in a boolean"),
    ("NOT 'x'", 5, "will not result in a boolean"),
    ("a b", 3, "after a complete expression"),
    ("(a = 1", 7, "expected ')'"),
    ("a BETWEEN 1 OR 2", 13, "expected AND"),
    ("a IS 1", 6, "expected NULL after IS"),
    ("AND = 1", 1, "keyword AND"),
    ("é = 1", 1, "unexpected character"),
    ("ſ = 1", 1, "unexpected character"),
    ("hyphenated_props:\"a\" = 1", 18, "not allowed with hyphenated_props"),
    ("convert_string_expressions:", 28, "expected an expression"),
    ("  a = ", 6, "expected an expression"),
    ("   ", 1, "empty"),
    ("XPATH 1", 7, "string literal after XPATH"),
]


@pytest.mark.parametrize(("text", "column", "fragment"), BAD)
def test_refused_filters(text, column, fragment):
    with pytest.raises(FilterSyntaxError) as info:
        parse_filter(text)
    err = info.value
    assert isinstance(err, ArouterError)
    assert err.column == column
    assert fragment in err.reason
    assert f"column {column}" in str(err)
    assert err.text == text


@pytest.mark.parametrize(
    "text",
    [
        "a = 1 -- c",  # no line break: two minus signs
        "a = 1 -- comment\n AND b = 2",
        "K = 1",  # the Kelvin sign lower-cases to an ASCII letter
        "hyphenated_props:a-b-c = 1",
        "a = 18446744073709551617",
        "NOT NOT a",
        "a = 1 AND b = 2 OR c = 3 AND NOT d",
        "XQUERY 'x' OR a = 1",
    ],
)
def test_accepted_filters(text):
    assert parse_filter(text).text == text


def test_parse_is_cached():
    assert parse_filter("cache_me = 1") is parse_filter("cache_me = 1")


def test_optional_filter_blank_means_no_filter():
    assert parse_optional_filter(None) is None
    assert parse_optional_filter("  \n ") is None
    assert parse_optional_filter(" a = 1 ") is not None


def test_nesting_limit_is_a_syntax_error():
    with pytest.raises(FilterSyntaxError, match="nested"):
        parse_filter("(" * 500 + "a = 1" + ")" * 500)
    with pytest.raises(FilterSyntaxError, match="nested"):
        parse_filter(" + ".join(["a"] * 400) + " = 1")


def test_huge_decimal_literal_wraps_like_the_broker():
    # 2**64 + 1: too big for a long, its long value (1) fits an int, so the broker keeps int 1
    assert parse_filter("a = 18446744073709551617").evaluate(Message(properties={"a": 1})) is True


def test_body_queries_are_unsupported():
    flt = parse_filter("XPATH '//order[@id=1]'")
    msg = Message(properties={"a": 1})
    assert flt.evaluate(msg) is UNSUPPORTED
    assert not flt.matches(msg)
    assert flt.body_queries == ["XPATH '//order[@id=1]'"]
    verdict = flt.verdict(msg)
    assert verdict.label == "unsupported" and "message body" in (verdict.reason or "")
    # a decided OR/AND does not need the body
    assert parse_filter("XPATH '//a' OR a = 1").evaluate(msg) is True
    assert parse_filter("XPATH '//a' AND a = 2").evaluate(msg) is False
    assert parse_filter("XPATH '//a' AND a = 1").evaluate(msg) is UNSUPPORTED
