"""The quick answer for plain Java regexes (jregex/plain.py) says what the full parse says.

``plain_notes`` lets validate skip parsing a router filter; a pattern it takes must be one the
parser (itself checked against the JDK in test_javaregex_oracle.py) compiles, with the notes it
gives (but those on '.' and '$', which the rule leaves out), so that the router rule reports exactly
what it reported before.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artemis_routing_cli.jregex import javaregex
from artemis_routing_cli.jregex.javaregex import JavaRegexError, check_java
from artemis_routing_cli.jregex.plain import plain_notes
from artemis_routing_cli.rules.routers import parsed_filter_findings, worked_out_filter_findings

_METAS = "\\^$.|?*+()[]{}"
_LETTERS = "ADRZaz09_-: /#@~'\"&,<>="
_PUNCT = "".join(c for c in map(chr, range(0x20, 0x7F)) if not c.isalnum())


def _quantifier(ordered: bool) -> st.SearchStrategy[str]:
    counts = st.integers(0, 9999)
    counted = st.one_of(
        counts.map(lambda n: f"{{{n}}}"),
        counts.map(lambda n: f"{{{n},}}"),
        st.tuples(counts, counts).map(lambda p: "{{{},{}}}".format(*(sorted(p) if ordered else p))),
    )
    return st.tuples(st.one_of(st.sampled_from("*+?"), counted), st.sampled_from(["", "?"])).map("".join)


def _class(ordered: bool) -> st.SearchStrategy[str]:
    ends = st.sampled_from("0129ABYZabyz")
    pair = st.tuples(ends, ends).map(lambda p: "-".join(sorted(p) if ordered else p))
    char = st.sampled_from([c for c in map(chr, range(0x20, 0x7F)) if c not in "[]\\&^-"])
    escaped = st.sampled_from(_PUNCT + "dDsSwW").map(lambda c: "\\" + c)
    items = st.lists(st.one_of(pair, char, escaped), min_size=1, max_size=5).map("".join)
    return st.tuples(st.sampled_from(["[", "[^"]), st.sampled_from(["", "-"]), items,
                     st.sampled_from(["", "-"])).map(lambda t: t[0] + t[1] + t[2] + t[3] + "]")


_flags = st.tuples(st.text(alphabet="imsd", max_size=3), st.sampled_from(["", "-"]),
                   st.text(alphabet="imsd", max_size=2)).map(lambda t: t[0] + (t[1] + t[2] if t[1] else ""))


def _subset(ordered: bool) -> st.SearchStrategy[str]:
    """Patterns of the plain subset's grammar; with ``ordered`` False, ranges and counts may run
    backwards (which Java rejects)."""
    literal = st.sampled_from([c for c in map(chr, range(0x20, 0x7F)) if c not in _METAS])
    atom = st.one_of(literal, st.sampled_from(_PUNCT + "dDsSwW").map(lambda c: "\\" + c), st.just("."), _class(ordered))

    def sequence(depth: int) -> st.SearchStrategy[str]:
        """Items in 4 - ``depth`` groups: groups and flag groups (parentheses too) ``depth`` deep at most."""
        items = [st.tuples(unit(depth), st.one_of(st.just(""), _quantifier(ordered))).map("".join),
                 st.sampled_from("|^$")]
        if depth > 0:
            items.append(_flags.map(lambda f: f"(?{f})"))
        return st.lists(st.one_of(*items), max_size=6).map("".join)

    def unit(depth: int) -> st.SearchStrategy[str]:
        if depth == 0:
            return atom
        opener = st.one_of(st.just("("), _flags.map(lambda f: f"(?{f}:"))
        group = st.tuples(opener, sequence(depth - 1)).map(lambda t: t[0] + t[1] + ")")
        return st.one_of(atom, group)

    return sequence(4)


def _full_verdict(pattern: str) -> str | tuple[str, ...]:
    """The parser's answer: its error message, or its notes but those on '.' and '$'."""
    try:
        notes = check_java(pattern)
    except JavaRegexError as err:
        return err.message
    return tuple(n for n in notes if not n.startswith(("'.'", "'$'")))


def _same_findings(pattern: str) -> None:
    notes = plain_notes(pattern)
    if notes is not None:
        assert _full_verdict(pattern) == notes, pattern
    for name in ("key-filter", "local-target-filter"):
        if pattern.strip():
            assert worked_out_filter_findings(name, pattern) == parsed_filter_findings(name, pattern), pattern


_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(_subset(ordered=True))
def test_subset_patterns_are_taken_with_the_parsers_notes(pattern: str) -> None:
    """Every pattern of the subset's grammar is taken, and the parser finds the same notes."""
    assert plain_notes(pattern) is not None or len(pattern) > 1024, pattern
    _same_findings(pattern)


@_SETTINGS
@given(_subset(ordered=False))
def test_backward_ranges_and_counts_are_left_to_the_parser(pattern: str) -> None:
    _same_findings(pattern)


@_SETTINGS
@given(st.text(alphabet=st.sampled_from(_METAS + _LETTERS + "dDsSwWbpQEk1\u00e9\u2028\n\t\U0001F600"), max_size=30))
def test_random_metacharacter_strings_get_the_parsers_findings(pattern: str) -> None:
    _same_findings(pattern)


@_SETTINGS
@given(st.text(max_size=20))
def test_random_strings_get_the_parsers_findings(pattern: str) -> None:
    _same_findings(pattern)


PLAIN = ["^R12-[A-Z]+", "^NODE7(-.*)?$", "^.{3}", "^[A-Z0-9_-]+$", "(?:EU|US)-.*", "^client\\.[a-z]{2,8}$",
         "^a|b$", "[^-]*", "^R0-[A-Z]+", "(?i)^node-[a-z]+$", "(?i:eu|us)-(?-i:X)"]
NOTED = {"^[a-z]+\\d{2}": ["\\d"], "\\w+@\\S+\\.\\w+": ["\\w", "\\S"], "[\\s\\W-]x\\\\d": ["\\s", "\\W"]}


@pytest.mark.parametrize("pattern", PLAIN + list(NOTED))
def test_typical_filters_take_the_quick_answer(pattern: str) -> None:
    """The router rule answers typical filters without parsing them (the parse cache stays empty)."""
    javaregex._parse.cache_clear()
    found = [worked_out_filter_findings(name, pattern) for name in ("key-filter", "local-target-filter")]
    assert javaregex._parse.cache_info().misses == 0
    assert found[0] == parsed_filter_findings("key-filter", pattern)
    assert found[1] == parsed_filter_findings("local-target-filter", pattern)
    if pattern in NOTED:
        assert found[0][0][0] == "AR310"
        assert [note.split()[0] for note in found[0][0][1].split("): ", 1)[1].split("; ")] == NOTED[pattern]
    else:
        assert found == [(), ()]


NOT_PLAIN = [
    ("[z-a]", "Illegal character range"), ("a{3,2}", "Illegal repetition range"), ("(a", "Unclosed group"),
    ("a)", "Unmatched closing ')'"), ("a**", "Dangling meta character"), ("a{,2}", "Illegal repetition"),
    ("[]", "Unclosed character class"), ("\\w+\\b", "\\b on Java 17"), ("a*+", "possessive"),
    ("(?i)é", "ASCII-only"), ("\\bx", "\\b on Java 17"), ("[a&&b]", "intersections"),
]


@pytest.mark.parametrize(("pattern", "said"), NOT_PLAIN)
def test_patterns_with_something_to_say_are_parsed(pattern: str, said: str) -> None:
    assert plain_notes(pattern) is None
    found = worked_out_filter_findings("key-filter", pattern)
    assert found == parsed_filter_findings("key-filter", pattern)
    assert len(found) == 1 and said in found[0][1]


def test_deeper_nesting_long_patterns_and_other_flags_are_parsed() -> None:
    assert plain_notes("((((a))))") == ()
    assert plain_notes("(((((a)))))") is None
    assert plain_notes("a" * 1024) == ()
    assert plain_notes("a" * 1025) is None
    # (?U) takes the note off \\w, (?x) makes '#' start a comment, (?c) and (?u) have notes of their own
    for pattern in ("(?U)\\w", "(?x)a#(", "(?c)[a]", "(?u)a", "(?iU:a)"):
        assert plain_notes(pattern) is None, pattern
