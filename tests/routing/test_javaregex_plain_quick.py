"""jregex/plain.py's quick steps answer as the steps they stand in for.

``plain_notes`` reads runs of literals at once, tells a pattern with one pair of parentheses (and no
escape or class) balanced in one match, and looks at ranges class by class only where the match
used a range other than A-Z, a-z, 0-9 (its only capturing group). ``_reference`` below is the plain
answer without those steps (one literal at a time, every pattern's parentheses paired by taking the
rest out, every class's ranges looked at); both must give the same answer on every input (that
answer equals the full parser's: test_javaregex_plain.py).
"""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artemis_routing_cli.jregex import plain
from artemis_routing_cli.jregex._notes import ascii_shorthand_note
from artemis_routing_cli.jregex.plain import plain_notes
from tests.conftest import REPO

from .test_javaregex_plain import _LETTERS, _METAS, _subset

_CLASS_ITEM = f"(?:[0-9A-Za-z]-[0-9A-Za-z]|{plain._CLASS_CHAR}|{plain._ESCAPE})"
_CLASS = rf"\[\^?(?:-{_CLASS_ITEM}*-?|{_CLASS_ITEM}+-?)\]"
_ONE_AT_A_TIME = re.compile(rf"(?:(?:{plain._LITERAL}|{plain._ESCAPE}|\.|{_CLASS}|\))(?:{plain._QUANTIFIER})?"
                            rf"|\((?:{plain._FLAGS}[:)])?|[|^$])*")


def _reference(pattern: str) -> tuple[str, ...] | None:
    if len(pattern) > plain._MAX_LENGTH or _ONE_AT_A_TIME.fullmatch(pattern) is None:
        return None
    if "(" in pattern or ")" in pattern:
        groups = plain._NOT_GROUP.sub("", pattern)
        for _ in range(plain._DEPTH):
            groups = groups.replace("()", "")
        if groups:
            return None
    if "-" in pattern and "[" in pattern:
        for chars in plain._CLASSES.findall(pattern):
            if any(low > high for low, high in plain._RANGE_ENDS.findall(chars)):
                return None
    if "," in pattern and any(int(low) > int(high) for low, high in plain._COUNTED.findall(pattern)):
        return None
    letters = dict.fromkeys(letter for letter in plain._SHORTHAND.findall(pattern) if letter)
    return tuple(ascii_shorthand_note(letter) for letter in letters)


_SETTINGS = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(st.one_of(_subset(ordered=True), _subset(ordered=False)))
def test_grammar_patterns_get_the_reference_answer(pattern: str) -> None:
    assert plain_notes(pattern) == _reference(pattern), pattern


@_SETTINGS
@given(st.lists(st.one_of(_subset(ordered=False), st.text(alphabet=_METAS + _LETTERS + "dDsSwW\u00e9", max_size=4)),
                max_size=4).map("".join))
def test_spliced_and_broken_patterns_get_the_reference_answer(pattern: str) -> None:
    assert plain_notes(pattern) == _reference(pattern), pattern


@_SETTINGS
@given(st.text(alphabet=st.sampled_from("()[]\\-^azAZ09.*?:i|{},"), max_size=24))
def test_parentheses_ranges_and_escapes_mixed_get_the_reference_answer(pattern: str) -> None:
    assert plain_notes(pattern) == _reference(pattern), pattern


def test_the_grammar_captures_nothing_but_unusual_ranges() -> None:
    assert plain._PLAIN.groups == 2  # the range of a class item, written twice in _CLASS
    for pattern, unusual in (("^R1-[A-Z]+", False), ("[a-zA-Z0-9_-]", False), ("[a-c]", True), ("[A-Z][z-a]", True),
                             ("[z-a][A-Z]", True), ("a-b(c)", False), ("[0-9A-F]", True)):
        match = plain._PLAIN.fullmatch(pattern)
        assert match is not None and (match.lastindex is not None) == unusual, pattern


CASES = ["^NODE4439(-.*)?$", "^R6164-[A-Z]+", "^EU-A[a-z]", "^Z-A[0-9]+", "^Z-A[9-0]", "[Z-a]", "[a-Z]",
         "\\w-a[b-c]", "[\\\\z-a]", "[A-Z][z-a]", "[z-a][A-Z]", "[a-zA-Z0-9]", "[^0-9-]", "[A-Za-z][b-a]x",
         "[-z-a]", "[a-c-]", "[^-9-0]", "(a)(b)", ")(", "(a))(", "((a)", "(\\()",
         "([(])", "[(]a)", "(?i)a", "(?i)(a)", "(?)", "(a)*?", "abc*", "a{2,1}(x)", "ab" * 600, "(" + "ab" * 600]


def test_chosen_patterns_get_the_reference_answer() -> None:
    for pattern in CASES:
        assert plain_notes(pattern) == _reference(pattern), pattern
    assert plain_notes("^EU-A[a-z]") == () and plain_notes("^Z-A[9-0]") is None


def test_a_long_run_of_literals_that_fails_at_its_end_is_read_once() -> None:
    """No backtracking through the ways to split a run (they would be exponential in its length): runs
    of 1,020 literals (patterns up to 1,024 characters are read) that fail at their end are answered
    within a generous hard cap (a subprocess, killed after it), where trying the splits would never end."""
    code = ("from artemis_routing_cli.jregex.plain import plain_notes\n"
            "print([plain_notes('a' * 1020 + tail) for tail in ('(', ')', '*+', '[', '\\u00e9', '{')])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str([None] * 6)
