"""The byte mutations every codec fuzz test applies to valid streams (one shared strategy)."""

from __future__ import annotations

from hypothesis import strategies as st


@st.composite
def mutated(draw: st.DrawFn, streams: list[bytes]) -> bytes:
    """One of ``streams`` with 1-4 random edits: a byte flipped, bytes inserted, a byte deleted, or the
    rest cut off."""
    data = bytearray(draw(st.sampled_from(streams)))
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            break
        where = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(["flip", "insert", "delete", "truncate"]))
        if action == "flip":
            data[where] = draw(st.integers(0, 255))
        elif action == "insert":
            data[where:where] = draw(st.binary(min_size=1, max_size=8))
        elif action == "delete":
            del data[where]
        else:
            del data[where:]
    return bytes(data)
