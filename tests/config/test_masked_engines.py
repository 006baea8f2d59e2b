"""libcrypto's Blowfish (config/libcrypto_bf.py) answers as the Python cipher in config/masked.py,
which stays the reference and the fallback where libcrypto cannot be loaded."""

from __future__ import annotations

import random
import sys
import threading
from pathlib import Path

import pytest

from artemis_routing_cli.config import libcrypto_bf, masked
from tests.cli.test_validate_startup_modules import _loaded
from tests.conftest import SAMPLE

needs_libcrypto = pytest.mark.skipif(libcrypto_bf.block_decrypter(b"k") is None, reason="no libcrypto here")


@pytest.fixture
def python_engine(monkeypatch: pytest.MonkeyPatch):
    """Blowfish by the Python cipher alone (as where libcrypto is missing), the memos emptied around."""
    monkeypatch.setattr(masked, "block_decrypter", lambda key: None)
    _forget()
    yield
    _forget()


def _forget() -> None:
    masked._cipher.cache_clear()
    masked._decodes_cached.cache_clear()


@needs_libcrypto
def test_both_engines_decrypt_every_block_alike_under_every_key_length() -> None:
    rng = random.Random(21)
    for length in range(1, 57):
        for _ in range(3):
            key = rng.randbytes(length)
            quick, reference = libcrypto_bf.block_decrypter(key), masked._Blowfish(key)
            assert quick is not None
            for _ in range(40):
                block = rng.randbytes(8)
                assert quick(block) == reference.decrypt_block(block), (key, block)


@needs_libcrypto
def test_threads_sharing_a_key_get_their_own_blocks() -> None:
    key = b"clusterpassword"
    quick, reference = libcrypto_bf.block_decrypter(key), masked._Blowfish(key)
    assert quick is not None
    blocks = [random.Random(seed).randbytes(8 * 3000) for seed in range(4)]
    wrong: list[int] = []

    def work(data: bytes) -> None:
        for i in range(0, len(data), 8):
            block = data[i:i + 8]
            if quick(block) != reference.decrypt_block(block):
                wrong.append(i)

    threads = [threading.Thread(target=work, args=(data,)) for data in blocks]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch as often as they can
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert wrong == []


@needs_libcrypto
def test_the_quick_engine_takes_only_whole_blocks() -> None:
    quick = libcrypto_bf.block_decrypter(b"clusterpassword")
    assert quick is not None
    for wrong in (b"", b"1234567", b"123456789", bytearray(8), "12345678"):
        with pytest.raises(ValueError):
            quick(wrong)


def _verdicts() -> list[tuple[bool, str | None]]:
    """blowfish_decodes and blowfish_decode on random texts and keys (some of every allowed length,
    some refused), values masked with the default key among them."""
    rng = random.Random(7)
    keys = [masked.DEFAULT_KEY, b"", b"k" * 57, b"x" * 56] + [rng.randbytes(rng.randrange(1, 57)) for _ in range(6)]
    texts = ["3bdfd94fe8cdf710e7fefa72f809ea90", "3bdfd94fe8cdf710e7fefa72f809ea9", "-3bdf", "s3cret", ""]
    texts += ["".join(rng.choice("0123456789abcdef") for _ in range(rng.randrange(1, 70))) for _ in range(200)]
    out = []
    for text in texts:
        for key in keys:
            out.append((masked.blowfish_decodes(text, key), masked.blowfish_decode(text, key)))
    return out


@needs_libcrypto
def test_both_engines_give_the_same_verdicts_and_plain_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    _forget()
    quick = _verdicts()
    monkeypatch.setattr(masked, "block_decrypter", lambda key: None)
    _forget()
    reference = _verdicts()
    _forget()
    assert quick == reference
    assert any(ok for ok, _ in quick) and not all(ok for ok, _ in quick)


def test_without_libcrypto_the_python_cipher_decodes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(libcrypto_bf, "_SONAMES", ("libcrypto-that-is-not-there.so.0",))
    libcrypto_bf._library.cache_clear()
    _forget()
    built: list[bytes] = []
    real = masked._Blowfish

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, key: bytes) -> None:
            built.append(key)
            super().__init__(key)

    monkeypatch.setattr(masked, "_Blowfish", Counting)
    try:
        assert libcrypto_bf.block_decrypter(masked.DEFAULT_KEY) is None
        assert masked.blowfish_decode("3bdfd94fe8cdf710e7fefa72f809ea90") == "defaultmasked"
        assert not masked.blowfish_decodes("3bdfd94fe8cdf710e7fefa72f809ea9")
        assert built == [masked.DEFAULT_KEY]
    finally:
        libcrypto_bf._library.cache_clear()
        _forget()


def test_a_library_without_blowfish_is_passed_over(monkeypatch: pytest.MonkeyPatch) -> None:
    """A library that loads but has no BF_set_key (OpenSSL built without Blowfish) is not used."""
    monkeypatch.setattr(libcrypto_bf, "_SONAMES", ("libc.so.6",))
    libcrypto_bf._library.cache_clear()
    try:
        assert libcrypto_bf.block_decrypter(b"key") is None
    finally:
        libcrypto_bf._library.cache_clear()


def test_the_python_engine_alone_decodes_the_sample_value(python_engine) -> None:
    assert masked.blowfish_decode("3bdfd94fe8cdf710e7fefa72f809ea90") == "defaultmasked"
    assert not masked.blowfish_decodes("3bdfd94fe8cdf710e7fefa72f809ea90", b"another key")


def test_ctypes_is_loaded_only_for_a_password_to_decode(tmp_path: Path) -> None:
    plain = tmp_path / "broker.xml"
    text = SAMPLE.read_text(encoding="utf-8")
    while "ENC(" in text:  # every masked password written in plain text (AR402 instead of a decode)
        start = text.index("ENC(")
        text = text[:start] + "plain" + text[text.index(")", start) + 1:]
    plain.write_text(text, encoding="utf-8")
    assert _loaded(plain, "ctypes") == []
