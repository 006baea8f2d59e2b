"""The parser only ever raises FilterSyntaxError, whatever the input."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from artemis_routing_cli.messages import FilterSyntaxError, Message, parse_filter

PIECES = st.sampled_from(
    ["a", "b1", " ", "1", "0", "09", ".", "e", "x", "L", "'", "''", '"', "=", "<", ">", "<>", "(", ")", ",",
     "+", "-", "*", "/", "%", "NOT", "AND", "OR", "IN", "IS", "NULL", "LIKE", "ESCAPE", "BETWEEN", "TRUE",
     "XPATH", "--", "/*", "*/", "\n", "$", "_", "é", "!", "hyphenated_props:", "convert_string_expressions:",
     "0x1F", "1e5", "'x'", "\t"]
)
MESSAGE = Message(address="q", properties={"a": 1, "b1": "x", "x": 1.5, "e": True})


def _check(text: str) -> None:
    try:
        flt = parse_filter(text)
    except FilterSyntaxError as err:
        assert err.column is not None and 1 <= err.column <= len(text) + 1
        return
    assert flt.evaluate(MESSAGE) in (True, False, None) or repr(flt.evaluate(MESSAGE)) == "UNSUPPORTED"


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60))
def test_random_text_never_crashes(text):
    _check(text)


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=25).map("".join))
def test_token_soup_never_crashes(text):
    _check(text)
