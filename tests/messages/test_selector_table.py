"""Every row of the selector table (results taken from the broker's own selector engine)."""

from __future__ import annotations

import pytest

from artemis_routing_cli.messages import Message, parse_filter
from artemis_routing_cli.messages.selector.javalang import EvalError

from .selector_cases import CASES, ERR


def test_table_is_large_enough():
    assert len(CASES) >= 150


@pytest.mark.parametrize(("text", "props", "expected"), CASES, ids=[f"{i}:{c[0]}" for i, c in enumerate(CASES)])
def test_selector_case(text, props, expected):
    flt = parse_filter(text)
    msg = Message(address="q", properties=props)
    verdict = flt.verdict(msg)
    if expected == ERR:
        with pytest.raises(EvalError):
            flt._fn(msg)
        assert flt.evaluate(msg) is False
        assert verdict.reason and "evaluation error" in verdict.reason
    else:
        assert flt.evaluate(msg) is expected
        assert verdict.value is expected
        assert verdict.reason is None
    assert flt.matches(msg) is (expected is True)
