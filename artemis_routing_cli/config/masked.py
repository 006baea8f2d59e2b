"""Masked passwords as the broker decodes them at start-up (PasswordMaskingUtil.resolveMask).

A pool's or the cluster's ``<password>`` written ``ENC(...)`` (or any password when
``<mask-password>true</mask-password>``) goes through the ``<password-codec>``, by default
``DefaultSensitiveStringCodec``. Its default algorithm ("two-way") is Blowfish as
``Cipher.getInstance("Blowfish")`` gives it (ECB, PKCS5 padding) with the key
``"clusterpassword"`` (or ``;key=`` in ``<password-codec>``, else the system property
``artemis.default.sensitive.string.codec.key`` when not blank, else the environment variable
``ARTEMIS_DEFAULT_SENSITIVE_STRING_CODEC_KEY``). The masked text is read as ``new BigInteger(text,
16).toByteArray()``, left-padded with zero bytes to a multiple of 8, then decrypted. Decoding throws,
and the broker does not start, when the text is not a hexadecimal number or the padding is wrong.

``decoding_failure`` says why decoding fails, if it does (broker.xml's passwords: only that is needed;
``blowfish_decodes`` and ``is_hex_big_integer`` say it in two remembered halves);
``blowfish_decode`` returns the plain text, for broker properties, whose every ``ENC(...)`` value the
broker decodes before it applies it. Callers never print it.
Blowfish is written out below (Schneier, 1993); its initial P-array and S-boxes are the hex
digits of pi's fraction, computed here rather than tabled. It is the reference and the fallback:
where the platform's libcrypto loads (config/libcrypto_bf.py), its Blowfish decrypts instead (the
same blocks, with no pi to work out and a block in C). Java's key-length rules stay here, in front.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from math import isqrt

from .libcrypto_bf import BlockDecrypter, block_decrypter

DEFAULT_KEY = b"clusterpassword"  # DefaultSensitiveStringCodec.BlowfishAlgorithm.internalKey
KEY_PROPERTY = "artemis.default.sensitive.string.codec.key"
KEY_ENV = "ARTEMIS_DEFAULT_SENSITIVE_STRING_CODEC_KEY"  # envVarNameFromSystemPropertyName(KEY_PROPERTY)
DEFAULT_CODEC = "org.apache.activemq.artemis.utils.DefaultSensitiveStringCodec"
_MASK32 = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1
_MAX_KEY = 56  # bytes (448 bits)
_WORDS = 18 + 4 * 256
_ASCII_HEX = re.compile("[0-9A-Fa-f]+")


@lru_cache(maxsize=1)
def _pi_words() -> tuple[int, ...]:
    """The first 1042 32-bit words of pi's fractional part.

    Chudnovsky's series, summed exactly by binary splitting (each term adds about 47 bits):
    pi = 426880 sqrt(10005) Q / T, worked out in integers scaled by 2**prec with 64 guard bits.
    """
    wanted = 32 * _WORDS
    prec = wanted + 64
    c3_24 = 640320 ** 3 // 24

    def split(a: int, b: int) -> tuple[int, int, int]:
        if b - a == 1:
            if a == 0:
                p = q = 1
            else:
                p = (6 * a - 5) * (2 * a - 1) * (6 * a - 1)
                q = a * a * a * c3_24
            t = p * (13591409 + 545140134 * a)
            return p, q, -t if a & 1 else t
        mid = (a + b) // 2
        p1, q1, t1 = split(a, mid)
        p2, q2, t2 = split(mid, b)
        return p1 * p2, q1 * q2, t1 * q2 + p1 * t2

    _, q, t = split(0, prec // 47 + 2)
    pi = 426880 * isqrt(10005 << (2 * prec)) * q // t  # pi * 2**prec
    frac = (pi - (3 << prec)) >> (prec - wanted)  # drop the guard bits
    return tuple((frac >> (32 * (_WORDS - 1 - i))) & _MASK32 for i in range(_WORDS))


class _Blowfish:
    def __init__(self, key: bytes) -> None:
        if not 1 <= len(key) <= _MAX_KEY:  # SunJCE: any non-empty key up to 448 bits
            raise ValueError("Blowfish key must be 1 to 56 bytes")
        words = _pi_words()
        self.p = p = list(words[:18])
        self.s = boxes = [list(words[18 + 256 * i:18 + 256 * (i + 1)]) for i in range(4)]
        pos = 0
        for i in range(18):
            word = 0
            for _ in range(4):
                word = (word << 8) | key[pos % len(key)]
                pos += 1
            p[i] ^= word
        # the schedule's 521 encryptions, with the round function written out (it is most of the set-up)
        s0, s1, s2, s3 = boxes
        rounds = p[:16]
        left = right = 0
        for table in (p, *boxes):
            for i in range(0, len(table), 2):
                for sub in rounds:
                    left ^= sub
                    right ^= ((((s0[left >> 24] + s1[(left >> 16) & 0xFF]) & _MASK32) ^ s2[(left >> 8) & 0xFF])
                              + s3[left & 0xFF]) & _MASK32
                    left, right = right, left
                left, right = right ^ p[17], left ^ p[16]
                table[i], table[i + 1] = left, right
                if table is p:
                    rounds = p[:16]

    def decrypt_block(self, block: bytes) -> bytes:
        left, right = int.from_bytes(block[:4], "big"), int.from_bytes(block[4:], "big")
        s0, s1, s2, s3 = self.s
        p = self.p
        for sub in p[17:1:-1]:
            left ^= sub
            # the round function F, written out; the first sum is not cut to 32 bits: its carry stays
            # above the 32 bits the XOR and the final cut work on
            right ^= (((s0[left >> 24] + s1[(left >> 16) & 0xFF]) ^ s2[(left >> 8) & 0xFF])
                      + s3[left & 0xFF]) & _MASK32
            left, right = right, left
        left, right = right, left
        return (left ^ p[0]).to_bytes(4, "big") + (right ^ p[1]).to_bytes(4, "big")


def is_enc_masked(text: str) -> bool:
    """PasswordMaskingUtil.isEncMasked: ``text`` is written ``ENC(...)``."""
    return text.startswith("ENC(") and text.endswith(")")


def hex_big_integer_bytes(text: str) -> bytes | None:
    """``new BigInteger(text, 16).toByteArray()``, or None where the constructor throws.

    Java reads one optional sign, then digits by ``Character.digit(c, 16)``, which also takes
    other Unicode decimal digits and the full-width Latin letters A-F.
    """
    body = text[1:] if text[:1] in ("-", "+") else text
    if not body:
        return None
    # int() reads ASCII hex digits as Java does (but alone it would also take '_', spaces and '0x')
    value = int(body, 16) if _ASCII_HEX.fullmatch(body) is not None else java_hex_digits(body)
    if value is None:
        return None
    if text[:1] == "-":
        value = -value
    length = value.bit_length() // 8 + 1  # two's complement with its sign bit, as toByteArray
    return value.to_bytes(length, "big", signed=True)


def java_hex_digits(body: str) -> int | None:
    """The unsigned hexadecimal number ``body`` (not empty), read digit by digit with
    ``Character.digit(c, 16)``; None when a character is no digit."""
    value = 0
    for ch in body:
        digit = _java_hex_digit(ch)
        if digit < 0:
            return None
        value = value * 16 + digit
    return value


def _java_hex_digit(ch: str) -> int:
    if ch.isdecimal():
        import unicodedata

        return unicodedata.decimal(ch)
    code = ord(ch)
    for base in (0x41, 0x61, 0xFF21, 0xFF41):  # A-F, a-f, full-width A-F and a-f
        if base <= code < base + 6:
            return 10 + code - base
    return -1


def blowfish_decode(masked: str, key: bytes = DEFAULT_KEY) -> str | None:
    """What the default codec's two-way algorithm decodes ``masked`` (the text inside ENC()) to, or
    None where it throws. The plain bytes become text as ``new String(bytes)`` makes them with the
    JDK's default charset, UTF-8 since Java 18 (malformed bytes become U+FFFD)."""
    plain = _decrypt(masked, key)
    return None if plain is None else plain.decode("utf-8", "replace")


@lru_cache(maxsize=4)
def _cipher(key: bytes) -> BlockDecrypter | None:
    """Blowfish decryption of one block under ``key`` (a file names one or two keys), None for a key
    SunJCE refuses: libcrypto's where it loads, else the cipher above (pi and 521 encryptions to set up)."""
    if not 1 <= len(key) <= _MAX_KEY:
        return None
    quick = block_decrypter(key)
    return quick if quick is not None else _Blowfish(key).decrypt_block


def blowfish_decodes(masked: str, key: bytes = DEFAULT_KEY) -> bool:
    """Whether the default codec's two-way algorithm decodes ``masked`` (the text inside ENC())."""
    if len(masked) <= _CACHED_LENGTH:
        return _decodes_cached(masked, key)
    return _decodes(masked, key)


def undecodable_reason(masked: str, key: bytes = DEFAULT_KEY) -> str:
    """The exception the default codec throws for ``masked`` (which does not decode), as its
    ``toString()``: the BigInteger failure is rethrown as ``IllegalArgumentException``, a key of the
    wrong size fails in ``SecretKeySpec``/``Cipher.init``, a wrong key or a value cut short in
    ``Cipher.doFinal`` (JDK 17's messages)."""
    if hex_big_integer_bytes(masked) is None:
        return "java.lang.IllegalArgumentException: Password must be encrypted."
    if not key:
        return "java.lang.IllegalArgumentException: Empty key"
    if len(key) > _MAX_KEY:
        return "java.security.InvalidKeyException: Key too long (> 448 bits)"
    return ("javax.crypto.BadPaddingException: Given final block not properly padded. Such issues can arise if "
            "a bad key is used during decryption.")


# A file often repeats one masked value (the same pool password in every router): short values'
# answers are remembered (a bounded number of short texts).
_CACHED_LENGTH = 512


@lru_cache(maxsize=256)
def _decodes_cached(masked: str, key: bytes) -> bool:
    return _decodes(masked, key)


def is_hex_big_integer(text: str) -> bool:
    """Whether ``new BigInteger(text, 16)`` reads ``text`` (short texts' answers remembered)."""
    if len(text) <= _CACHED_LENGTH:
        return _is_hex_cached(text)
    return hex_big_integer_bytes(text) is not None


@lru_cache(maxsize=256)
def _is_hex_cached(text: str) -> bool:
    return hex_big_integer_bytes(text) is not None


def _blocks(masked: str, key: bytes) -> tuple[BlockDecrypter, bytes] | None:
    """The cipher and the bytes it decrypts (a multiple of 8), or None where decoding throws first."""
    data = hex_big_integer_bytes(masked)
    if data is None:
        return None
    if len(data) % 8:
        data = bytes(8 - len(data) % 8) + data
    decrypt_block = _cipher(key)
    return None if decrypt_block is None else (decrypt_block, data)


def _padding(plain: bytes) -> int:
    """How many bytes of PKCS5 padding end ``plain`` (its last block decrypted), 0 when it is not padding."""
    pad = plain[-1]
    return pad if 1 <= pad <= 8 and plain[-pad:] == bytes([pad]) * pad else 0


def _decrypt(masked: str, key: bytes) -> bytes | None:
    got = _blocks(masked, key)
    if got is None:
        return None
    decrypt_block, data = got
    plain = b"".join(decrypt_block(data[i:i + 8]) for i in range(0, len(data), 8))
    pad = _padding(plain)
    return plain[:-pad] if pad else None


def _decodes(masked: str, key: bytes) -> bool:
    """``_decrypt(masked, key) is not None``: in ECB each block decrypts alone, and the padding the
    verdict depends on is in the last one."""
    got = _blocks(masked, key)
    if got is None:
        return False
    decrypt_block, data = got
    return _padding(decrypt_block(data[-8:])) > 0


NOT_HEXADECIMAL = "not hexadecimal"
NOT_PADDED = "not padded"


def decoding_failure(masked: str, key: bytes = DEFAULT_KEY) -> str | None:
    """Why the default codec's two-way algorithm cannot decode ``masked``: NOT_HEXADECIMAL where
    ``new BigInteger`` throws, NOT_PADDED where the key is refused or the value does not decrypt to
    padded bytes; None where it decodes. In one reading of the value, remembering nothing: for a
    caller that remembers its own answers (``blowfish_decodes`` and ``is_hex_big_integer`` together)."""
    if _ASCII_HEX.fullmatch(masked) is not None:
        # (the usual value: ASCII digits, no sign) a number not below 0, whose bytes end with its low
        # 64 bits, and a short one's are led by zero bytes: the last block is those 64 bits
        last = (int(masked, 16) & _MASK64).to_bytes(8, "big")
    else:
        data = hex_big_integer_bytes(masked)
        if data is None:
            return NOT_HEXADECIMAL
        last = data[-8:]  # the padding is in the last block (see _decodes); zero bytes lead a short value
        if len(last) < 8:
            last = bytes(8 - len(last)) + last
    decrypt_block = _cipher(key)
    if decrypt_block is None:
        return NOT_PADDED
    return None if _padding(decrypt_block(last)) else NOT_PADDED


def codec_key(codec: str, properties: Mapping[str, str], environ: Mapping[str, str]) -> bytes | str:
    """The Blowfish key the default codec uses, or why the broker cannot decode (a text).

    ``codec`` is ``<password-codec>``: ``class;name=value;...``. Returns a text for codecs
    arouter cannot judge (another class) or that cannot decode (``algorithm=one-way``).
    """
    parts = codec.split(";")
    if parts[0] != DEFAULT_CODEC:
        return f"codec {parts[0]!r} is not the default one"
    params: dict[str, str] = {}
    for part in parts[1:]:
        pair = part.split("=")
        if len(pair) != 2:
            return f"<password-codec> property {part!r} is not name=value: the broker does not start"
        params[pair[0]] = pair[1]
    algorithm = params.get("algorithm")
    if algorithm == "one-way":
        return "the one-way algorithm cannot decode a password"
    if algorithm not in (None, "two-way"):
        return f"algorithm {algorithm!r} is not one-way or two-way"
    if "key" in params:
        return params["key"].encode()
    key = properties.get(KEY_PROPERTY)
    if key is not None:
        return key.encode() if key.strip() else DEFAULT_KEY
    env = environ.get(KEY_ENV)
    return env.encode() if env is not None else DEFAULT_KEY
