"""The fleet rules' quick answer (rules/fleet._takes_a_value) against the engine: for a plain filter it
says exactly what the router's own local-target-filter says of the MODULO values; for anything else it
says "not known" (False), and the engine answers."""

from __future__ import annotations

import random

import pytest

from artemis_routing_cli.jregex.javaregex import compile_java
from artemis_routing_cli.jregex.plain import plain_notes
from artemis_routing_cli.rules.fleet import _takes_a_value

HAND = ["NULL|0", "NULL|1", "NULL|", "^0$", "^[0-2]$", "\\d", "\\d+", "[12]", "NULL|${X}", "0|1|2", "(?i)null|3",
        ".*", ".", "^.{2}$", "1?0", "[^0]", "\\w{1,2}", "(0|1)", "(?:2)+", "\\D", "3", "", "\\s*0\\s*", "0$", "^1",
        "NULL|7", "[0-9]{2,}", "0+?", "(?=0)0", "0(?!1)", "\\p{Digit}", "x{0}1"]
TOKENS = ["0", "1", "2", "5", "\\d", "\\D", "\\w", ".", "[0-3]", "[^1]", "(0|1)", "(?:2)", "^", "$", "|", "NULL",
          "*", "+", "?", "{2}", "{0,1}", "+?"]


def _random_patterns(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 5))) for _ in range(count)]


def _engine(pattern: str, modulo: int) -> bool:
    filt = compile_java(pattern)
    return any(filt.matches(str(v)) for v in range(modulo))


@pytest.mark.parametrize("modulo", [1, 2, 3, 4, 10, 12])
def test_the_quick_answer_is_the_engines_for_plain_filters(modulo: int) -> None:
    plain = 0
    for pattern in HAND + _random_patterns(modulo, 300):
        if plain_notes(pattern) is None:
            assert _takes_a_value(pattern, str(modulo)) is False, pattern  # not known here: the engine answers
            continue
        plain += 1
        assert _takes_a_value(pattern, str(modulo)) == _engine(pattern, modulo), pattern
    assert plain > 100  # the comparison ran on plain filters, not only on ones it passes on


def test_a_modulo_the_broker_cannot_read_is_left_to_the_engine() -> None:
    for text in (None, "", "x", "0", "-3", "99999999999"):
        assert _takes_a_value("\\d", text) is False
