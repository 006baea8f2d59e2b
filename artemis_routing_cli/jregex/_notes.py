"""The portability notes the Java regex parser and the plain-pattern quick answer both give, in one
place so that both say them in the same words (and the quick answer imports no parser)."""

from __future__ import annotations


def ascii_shorthand_note(letter: str) -> str:
    """The portability note on ``\\d \\D \\s \\S \\w \\W`` (``letter``) without (?U)."""
    return f"\\{letter} is ASCII-only in Java unless (?U) is on"
