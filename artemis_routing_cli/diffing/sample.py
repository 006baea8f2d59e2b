"""Generated keys of a router's key type, for ``arouter diff --sample N`` when no keys are given.

Deterministic (seeded): the same N and seed give the same keys, so two runs compare. The keys are
synthetic — uniform random identifiers, not a real population: hashing policies spread them as they
spread real keys, but a key-filter or local-target-filter written for real client ids may match none
of them. The diff says so.
"""

from __future__ import annotations

import random

from ..routing.keys import Connection

SAMPLE_SEED = 18


def sample_keys(key_type: str, n: int, seed: int = SAMPLE_SEED) -> list[str]:
    """``n`` values as a keys file's ``key`` column holds them for ``key_type``."""
    rng = random.Random(f"{seed}:{key_type}")
    bits = rng.getrandbits
    if key_type == "SOURCE_IP":
        return [f"10.{(v >> 16) & 255}.{(v >> 8) & 255}.{v & 255}:{1024 + (v >> 24) % 60000}"
                for v in (bits(40) for _ in range(n))]
    if key_type == "SNI_HOST":
        return [f"h{bits(48):012x}.example.com" for _ in range(n)]
    if key_type == "USER_NAME":
        return [f"user-{bits(48):012x}" for _ in range(n)]
    if key_type == "ROLE_NAME":
        return [f"role-{bits(8) % 16},role-{16 + bits(8) % 16}" for _ in range(n)]
    return [f"client-{bits(64):016x}" for _ in range(n)]


def sample_connections(n: int, seed: int = SAMPLE_SEED) -> list[Connection]:
    """``n`` synthetic clients, each with a value of every key type (so a changed key-type compares the
    same clients: each router reads the value of its own key type)."""
    columns = {kt: sample_keys(kt, n, seed) for kt in ("CLIENT_ID", "USER_NAME", "SNI_HOST", "SOURCE_IP",
                                                         "ROLE_NAME")}
    return [Connection(client_id=c, username=u, sni_host=s, remote_address=ip, roles=tuple(r.split(",")))
            for c, u, s, ip, r in zip(columns["CLIENT_ID"], columns["USER_NAME"], columns["SNI_HOST"],
                                      columns["SOURCE_IP"], columns["ROLE_NAME"], strict=True)]
