"""Randomised held-out check of the Java-regex adapter against the JDK here (OpenJDK 17).

Random patterns from a grammar of Java regex constructs (look-arounds, look-behind, ``\\X``,
``\\b{g}``, back-references, possessive and lazy quantifiers, flags including ``(?c)``, surrogate
escapes, broken syntax) times random keys (surrogate pairs, lone surrogates, combining marks, an
Indic conjunct, emoji ZWJ sequences, regional indicators, Hangul jamo, line terminators), each run
by arouter and by tests/routing/java/RegexHeldOut.java — the broker's own calls:
``Pattern.compile(p)``, ``matcher(t).find()`` with group 0, ``matcher(t).matches()``. Seeded and
bounded: every disagreement is a bug.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from artemis_routing_cli.jregex._javaregex_match import to_text, units
from artemis_routing_cli.jregex.javaregex import JavaRegexError, compile_java
from tests.javarun import needs_jdk

HERE = Path(__file__).resolve().parent


def _heldout():
    spec = importlib.util.spec_from_file_location("regex_heldout", HERE / "java" / "heldout.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("regex_heldout", module)
    spec.loader.exec_module(module)
    return module


heldout = _heldout()

KEY_PIECES = [
    "a", "b", "x", "A", "1", " ", "_", "\u00e9", "e\u0301", "\u0301", "\u0915\u094d\u0937", "\u0915",
    "\U0001F600", "\U0001F468\u200d\U0001F469", "\u200d", "\U0001F1EB\U0001F1F7", "\ud83d", "\ude00",
    "\n", "\r\n", "\r", "\u0085", "\u00a0", "\u1100\u1161\u11a8", "\uac00", "\U0001D7CE", "\u0600", "\u0e33",
]

ATOMS = [
    "a", "b", "x", "\u00e9", "\U0001F600", "\\uD83D", "\\uDE00", "\\x{1F600}", "\\u0301", ".", "[ab]", "[^a]",
    "[\\p{L}]", "\\p{L}", "\\P{L}", "\\pM", "\\d", "\\w", "\\W", "\\s", "\\X", "\\b", "\\B", "\\b{g}", "^", "$",
    "\\R", "\\z", "\\Z", "\\A", "\\G", "[\\x{1F600}-\\x{1F64F}]", "[\\uD800-\\uDBFF]", "\\p{So}", "\\p{Cs}",
    "[a-z&&[^b]]", "\\1", "\\Qa.\\E", "ab", "e\\u0301", "\\p{IsLatin}", "\\h", "\\p{InEmoticons}",
    "x\\uD83D", "\\x41\\x{1F600}", "(?i)[a-z]", "\\u0915\\u094d", "[\\uDC00-\\uDFFF]",
]
FLAGS = ["", "", "", "(?i)", "(?u)", "(?iu)", "(?U)", "(?c)", "(?s)", "(?m)", "(?d)", "(?x)", "(?c)(?i)"]
QUANTS = ["", "", "", "*", "+", "?", "{2}", "{1,2}", "{0,3}", "*?", "+?", "??", "*+", "++", "{1,2}+", "{2,}"]
BROKEN = ["(", ")", "[", "*", "a{2,1}", "(?<=a+)b", "\\k<x>", "(?<n>a)(?<n>b)", "\\p{Nope}", "[b-a]", "\\",
          "(?<=\\1)", "\\x{110000}", "(?z)", "a{", "\\c"]


def _pattern(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if depth < 2 and roll < 0.3:
            inner = _pattern(rng, depth + 1)
            if rng.random() < 0.3:
                inner += "|" + _pattern(rng, depth + 1)
            opener = rng.choice(["(", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?>", "(?i:", "(?<g>"])
            if opener == "(?<g>" and "(?<g>" in "".join(parts):
                opener = "("
            atom = opener + inner + ")"
        else:
            atom = rng.choice(ATOMS)
        parts.append(atom + rng.choice(QUANTS))
    return "".join(parts)


def _cases(seed: int, count: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        if rng.random() < 0.05:
            pattern = _pattern(rng) + rng.choice(BROKEN)
        else:
            pattern = rng.choice(FLAGS) + _pattern(rng)
        for _ in range(2):
            text = "".join(rng.choice(KEY_PIECES) for _ in range(rng.randint(0, 6)))
            cases.append((pattern, text))
    return cases


def _arouter(pattern: str, text: str) -> tuple:
    try:
        compiled = compile_java(pattern)
    except JavaRegexError as err:
        return ("error", err.construct, err.index, err.message)
    try:
        found = compiled.find(text)
        whole = compiled.matches(text)
    except JavaRegexError as err:
        return ("throws", err.construct)
    return ("ok", found, whole)


def _java(verdict, text: str) -> tuple:
    if verdict.error is not None:
        return ("error", verdict.error, verdict.index)
    if verdict.throws is not None:
        return ("throws", verdict.throws)
    found = None if verdict.span is None else to_text(units(text)[verdict.span[0]:verdict.span[1]])
    return ("ok", found, verdict.matches)


def _agree(ours: tuple, java: tuple) -> bool:
    if java[0] == "error":
        # Java rejects: so must arouter, with Java's description and index in the message shown.
        return ours[0] == "error" and ours[1] is None and ours[2] == java[2] and java[1] in ours[3]
    if java[0] == "throws":
        return ours[0] == "throws" and ours[1] == "matcher"
    return ours == java


@pytest.mark.parametrize("seed", [1, 2])
def test_random_patterns_and_keys_agree_with_the_jdk(seed: int, tmp_path) -> None:
    needs_jdk()
    cases = _cases(seed, 200)
    verdicts = heldout.run(cases)
    bad = []
    for (pattern, text), verdict in zip(cases, verdicts, strict=True):
        ours, java = _arouter(pattern, text), _java(verdict, text)
        if not _agree(ours, java):
            bad.append((pattern, text, ours, java))
    assert bad == [], f"{len(bad)} of {len(cases)} disagree; first: {bad[:5]!r}"
