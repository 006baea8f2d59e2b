"""Java ``String`` behaviour the broker relies on, in one place."""

from __future__ import annotations


def java_split(text: str, sep: str = ",") -> list[str]:
    """Java ``String.split`` with a one-character literal separator: trailing empties dropped."""
    parts = text.split(sep)
    while parts and parts[-1] == "":
        parts.pop()
    if not parts and text == "":
        return [""]
    return parts
