"""Where a line's start tags of one name begin: found from the name's occurrences, the same places
as the start-tag pattern run along the whole line."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from artemis_routing_cli.config.positions import _NAME, _START_TAG_OF, start_tags

_NAMES = ["a", "aa", "password", "a.b", "a-b", "x_1", "é", "", "a·b"]


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(_START_TAG_OF.format(re.escape(name)) if _NAME.fullmatch(name) else "(?!)")


@settings(deadline=None, max_examples=400)
@given(st.sampled_from(_NAMES),
       st.lists(st.sampled_from(["<", ">", "/", ":", " ", "\t", "a", "aa", "password", "x", "9", ".", "-", "_",
                                 "é", "·", "<a", "</a", "<p:", "<p:a", "<9:a", "a:a", "<a.b", "\u2003"]),
                max_size=30).map("".join))
def test_start_tags_are_the_patterns_matches(name: str, text: str) -> None:
    pattern = _pattern(name)
    assert start_tags(text, name, pattern) == [m.start() for m in pattern.finditer(text)]


class _Counting:
    """The pattern, counting the places it is tried at."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.tried: list[int] = []

    def match(self, text: str, pos: int) -> re.Match[str] | None:
        self.tried.append(pos)
        return self.pattern.match(text, pos)


def test_each_lt_of_a_hostile_line_is_tried_once() -> None:
    """Every occurrence of the name after a ':' behind one long prefix: the pattern is tried once per
    '<', not once per occurrence (which would read the long prefix again each time)."""
    for text in ("<" + "x" * 20_000 + ":a" * 20_000, "<" + ":a" * 30_000, "a" * 50_000, "<a" * 30_000):
        counting = _Counting(_pattern("a"))
        found = start_tags(text, "a", counting)  # type: ignore[arg-type]
        assert len(counting.tried) == len(set(counting.tried)) <= text.count("<")
        assert found == [m.start() for m in _pattern("a").finditer(text)]
