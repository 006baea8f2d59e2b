"""Java-regex adapter: API behaviour, Java 17 answers on UTF-16 texts, portability notes.

Equivalence with a real JVM is in test_javaregex_oracle.py.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from artemis_routing_cli.jregex.javaregex import (
    JavaPattern,
    JavaRegexError,
    check_java,
    compile_java,
    portability_notes,
)

EMOJI = "\U0001F600"


FAMILY = "\U0001F468\u200d\U0001F469"  # man ZWJ woman: one cluster (GB11)

# (pattern, text, find() group 0, matches()) as OpenJDK 17 answers them (checked live below).
JDK17: list[tuple[str, str, str | None, bool]] = [
    # find() tries every UTF-16 unit as a start: a match can begin at the low half of a pair.
    ("\\uDC68x", "\ud83d\udc68x", "\udc68x", False),
    ("\\B.\\B", "a" + EMOJI, "\ude00", False),
    ("\\X{2}", FAMILY, "\udc68\u200d", False),
    ("\\X{2}", FAMILY + "a", FAMILY + "a", True),
    (".", "\ude00" + EMOJI, "\ude00", False),
    ("[\\uDC00-\\uDFFF]", EMOJI, None, False),  # a class reads the pair; the range makes it StartS
    # \X is Java 17's: an Indic conjunct (KA VIRAMA SSA) is two clusters.
    ("\\X", "\u0915\u094d\u0937", "\u0915\u094d", False),
    ("\\X\\X", "\u0915\u094d\u0937", "\u0915\u094d\u0937", True),
    # patterns arouter refused before
    ("\\b{g}x", "ax", "x", False),
    ("x\\b{g}", "x\u0301", None, False),
    ("(?c)[\u00e9]", "e\u0301", "e\u0301", True),
    ("(?c)a", "a", "a", True),
    ("(?<=\\X)a", "ba", None, False),  # \X adds nothing to the look-behind's maximum: never true
    ("(?<=.{2}).", "a" + EMOJI + "x", None, False),  # two UTF-16 units back, read forward
    ("(?<=.{2}).", EMOJI + "xy", "y", False),
    ("(?<=\\p{L})\\d+", "\U0001D400" + "12", None, False),
    ("(?<=\\p{L})\\d+", "\U00010400" + "7", None, False),
    ("(?iu)(a)\\1", "aA", "aA", True),
    ("(a\\1)", "aa", None, False),
    ("(?<=\\w+\\w+)" + EMOJI, "ab" + EMOJI, EMOJI, False),
]


@pytest.mark.parametrize(("pattern", "text", "found", "whole"), JDK17)
def test_java_17_answers_on_surrogates_clusters_and_formerly_refused_patterns(pattern, text, found, whole):
    jp = compile_java(pattern)
    assert jp.find(text) == found
    assert jp.matches(text) is whole


def test_the_jdk17_table_is_the_jdk_s(tmp_path):
    """The table above, asked of the JDK here (the recording is the JVM's, not ours)."""
    from tests.javarun import needs_jdk
    from tests.routing.test_javaregex_heldout import _java, heldout

    needs_jdk()
    verdicts = heldout.run([(p, t) for p, t, _, _ in JDK17])
    assert [_java(v, t) for v, (_, t, _, _) in zip(verdicts, JDK17, strict=True)] == [
        ("ok", f, w) for _, _, f, w in JDK17]


def test_java_syntax_errors_win_over_untranslatable_constructs():
    with pytest.raises(JavaRegexError) as info:
        compile_java("(?c)a(")
    assert info.value.construct is None
    assert "Unclosed group" in str(info.value)
    assert info.value.index == 6


def test_syntax_error_names_java_description_and_index():
    with pytest.raises(JavaRegexError) as info:
        compile_java("a{3,1}")
    assert info.value.construct is None
    assert info.value.index == 5
    assert "Illegal repetition range near index 5" in str(info.value)


def test_overflowing_lookbehind_is_never_satisfied_like_java():
    jp = compile_java("(?<=a+b+)c")
    assert jp.find("abc") is None
    assert compile_java("(?<!a+b+)c").find("abc") == "c"


def test_find_and_matches_follow_the_broker_calls():
    jp = compile_java("[0-9]+")
    assert jp.find("client-42-7") == "42"
    assert jp.matches("42") is True
    assert jp.matches("client-42") is False
    assert jp.find("none") is None


def test_empty_pattern_finds_the_empty_string():
    jp = compile_java("")
    assert jp.find("abc") == ""
    assert jp.matches("") is True
    assert jp.matches("a") is False


def test_pattern_is_frozen_and_cached():
    jp = compile_java(r"\w+")
    assert isinstance(jp, JavaPattern)
    assert jp.source == r"\w+"
    assert jp.python == "[0-9A-Z_a-z]+"
    assert compile_java(r"\w+") is jp
    with pytest.raises(dataclasses.FrozenInstanceError):
        jp.source = "x"  # type: ignore[misc]


def test_python_surrogate_pairs_count_as_one_character_like_java():
    assert compile_java(".").find("\ud83d\ude00") == EMOJI
    assert compile_java("\\uD83D\\uDE00").matches(EMOJI) is True


def test_portability_notes_name_the_differences():
    notes = portability_notes(r"^\w+$")
    assert any("\\w is ASCII-only" in n for n in notes)
    assert any("before a final line terminator" in n for n in notes)
    assert any("\\b on Java 17" in n for n in portability_notes(r"\bx"))
    assert any("POSIX" in n for n in portability_notes(r"\p{Alpha}"))
    assert any("ASCII-only" in n for n in portability_notes("(?i)é"))
    assert any("intersections" in n for n in portability_notes("[a-z&&[^aeiou]]"))
    assert any("possessive" in n for n in portability_notes("a*+"))


def test_portability_notes_empty_when_nothing_notable_or_invalid():
    assert portability_notes("abc") == []
    assert portability_notes("tenant-[0-9]+") == []
    assert portability_notes("(") == []


def _verdict(fn, pattern):
    try:
        return "ok", tuple(fn(pattern))
    except JavaRegexError as err:
        return "error", str(err), err.construct, err.index


def test_check_java_gives_compile_java_verdict_and_notes():
    """validate checks patterns without compiling them; its verdict must be compile_java's."""
    from tests.routing.test_javaregex_oracle import CASES

    patterns = sorted({p for p, _ in CASES} | {"(?c)a", "x\\b{g}", "(a\\1)", "a{2,1}", "[a-", "\\w+\\b", ""})
    for pattern in patterns:
        expected = _verdict(lambda p: compile_java(p).notes, pattern)
        assert _verdict(check_java, pattern) == expected, pattern


def test_checking_a_pattern_does_not_import_the_regex_package():
    code = ("import sys\nfrom artemis_routing_cli.jregex.javaregex import check_java\n"
            "check_java('^FOO[0-9]+$')\nprint('regex' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_a_huge_key_on_the_matcher_is_an_error_not_a_crash():
    """Hostile input: 40,000 iterations of a group on the UTF-16 matcher end in one plain error
    (Java itself would overflow its stack), never in a crashed interpreter."""
    key = "ab" * 20000 + EMOJI
    with pytest.raises(JavaRegexError) as info:
        compile_java("(?:a|b)*" + EMOJI).find(key)
    assert "\n" not in str(info.value)
    assert compile_java("(?:ab)*" + EMOJI).find(key) == key  # a fixed-length group repeats without nesting
