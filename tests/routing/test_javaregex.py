"""Java-regex adapter: API behaviour, refusals of untranslatable constructs, portability notes.

Equivalence with a real JVM is in test_javaregex_oracle.py.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from artemis_routing_cli.errors import ArouterError
from artemis_routing_cli.routing.javaregex import (
    JavaPattern,
    JavaRegexError,
    check_java,
    compile_java,
    portability_notes,
)

EMOJI = "\U0001F600"


@pytest.mark.parametrize(
    ("pattern", "construct", "index"),
    [
        ("(?c)a", "(?c)", 0),
        ("x\\b{g}", "\\b{g}", 1),
        ("(?iu)(a)\\1", "\\1", 8),
        ("(a\\1)", "\\1", 2),
        ("(?<=\\X)a", "\\X", 4),
        ("(?<=\\w+\\w+)" + EMOJI, "(?<=...)", 0),
    ],
)
def test_untranslatable_constructs_are_refused_with_their_name(pattern, construct, index):
    with pytest.raises(JavaRegexError) as info:
        compile_java(pattern)
    err = info.value
    assert isinstance(err, ArouterError)
    assert err.construct == construct
    assert err.index == index
    assert construct in str(err)
    assert "\n" not in str(err)


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


def test_utf16_stepping_lookbehind_refuses_non_bmp_text_only():
    jp = compile_java("(?<=a.)x")
    assert jp.find("abx") == "x"
    assert jp.matches("abx") is False
    with pytest.raises(JavaRegexError) as info:
        jp.find("a" + EMOJI + "x")
    assert info.value.construct == "look-behind"
    # A supplementary character in the pattern makes Java step by code points: no refusal.
    assert compile_java("(?<=a.)x" + EMOJI + "?").find("a" + EMOJI + "x") == "x"


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
    code = ("import sys\nfrom artemis_routing_cli.routing.javaregex import check_java\n"
            "check_java('^FOO[0-9]+$')\nprint('regex' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr
