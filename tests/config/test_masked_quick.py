"""The quick paths of config/masked.py answer as the full ones: ``new BigInteger(text, 16)`` reads
ASCII hex digits as the digit-by-digit reading (``Character.digit(c, 16)``) does, also on texts
``int()`` alone would misread; whether a value decodes is known from its last block alone.

Decoding against the JDK itself is in test_masked.py.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from artemis_routing_cli.config import masked
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


GOOD = "3bdfd94fe8cdf710e7fefa72f809ea90"  # "defaultmasked" masked with the default key (two blocks)
KEYS = [masked.DEFAULT_KEY, b"abcd", b"", b"k" * 57]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789abcdefABCDEF-+g"), max_size=70), st.sampled_from(KEYS))
def test_the_last_block_decides_as_the_whole_decryption(text: str, key: bytes) -> None:
    assert masked._decodes(text, key) == (masked._decrypt(text, key) is not None)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789abcdef"), min_size=15, max_size=15),
       st.sampled_from("1234567"), st.integers(0, 3))
def test_values_that_decode_are_known_from_their_last_block(head: str, first: str, blocks: int) -> None:
    """Leading whole blocks of any bytes leave the last block, and so the verdict, as they were."""
    text = (first + head) * blocks + GOOD
    assert masked._decrypt(text, masked.DEFAULT_KEY) is not None
    assert masked._decodes(text, masked.DEFAULT_KEY)
    assert blowfish_decodes(text)
    assert not masked._decodes(text[:-1], masked.DEFAULT_KEY)  # (its last block is always GOOD's shifted)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789abcdefABCDEF"), min_size=1, max_size=60))
def test_the_quick_last_block_is_the_last_block_of_the_bytes_read(text: str) -> None:
    """decoding_failure takes an unsigned ASCII hex value's last block from its low 64 bits: the
    block BigInteger's bytes, zero-padded to whole blocks, end with."""
    seen: list[bytes] = []

    def recording(key: bytes):
        def decrypt_block(block: bytes) -> bytes:
            seen.append(block)
            return block
        return decrypt_block

    real = masked._cipher
    masked._cipher = recording  # type: ignore[assignment]
    try:
        masked.decoding_failure(text, b"any key")
    finally:
        masked._cipher = real  # type: ignore[assignment]
    data = hex_big_integer_bytes(text)
    assert data is not None
    padded = bytes(-len(data) % 8) + data
    assert seen == [padded[-8:]]
