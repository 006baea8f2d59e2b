"""Keys the realbroker tests route: many shapes (ASCII, digits, lower-case words, non-ASCII, ``NULL``),
the same for every run, disjoint between tests through a prefix (a router's cache and a ROUND_ROBIN
position are shared by every test of the run)."""

from __future__ import annotations

import random
import string

ALPHABET = string.ascii_letters + string.digits + "._-:/@" + "éß😀中"


def keys(prefix: str, count: int = 1000, seed: int = 31) -> list[str]:
    """``count`` distinct keys: ``NULL`` and ``admin`` (a local-target-filter of the cluster), then keys starting
with ``prefix`` (none equal to a password the output would hide)."""
    rng = random.Random(f"{seed}:{prefix}")
    out = ["NULL", "admin", f"{prefix}NULL", f"{prefix}admin", f"{prefix}0", f"{prefix}123"]
    seen = set(out)
    while len(out) < count:
        key = prefix + "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 16)))
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out
