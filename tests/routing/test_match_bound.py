"""A pattern's bounded length (jregex/_match_bound.py): texts up to it are evaluated without the ``regex``
module's timeout, so the bound must hold and the answers must not change (issue 37).

- The bound holds: the UTF-16 matcher (java.util.regex's nodes, backtracking as Java does) never reads
  more characters of a text than the bound allows for that length, on random patterns of the plain
  subset and texts made of their own characters (where backtracking is worst).
- Patterns that can backtrack exponentially (nested or alternating repetition, back-references,
  look-arounds) have no bounded length: every text keeps the budget.
- The answers are the same with and without the quick evaluation, and the UTF-16 matcher's.
- The ReDoS budget still holds past the bounded length: a polynomial pattern on a long key still runs
  out of its budget (TimeoutError), an ordinary key within the length is answered even when the budget
  is spent.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from artemis_routing_cli.jregex._javaregex_match import to_text, units
from artemis_routing_cli.jregex._match_bound import LONGEST, QUICK_WORK, _work, quick_length
from artemis_routing_cli.jregex.javaregex import MEMO_KEY_CHARS, MEMO_SIZE, JavaPattern, compile_java, match_budget

ATOMS = ["a", "b", "ab", "[ab]", "[^b]", ".", "\\d", "(?:ab)", "(a|b)", "(?:a|bb)", "x", "(?i:A)", "\\w", "-"]
QUANTIFIERS = ["", "", "*", "+", "?", "{2}", "{1,3}", "{2,}", "*?", "+?", "??", "*+"]


def random_patterns(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    made = []
    for _ in range(count):
        branches = []
        for _ in range(rng.choice([1, 1, 1, 2])):
            branches.append("".join(rng.choice(ATOMS) + rng.choice(QUANTIFIERS) for _ in range(rng.randrange(1, 5))))
        pattern = "|".join(branches)
        if rng.random() < 0.3:
            pattern = "^" + pattern
        if rng.random() < 0.2:
            pattern += "$"
        made.append(pattern)
    return made


class CountingText(list[int]):
    """A text's UTF-16 units, counting every read of one."""

    reads = 0

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        CountingText.reads += 1
        return super().__getitem__(index)


def texts(pattern: str, longest: int, rng: random.Random) -> list[str]:
    """Texts of the pattern's own characters (and a few others), up to ``longest``: where backtracking
    goes furthest."""
    alphabet = sorted({c for c in pattern if c.isalnum() or c == "-"} | {"a", "b", "1", "-", "z"})
    made = [c * n for c in alphabet for n in (0, 1, longest // 2, longest)]
    made += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, longest + 1))) for _ in range(40)]
    return made


PLAIN = ["^load.*", "NULL|0", r"^[^-]+-\d{2}", "bench-7", "^.{3}", r"[a-z]+\d{2}", "FOO.*", "(?:ab)*c",
         r"^NODE7(-.*)?$", "(?i)^r12-[A-Z]+", r"a\b", ".*.*x", "(?:a|b)c?d+"]


@pytest.mark.parametrize("java", PLAIN + random_patterns(150, 37))
def test_the_utf16_matcher_never_reads_more_than_the_bound(java: str) -> None:
    pattern = compile_java(java)
    program = pattern.program
    assert program is not None
    rng = random.Random(java)
    for run, quick in (("find", pattern.quick_find), ("matches", pattern.quick_matches)):
        if quick < 0:
            continue
        for text in texts(java, min(quick, 40), rng):
            counted = CountingText(units(text))
            CountingText.reads = 0
            program.find(counted) if run == "find" else program.matches(counted)
            assert CountingText.reads <= _work(program, len(text), run == "find"), (run, text)


@pytest.mark.parametrize("java", ["(a|a)+b", "(a+)+b", "(?:a*)*b", r"(.*)\1x", "(?:a|ab)*c", "(?=a+)a*b",
                                  "(?<=a)b*", r"\X+", "(?:x+x+)+y"])
def test_a_pattern_that_can_backtrack_exponentially_has_no_bounded_length(java: str) -> None:
    pattern = compile_java(java)
    assert pattern.quick_find == -1 and pattern.quick_matches == -1


def test_the_bounded_length_is_the_longest_within_the_work() -> None:
    for java in PLAIN:
        pattern = compile_java(java)
        for run, quick in (("find", pattern.quick_find), ("matches", pattern.quick_matches)):
            assert pattern.program is not None
            assert quick >= 0, (java, run)
            assert _work(pattern.program, quick, run == "find") <= QUICK_WORK
            if quick < LONGEST:
                assert _work(pattern.program, quick + 1, run == "find") > QUICK_WORK
    assert compile_java("NULL|0").quick_matches == LONGEST  # no repetition: any length
    assert quick_length(None, True) == -1


def without_quick(pattern: JavaPattern) -> JavaPattern:
    """The pattern evaluated as before issue 37: always through the timeout path (a copy: it remembers
    no answer yet)."""
    return replace(pattern, quick_find=-1, quick_matches=-1)


def engine_find(pattern: JavaPattern, text: str) -> str | None:
    span = pattern._engine("find", text)
    assert not isinstance(span, bool)
    return None if span is None else to_text(units(text)[span[0]:span[1]])


@pytest.mark.parametrize("java", PLAIN + random_patterns(60, 38))
def test_the_answers_are_the_same_with_and_without_the_quick_evaluation(java: str) -> None:
    quick = replace(compile_java(java)).prepare()  # a copy that remembers no answer yet
    slow = without_quick(quick)
    rng = random.Random(java)
    for text in texts(java, 30, rng) + ["load-1", "NULL", "0", "bench-12", "R12-ABC", "NODE7-x", "caf\u00e9"]:
        with match_budget(60.0):
            assert quick.find(text) == slow.find(text), text
            assert quick.matches(text) == slow.matches(text), text
        assert quick.find(text) == slow.find(text) == engine_find(quick, text), text
        assert quick.matches(text) == slow.matches(text) == bool(quick._engine("matches", text)), text


def test_past_its_bounded_length_a_polynomial_pattern_still_runs_out_of_its_budget() -> None:
    pattern = compile_java("a*a*a*[^a]")  # n^3 backtracking on a key of a's (seconds on 1,000)
    assert 0 <= pattern.quick_find < 1000
    with match_budget(0.05), pytest.raises(TimeoutError):
        pattern.find("a" * 1000)


def test_within_its_bounded_length_a_key_is_answered_even_when_the_budget_is_spent() -> None:
    pattern = compile_java("^load.*").prepare()
    assert pattern.quick_matches >= len("load-1")
    with match_budget(0.0):
        assert pattern.matches("load-1") is True
        assert pattern.find("xload") is None


def test_remembered_answers_are_the_answers_and_the_memo_is_bounded() -> None:
    fresh = replace(compile_java(r"^[a-c]+(\d)?"))
    keys = [f"{'abc'[i % 3] * (i % 5 + 1)}{i % 10}" if i % 4 else f"x{i}" for i in range(MEMO_SIZE + 10)]
    for key in keys[:300]:
        first = fresh.find(key), fresh.matches(key)
        assert (fresh.find(key), fresh.matches(key)) == first == (fresh._find(key), fresh._matches(key)), key
    for key in keys:
        fresh.find(key)
        fresh.matches(key)
    assert 0 < len(fresh._found) <= MEMO_SIZE and 0 < len(fresh._matched) <= MEMO_SIZE
    long_key = "a" * (MEMO_KEY_CHARS + 1)
    assert fresh.find(long_key) == long_key and long_key not in fresh._found


def test_an_evaluation_that_runs_out_of_its_budget_is_not_remembered() -> None:
    fresh = replace(compile_java("(a|a)+b"))
    key = "a" * 40
    with match_budget(0.02), pytest.raises(TimeoutError):
        fresh.matches(key)
    assert key not in fresh._matched
    with match_budget(0.02), pytest.raises(TimeoutError):  # evaluated again, and bounded again
        fresh.matches(key)
