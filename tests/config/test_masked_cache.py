"""The Blowfish key schedule is set up once per key, not once per password (by either engine)."""

from __future__ import annotations

import pytest

from artemis_routing_cli.config import masked
from artemis_routing_cli.config.masked import blowfish_decodes


@pytest.mark.parametrize("engine", ["libcrypto", "python"])
def test_the_key_schedule_is_worked_out_once_per_key(monkeypatch, engine: str) -> None:
    # a file with thousands of ENC() passwords sets its key up once
    built: list[bytes] = []
    real_python, real_c = masked._Blowfish, masked.block_decrypter

    class Counting(real_python):  # type: ignore[misc, valid-type]
        def __init__(self, key: bytes) -> None:
            built.append(key)
            super().__init__(key)

    def counting_c(key: bytes) -> masked.BlockDecrypter | None:
        if engine == "python":
            return None  # libcrypto missing: the Python cipher
        built.append(key)
        return real_c(key)

    monkeypatch.setattr(masked, "_Blowfish", Counting)
    monkeypatch.setattr(masked, "block_decrypter", counting_c)
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
