"""A quick answer for plain Java regexes: ones Java compiles, whose portability notes are known at sight.

A router's filters are usually plain (``^R12-[A-Z]+``, ``^NODE7(-.*)?$``, ``^.{3}``, ``^[a-z]+\\d{2}``),
and a large broker.xml holds thousands of different ones: parsing each as java.util.regex does costs
far more than recognising this subset with a precompiled ``re`` (the group structure is checked apart).

:func:`plain_notes` answers only for patterns written in a conservative subset of the syntax:
ASCII literals that are no metacharacter, ``\\`` before ASCII punctuation, ``\\d \\D \\s \\S \\w \\W``,
``.``, ``^``, ``$``, classes of ASCII literals, those escapes and ranges between ASCII letters or
digits (``-`` also first or last), groups ``(...)``, ``(?:...)`` and ``(?i:...)`` nested at most
four deep, flags ``(?i)`` (``i m s d``, also turned off), ``|``, and after an atom or a group one
quantifier ``* + ? {n} {n,} {n,m}`` (at most four digits), lazy or not. For every such pattern
:func:`~artemis_routing_cli.jregex.javaregex.check_java` finds no error, and its notes are the ones
on ``.`` and ``$`` and the ones on the shorthand escapes, in the order they are first written:
:func:`plain_notes` returns the latter. None means "not known": ask the full parser.
"""

from __future__ import annotations

import re

from ._notes import ascii_shorthand_note

__all__ = ["plain_notes"]

_METAS = "\\^$.|?*+()[]{}"
_ASCII = [chr(c) for c in range(0x20, 0x7F)]


def _chars(chars: list[str]) -> str:
    """A ``re`` class of ``chars``, written with ranges (a short pattern compiles quickly)."""
    codes = sorted(map(ord, chars))
    runs: list[list[int]] = []
    for code in codes:
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])

    def one(code: int) -> str:
        return chr(code) if chr(code).isalnum() else "\\" + chr(code)

    return "[" + "".join(one(a) if a == b else f"{one(a)}-{one(b)}" for a, b in runs) + "]"


_LITERAL = _chars([c for c in _ASCII if c not in _METAS])
_ESCAPE = r"\\" + _chars([c for c in _ASCII if not c.isalnum()] + list("dDsSwW"))
_CLASS_CHAR = _chars([c for c in _ASCII if c not in "[]\\&^-"])
# A range between ASCII letters or digits; the usual three are told apart, any other is captured (the
# grammar's only capturing groups: a match that used one has a lastindex, and its order is then checked).
_CLASS_ITEM = f"(?:A-Z|a-z|0-9|([0-9A-Za-z]-[0-9A-Za-z])|{_CLASS_CHAR}|{_ESCAPE})"
_CLASS = rf"\[\^?(?:-{_CLASS_ITEM}*-?|{_CLASS_ITEM}+-?)\]"
_QUANTIFIER = r"(?:[*+?]|\{[0-9]{1,4}(?:,[0-9]{0,4})?\})\??"
# Flags that change no note and no verdict on this subset (not x, which makes '#' a comment; c, u, U)
_FLAGS = r"\?[imsd]*(?:-[imsd]*)?"
# Every item, ``(``, ``(?:``, ``(?i:`` and ``)`` (the only one of them a quantifier may follow), a
# flag group such as ``(?i)``, ``|``, ``^``, ``$``.
# Literals are taken a run at a time (a quantifier after the run binds to its last one: the same
# patterns match); a run ends before a quantifier or a character that is no literal, so that no shorter
# run matches too (a failing match does not try the ways to split a run).
_PLAIN = re.compile(rf"(?:{_LITERAL}+(?:{_QUANTIFIER}|(?!{_LITERAL}))|(?:{_ESCAPE}|\.|{_CLASS}|\))(?:{_QUANTIFIER})?"
                    rf"|\((?:{_FLAGS}[:)])?|[|^$])*")
# In a pattern of that grammar, everything but the parentheses of groups.
_NOT_GROUP = re.compile(r"\\.|\[(?:\\.|[^\]\\])*\]|[^()\\[]+")
_DEPTH = 4
# A pattern whose parentheses are certainly one pair of a group: no escape or class, one '(' and after it one ')'.
_ONE_PAIR = re.compile(r"[^()\\\[]*\([^()\\\[]*\)[^()\\\[]*")
# What the grammar cannot check: a range's ends in order (in each class), a counted quantifier's
# bounds in order (looked for anywhere: a find in a class only sends the pattern to the full parser).
_CLASSES = re.compile(r"\\.|(\[(?:\\.|[^\]\\])*\])")
_RANGE_ENDS = re.compile(r"([0-9A-Za-z])-([0-9A-Za-z])")
_COUNTED = re.compile(r"\{([0-9]+),([0-9]+)\}")
# The shorthand escapes, each escape read as one (so that ``\\\\d`` is no ``\\d``).
_SHORTHAND = re.compile(r"\\([dDsSwW])|\\.")
_MAX_LENGTH = 1024


def _range_backwards(pattern: str) -> bool:
    """Whether a class of ``pattern`` (of the grammar) has a range whose ends are out of order."""
    for chars in _CLASSES.findall(pattern):
        for low, high in _RANGE_ENDS.findall(chars):
            if low > high:
                return True
    return False


def plain_notes(pattern: str) -> tuple[str, ...] | None:
    """For a pattern of the plain subset, its portability notes but those on ``.`` and ``$``, as
    the full parse lists them (Java compiles it); None for any other pattern (not known)."""
    if len(pattern) > _MAX_LENGTH:
        return None
    match = _PLAIN.fullmatch(pattern)
    if match is None:
        return None
    if ("(" in pattern or ")" in pattern) and _ONE_PAIR.fullmatch(pattern) is None:
        groups = _NOT_GROUP.sub("", pattern)
        for _ in range(_DEPTH):  # each pass takes away the innermost pairs
            groups = groups.replace("()", "")
        if groups:
            return None  # unbalanced, or nested deeper than _DEPTH
    if match.lastindex is not None and _range_backwards(pattern):  # a range other than A-Z, a-z, 0-9
        return None
    if "," in pattern and any(int(low) > int(high) for low, high in _COUNTED.findall(pattern)):
        return None
    if "\\" not in pattern:
        return ()
    letters = dict.fromkeys(letter for letter in _SHORTHAND.findall(pattern) if letter)
    return tuple(ascii_shorthand_note(letter) for letter in letters)
