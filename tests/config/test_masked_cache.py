"""The Blowfish key schedule (521 encryptions) is set up once per key, not once per password."""

from __future__ import annotations

from artemis_routing_cli.config import masked
from artemis_routing_cli.config.masked import blowfish_decodes


def test_the_key_schedule_is_worked_out_once_per_key(monkeypatch) -> None:
    # a file with thousands of ENC() passwords sets its key up once
    built: list[bytes] = []
    real = masked._Blowfish

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, key: bytes) -> None:
            built.append(key)
            super().__init__(key)

    monkeypatch.setattr(masked, "_Blowfish", Counting)
    masked._cipher.cache_clear()
    masked._decodes_cached.cache_clear()
    answers = [blowfish_decodes(text, key) for text in ("1234", "abcd", "8f3c") for key in (b"k1k1", b"k2k2")]
    masked._cipher.cache_clear()
    masked._decodes_cached.cache_clear()
    assert sorted(built) == [b"k1k1", b"k2k2"] and len(answers) == 6


def test_a_long_masked_value_is_answered_without_being_remembered() -> None:
    long_value = "1" * 600
    masked._decodes_cached.cache_clear()
    assert blowfish_decodes(long_value) == blowfish_decodes(long_value)
    assert masked._decodes_cached.cache_info().currsize == 0
    assert blowfish_decodes("1234") == blowfish_decodes("1234")
    assert masked._decodes_cached.cache_info().hits == 1
