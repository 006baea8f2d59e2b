"""``new BigInteger(text, 16)`` in config/masked.py: the quick reading of ASCII hex digits equals
the digit-by-digit one (``Character.digit(c, 16)``), also on texts ``int()`` alone would misread.

Decoding against the JDK itself is in test_masked.py.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from artemis_routing_cli.config.masked import blowfish_decodes, hex_big_integer_bytes, java_hex_digits


def _by_digits(text: str) -> bytes | None:
    """What BigInteger reads, every digit taken by Character.digit (one sign first)."""
    body = text[1:] if text[:1] in ("-", "+") else text
    value = java_hex_digits(body) if body else None
    if value is None:
        return None
    value = -value if text[:1] == "-" else value
    return value.to_bytes(value.bit_length() // 8 + 1, "big", signed=True)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789abcdefABCDEFgxX_ +-\t\n\u0661\uff21\uff46"), max_size=40))
def test_reading_equals_the_digit_by_digit_reading(text: str) -> None:
    assert hex_big_integer_bytes(text) == _by_digits(text)


def test_what_int_alone_would_take_is_not_hexadecimal() -> None:
    for text in ("1_0", "0x10", " 10", "10 ", "+-1", "-+1", "\u00b9", "+", "-", ""):
        assert hex_big_integer_bytes(text) is None, text
        assert not blowfish_decodes(text)
    assert hex_big_integer_bytes("ff") == b"\x00\xff"
    assert hex_big_integer_bytes("-ff") == b"\xff\x01"
    assert hex_big_integer_bytes("\uff26\u0661") == b"\x00\xf1"  # full-width F, Arabic-Indic one
    assert hex_big_integer_bytes("0" * 30 + "7f") == b"\x7f"
