"""The regex time budget (serve sets it) holds on both matchers: the ``regex`` translation and the
UTF-16 matcher used for texts beyond the BMP. A key that runs out raises TimeoutError.

The UTF-16 matcher looks at the clock after a bounded amount of *work*, not of steps: one step of a
back-reference or of a greedy class run scans the key, so counting steps let a single interval
between two looks grow with the key (``(.*)\\1x`` on a 5,000-character key overshot a 5 ms budget
by 75 ms). The tests count the characters of the key the matcher reads once the budget is spent -
no timing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from artemis_routing_cli.jregex._javaregex_match import units
from artemis_routing_cli.jregex._match_budget import FAST_SLICE_SECONDS, WORK_PER_CHECK
from artemis_routing_cli.jregex.javaregex import JavaPattern, compile_java, match_budget


class CountingText(list[int]):
    """The UTF-16 units of a key, counting every read of one unit."""

    reads = 0

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        CountingText.reads += 1
        return super().__getitem__(index)


@pytest.mark.parametrize("key", ["a" * 40, "\U0001F600" + "a" * 40])  # fast path, then the UTF-16 matcher
def test_a_catastrophic_pattern_stops_at_the_budget(key: str) -> None:
    pattern = compile_java("(a|a)+b")
    with match_budget(0.05), pytest.raises(TimeoutError):
        pattern.find(key)


@pytest.mark.parametrize("java", [r"(.*)\1x", r"(.*)(.*)\2x", r"(?:a+)+b", "(a|a)+" + "a" * 300 + "b"])
def test_the_matcher_gives_up_within_a_bounded_amount_of_work(java: str) -> None:
    """With the budget already spent, the matcher stops at its first look at the clock: after at most
    WORK_PER_CHECK units, plus the one step in progress, whatever each step costs."""
    program = compile_java(java).program
    assert program is not None
    text = CountingText(units("a" * 5000 + "\U0001F600"))
    CountingText.reads = 0
    with match_budget(0.0), pytest.raises(TimeoutError):
        program.find(text)
    assert CountingText.reads <= 2 * WORK_PER_CHECK + 5001


def test_without_a_budget_the_answer_is_unchanged() -> None:
    assert compile_java("(a|a)+b").find("\U0001F600aab") == "aab"
    assert compile_java(r"(.*)\1x").find("abcabcx\U0001F600") == "abcabcx"
    assert compile_java(r"(a+)\1b").find("\U0001F600xaaaab") == "aaaab"


def test_key_filter_and_local_target_filter_share_one_budget() -> None:
    """Two evaluations inside one budget: the second starts with what the first left (nothing here),
    so the ``regex`` module's timeout is already spent when it starts."""
    key_filter, local_filter = compile_java("(a|a)+b"), compile_java("(a|a)+c")
    with match_budget(0.02):
        with pytest.raises(TimeoutError):
            key_filter.find("\U0001F600" + "a" * 40)
        with pytest.raises(TimeoutError):
            local_filter.matches("a" * 40)


def test_prepare_compiles_both_matchers() -> None:
    pattern = compile_java(r"[\p{L}&&[^b]]+b").prepare()
    assert pattern.program is not None and pattern.program._find is not None and pattern.program._whole is not None


class SliceSpent:
    """A compiled ``regex`` pattern whose CPU slice is always spent: records the timeout it was given."""

    def __init__(self) -> None:
        self.timeouts: list[float | None] = []

    def _spent(self, text: str, timeout: float | None = None) -> None:
        self.timeouts.append(timeout)
        raise TimeoutError("regex timed out")

    search = fullmatch = _spent


@pytest.mark.parametrize(("java", "run", "key", "answer"), [
    ("FOO.*", "find", "xFOO1", "FOO1"), ("FOO.*", "matches", "FOO1", True), ("FOO.*", "matches", "xFOO1", False),
    ("[a-c]+-x?", "find", "zzab-ab", "ab-"),
])
def test_a_key_the_regex_module_cannot_finish_in_its_slice_goes_on_to_the_exact_matcher(
        java: str, run: str, key: str, answer: object) -> None:
    """The ``regex`` module's timeout is CPU time (on a loaded machine a 5 ms timeout held the loop
    40 ms), so it gets a short slice, not the whole budget; past it the UTF-16 matcher answers, with
    the answer the broker gives. (A key longer than the pattern's bounded length: -1 here.)"""
    spent = SliceSpent()

    def fresh() -> JavaPattern:  # a copy (compile_java caches), remembering no answer yet
        pattern = replace(compile_java(java), quick_find=-1, quick_matches=-1)
        object.__setattr__(pattern, "_compiled", spent)
        return pattern

    assert not fresh().engine_only
    with match_budget(60.0):
        assert getattr(fresh(), run)(key) == answer
    assert spent.timeouts and all(t is not None and t <= FAST_SLICE_SECONDS for t in spent.timeouts)
    with match_budget(0.0), pytest.raises(TimeoutError):  # and with nothing left, the key runs out
        getattr(fresh(), run)(key)


@pytest.mark.parametrize("key", ["FOO1", "FOO1\U0001F600"])  # the regex module, then the UTF-16 matcher
def test_an_ordinary_key_is_answered_even_when_the_budget_is_spent(key: str) -> None:
    """On a loaded machine the process may wait for the CPU past the deadline before an evaluation
    starts; a key that needs a few steps is still answered (the clock is looked at after a minimum of
    work), rather than refused."""
    with match_budget(0.0):
        assert compile_java("FOO.*").find("x" + key) == key
        assert compile_java("FOO.*").matches(key) is True
