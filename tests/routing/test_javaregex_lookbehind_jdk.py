"""A look-behind over a node that never gives characters back, held against the JDK.

java.util.regex bounds the atoms inside a look-behind by the region's end, not by the look-behind's
position: only the look-behind's last node checks that the body ends there. A possessive quantifier,
an atomic group or a repeated ``\\R`` inside it can therefore take characters *after* the position
and, never giving them back, make the body fail where a backtracking engine bounded at the position
(the ``regex`` package) matches: ``\\h(?<!ı{0,3}+)`` finds the blank of ``"\\u2003ı"`` on Java 17.
Issue 36 found it on a key-filter; the neighbouring ``$`` cases (U+0085 and the other line
terminators, UNIX_LINES, MULTILINE) are here too, since that key-filter's first branch is ``$``.

EXPECTED holds Java 17's answers (so the file runs without a JDK); with one on PATH every answer is
asked of the JDK again.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from artemis_routing_cli.jregex.javaregex import compile_java

HERE = Path(__file__).resolve().parent

ISSUE_36 = ("(?U)$|\U0001d400{0,2}+\u093f{0,2}+(?s:^[\\u0300-\\u036f\\H\\p{IsLu}]).{2}"
            "|\u0937?+\ufb01{0,2}\\h(?<!\u0131{0,3}+[\\d]{0,3})")

# (pattern, text, find()'s group 0 on Java 17 or None)
EXPECTED: list[tuple[str, str, str | None]] = [
    (ISSUE_36, "\u0085 \u0085$\u2003\u0131", "\u2003"),
    # the rule, smallest: the possessive body takes the character after the position
    ("\\h(?<!\u0131{0,3}+)", "\u2003\u0131", "\u2003"),
    ("\\h(?<!\u0131{0,3}+)", "\u2003", None),
    ("\\h(?<!\u0131{0,3}+[\\d]{0,3})", "\u2003\u0131", "\u2003"),
    ("a(?<!b?+)", "ab", "a"),
    ("x(?<=x(?:b?+))", "xb", None),
    ("x(?<=x(?:b?+))", "xc", "x"),
    ("x(?<=x(?>b?))", "xb", None),
    ("a(?<=(?>ab|a))", "ab", None),
    ("a(?<!(?>ab|a))", "ab", "a"),
    ("x(?<=x(?:ab){0,2}+)", "xab", None),
    ("x(?<=x.{0,2}+)", "xbb", None),
    ("\\r(?<=\\R{1,2})", "\r\n", None),
    # a greedy or lazy body backtracks to the position: no difference
    ("x(?<=x(?:b??))", "xb", "x"),
    ("\\r(?<=\\R)", "\r\n", "\r"),
    ("\\h(?<!\u0131{0,3})", "\u2003\u0131", None),
    # look-ahead inside a look-behind sees past the position on both
    ("x(?<=x(?=b?+))", "xb", "x"),
    ("x(?<=x(?!b))", "xb", None),
    # $ before U+0085 and the other line terminators, with UNIX_LINES and MULTILINE
    ("(?U)$", "a\u0085", ""),
    ("(?U)$|\\h", "\u0085 ", " "),
    ("(?U)(?m)$|\\h", "\u0085 ", ""),
    ("(?U)(?d)$|\\h", "\u0085 ", " "),
    ("(?U)(?dm)$|\\h", "\u0085 ", " "),
    ("$|\\h", "\u2028 \u0085", " "),
    ("$|\\h", "\u0085 \u0085$\u2003\u0131", " "),
    ("(?d)x(?<=x$)", "x\n", "x"),
    ("(?m)x(?<=x$)", "x\nb", "x"),
]


def _oracle():
    spec = importlib.util.spec_from_file_location("javaregex_oracle", HERE / "java" / "javaregex_oracle.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("javaregex_oracle", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("pattern", "text", "found"), EXPECTED, ids=[ascii(c[:2])[:60] for c in EXPECTED])
def test_find_is_java_17s(pattern: str, text: str, found: str | None) -> None:
    assert compile_java(pattern).find(text) == found


def test_a_possessive_or_atomic_node_in_a_look_behind_runs_on_the_matcher() -> None:
    for pattern in ("\\h(?<!\u0131{0,3}+)", "x(?<=x(?>b?))", "\\r(?<=\\R{1,2})", ISSUE_36):
        assert compile_java(pattern).engine_only, pattern
    for pattern in ("\\h(?<!\u0131{0,3})", "a++(?<=a)", "(?>ab)(?<=b)"):
        assert not compile_java(pattern).engine_only, pattern


def test_expected_answers_are_the_jdks() -> None:
    oracle = _oracle()
    if (why := oracle.missing_tools()) is not None:
        pytest.skip(why)
    answers = oracle.run_oracle(oracle.compile_oracle(), [(p, t) for p, t, _ in EXPECTED])
    assert [a.found for a in answers] == [f for _, _, f in EXPECTED]


def _random_cases(seed: int, count: int) -> list[tuple[str, str]]:
    """Look-behinds over possessive, atomic, greedy and lazy bodies, on short texts of their letters."""
    rng = random.Random(seed)
    atoms = ["a", "b", "\\d", "[ab]", ".", "\u0131", "\\h", "(?:ab)", "(?:a|ab)", "\\R"]
    quants = ["?", "??", "?+", "{0,2}", "{0,2}+", "{1,2}+", "{0,3}?", ""]

    def body() -> str:
        parts = []
        for _ in range(rng.randint(1, 3)):
            part = rng.choice(atoms) + rng.choice(quants)
            parts.append(f"(?>{part})" if rng.random() < 0.15 else part)
        return "".join(parts)

    cases = []
    for _ in range(count):
        look = f"(?<{rng.choice('=!')}{body()})"
        pattern = rng.choice([f"{rng.choice(atoms)}{look}", f"{look}{rng.choice(atoms)}", f"[ab ]{look}\\w?"])
        text = "".join(rng.choice("ab1 \u0131\r\n") for _ in range(rng.randint(0, 7)))
        cases.append((pattern, text))
    return cases


def test_random_look_behinds_find_what_java_finds() -> None:
    oracle = _oracle()
    if (why := oracle.missing_tools()) is not None:
        pytest.skip(why)
    cases = _random_cases(36, 1500)
    answers = oracle.run_oracle(oracle.compile_oracle(), cases)
    wrong = [(p, t, a.found, compile_java(p).find(t)) for (p, t), a in zip(cases, answers, strict=True)
             if a.error is None and compile_java(p).find(t) != a.found]
    assert wrong == []
