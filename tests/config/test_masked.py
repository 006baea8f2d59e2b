"""Masked passwords (config/masked.py) against the JDK's own Blowfish and BigInteger.

The Java side (tests/config/java/MaskOracle.java, our own program) uses only the JDK: it masks
passwords as the broker's default codec does and says whether a masked text decodes. Without a
JDK on PATH the live comparison is skipped; the known vectors still run.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from artemis_routing_cli.config.masked import DEFAULT_KEY, _pi_words, blowfish_decodes, codec_key
from tests.javacache import compiled

HERE = Path(__file__).resolve().parent


def test_pi_words_are_blowfish_constants() -> None:
    words = _pi_words()
    # P1, P18, S1[0] and S4[255] as Schneier's paper lists them
    assert (words[0], words[17], words[18], words[-1]) == (0x243F6A88, 0x8979FB1B, 0xD1310BA6, 0x3AC372E6)


def test_pi_words_equal_machins_formula() -> None:
    """Every word, against pi summed another way (Machin: 16 atan(1/5) - 4 atan(1/239)), 64 guard bits."""
    count = len(_pi_words())
    bits = 32 * count + 64
    one = 1 << bits

    def atan_inv(x: int) -> int:
        total, term, k, sign = 0, one // x, 1, 1
        while term:
            total += sign * (term // k)
            term //= x * x
            k += 2
            sign = -sign
        return total

    frac = (16 * atan_inv(5) - 4 * atan_inv(239) - (3 << bits)) >> 64
    assert _pi_words() == tuple((frac >> (32 * (count - 1 - i))) & 0xFFFFFFFF for i in range(count))


def test_the_sample_value_decodes_and_broken_ones_do_not() -> None:
    good = "3bdfd94fe8cdf710e7fefa72f809ea90"
    assert blowfish_decodes(good)
    assert not blowfish_decodes("s3cret")  # not hexadecimal
    assert not blowfish_decodes("")  # Zero length BigInteger
    assert not blowfish_decodes("-")
    assert not blowfish_decodes(good[:-2])  # cut short
    assert not blowfish_decodes(good, b"another key")


def test_codec_key_follows_the_codec_the_property_and_the_environment() -> None:
    codec = "org.apache.activemq.artemis.utils.DefaultSensitiveStringCodec"
    assert codec_key(codec, {}, {}) == DEFAULT_KEY
    assert codec_key(codec + ";key=abcd", {}, {}) == b"abcd"
    assert codec_key(codec, {"artemis.default.sensitive.string.codec.key": "prop"}, {}) == b"prop"
    assert codec_key(codec, {"artemis.default.sensitive.string.codec.key": " "}, {"X": "y"}) == DEFAULT_KEY
    assert codec_key(codec, {}, {"ARTEMIS_DEFAULT_SENSITIVE_STRING_CODEC_KEY": "env"}) == b"env"
    assert isinstance(codec_key(codec + ";algorithm=one-way", {}, {}), str)
    assert isinstance(codec_key("com.example.MyCodec", {}, {}), str)


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory):
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("no JDK on PATH")
    out = compiled(HERE / "java" / "MaskOracle.java", options=())

    def ask(requests: list[tuple[str, bytes, str]]) -> list[str]:
        lines = "".join(f"{kind} {key.hex()} {text.encode('utf-8').hex()}\n" for kind, key, text in requests)
        done = subprocess.run(["java", "-cp", str(out), "MaskOracle"], input=lines, capture_output=True, text=True,
                              encoding="utf-8", check=True, timeout=120)
        return done.stdout.splitlines()

    return ask


def test_decoding_agrees_with_the_jdk(oracle) -> None:
    rng = random.Random(14)
    keys = [DEFAULT_KEY, b"abcd", b"a much longer key of fifty-six bytes, the most allowed!!"]
    passwords = ["", "a", "secret", "p\u00e4ss w\u00f6rd", "x" * 40] + [
        "".join(rng.choice("abcXYZ019 !") for _ in range(rng.randrange(1, 30))) for _ in range(40)]
    masks = oracle([("E", keys[i % len(keys)], p) for i, p in enumerate(passwords)])
    texts: list[tuple[bytes, str]] = []
    for i, masked in enumerate(masks):
        key = keys[i % len(keys)]
        texts.append((key, masked))
        texts.append((keys[(i + 1) % len(keys)], masked))  # decoded with the wrong key
        texts.append((key, masked[:-1]))  # cut short
        texts.append((key, masked.upper()))
        texts.append((key, "+" + masked))
    for _ in range(150):
        digits = "".join(rng.choice("0123456789abcdefABCDEF-+\u0661\uff21g ") for _ in range(rng.randrange(0, 40)))
        texts.append((rng.choice(keys), digits))
    answers = oracle([("D", key, text) for key, text in texts])
    assert len(answers) == len(texts)
    for (key, text), answer in zip(texts, answers, strict=True):
        assert blowfish_decodes(text, key) == (answer == "ok"), (key, text)
    assert answers.count("ok") >= len(masks)  # the comparison saw both answers
