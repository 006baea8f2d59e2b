"""CONSISTENT_HASH (and CONSISTENT_HASH_MODULO's key transform) remembers the hash of keys it saw lately
(``fnv.FNV_MEMO``): the target it picks is the one the hash itself picks, cold or remembered, and what it
remembers is bounded in keys and in key length."""

from __future__ import annotations

import random

import pytest

from artemis_routing_cli.routing import fnv
from artemis_routing_cli.routing.fnv import FNV_MEMO, MEMO_KEY_CHARS, MEMO_SIZE, fnv1a32
from artemis_routing_cli.routing.policies import ConsistentHashModuloPolicy, ConsistentHashPolicy, Ring
from artemis_routing_cli.routing.targets import INT_MAX, Target

TARGETS = tuple(Target(f"c{i}", f"node-{i}", "10.0.0.1", 61616 + i) for i in range(5))


@pytest.fixture(autouse=True)
def empty_memo() -> None:
    FNV_MEMO.clear()


def random_keys(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    alphabet = "abcXYZ019-_.\u00e9\u4e2d\U0001F600"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40))) for _ in range(n)]


def test_the_target_is_the_hash_s_target_cold_and_remembered() -> None:
    policy = ConsistentHashPolicy({})
    ring = Ring.build(TARGETS)
    for key in random_keys(2000, 21):
        expected = ring.lookup(fnv1a32(key))
        assert policy.select(TARGETS, key) is expected, key  # first time: hashed
        assert FNV_MEMO[key] == fnv1a32(key)
        assert policy.select(TARGETS, key) is expected, key  # remembered


def test_the_modulo_transform_is_the_hash_s_cold_and_remembered() -> None:
    policy = ConsistentHashModuloPolicy({"MODULO": "7"})
    for key in random_keys(2000, 22):
        expected = str((fnv1a32(key) & INT_MAX) % 7)
        assert policy.transform_key(key) == expected, key  # first time: hashed
        assert policy.transform_key(key) == expected, key  # remembered (keys up to MEMO_KEY_CHARS)


def test_a_remembered_hash_is_not_worked_out_again(monkeypatch: pytest.MonkeyPatch) -> None:
    policy = ConsistentHashPolicy({})
    calls: list[str] = []
    real = fnv.fnv1a32

    def counting(text: str) -> int:
        calls.append(text)
        return real(text)

    monkeypatch.setattr(fnv, "fnv1a32", counting)
    for _ in range(3):
        policy.select(TARGETS, "client-7")
    assert calls == ["client-7"]


def test_the_memo_is_bounded_in_keys_and_key_length() -> None:
    policy = ConsistentHashPolicy({})
    for i in range(MEMO_SIZE * 2 + 5):
        policy.select(TARGETS, f"client-{i}")
        assert len(FNV_MEMO) <= MEMO_SIZE
    long_key = "k" * (MEMO_KEY_CHARS + 1)
    ring = Ring.build(TARGETS)
    assert policy.select(TARGETS, long_key) is ring.lookup(fnv1a32(long_key))
    assert long_key not in FNV_MEMO
    assert max(len(key) for key in FNV_MEMO) <= MEMO_KEY_CHARS


def test_short_and_long_ascii_keys_hash_as_the_broker_s_per_char_loop() -> None:
    """fnv1a32 reduces short ASCII keys mod 2**32 once at the end (fnv.SHORT_KEY): the same hash as
    ConsistentHashPolicy.getHash's int arithmetic, char by char, on either side of that length."""
    rng = random.Random(5)
    for length in range(0, fnv.SHORT_KEY * 3):
        for _ in range(20):
            key = "".join(chr(rng.randrange(0, 128)) for _ in range(length))
            h = 0x811C9DC5
            for ch in key:
                h = ((h ^ ord(ch)) * 0x01000193) & 0xFFFFFFFF
            assert fnv1a32(key) == (h - (1 << 32) if h >= 1 << 31 else h), key
