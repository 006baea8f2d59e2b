"""The regex time budget (serve sets it) holds on both matchers: the ``regex`` translation and the
UTF-16 matcher used for texts beyond the BMP. A key that runs out raises TimeoutError."""

from __future__ import annotations

import pytest

from artemis_routing_cli.jregex.javaregex import MATCH_TIMEOUT, compile_java


@pytest.mark.parametrize("key", ["a" * 40, "\U0001F600" + "a" * 40])  # fast path, then the UTF-16 matcher
def test_a_catastrophic_pattern_stops_at_the_budget(key: str) -> None:
    pattern = compile_java("(a|a)+b")
    token = MATCH_TIMEOUT.set(0.05)
    try:
        with pytest.raises(TimeoutError):
            pattern.find(key)
    finally:
        MATCH_TIMEOUT.reset(token)


def test_without_a_budget_the_answer_is_unchanged() -> None:
    assert compile_java("(a|a)+b").find("\U0001F600aab") == "aab"
