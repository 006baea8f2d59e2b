"""The router's stickiness cache: key -> target node id, expire-after-access (0 = never).

Time comes from an injected clock (milliseconds), so the core stays deterministic: a batch
simulation uses a frozen clock, ``arouter serve`` the monotonic clock. Persistence is a shell
concern (``serve``); it plugs in through ``store``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Protocol


class CacheStore(Protocol):
    def put(self, key: str, node_id: str) -> None: ...
    def remove(self, key: str) -> None: ...


def monotonic_ms() -> float:
    return time.monotonic() * 1000.0


def frozen_clock() -> float:
    return 0.0


class RouterCache:
    def __init__(self, timeout_ms: int, clock: Callable[[], float] = frozen_clock,
                 store: CacheStore | None = None) -> None:
        self.timeout_ms = timeout_ms
        self.clock = clock
        self.store = store
        self._entries: dict[str, tuple[str, float]] = {}

    def get(self, key: str) -> str | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        node_id, last = entry
        now = self.clock()
        if self.timeout_ms > 0 and now - last >= self.timeout_ms:
            del self._entries[key]
            if self.store is not None:
                self.store.remove(key)
            return None
        self._entries[key] = (node_id, now)
        return node_id

    def put(self, key: str, node_id: str) -> None:
        self._entries[key] = (node_id, self.clock())
        if self.store is not None:
            self.store.put(key, node_id)

    def load(self, entries: dict[str, str]) -> None:
        now = self.clock()
        for key, node_id in entries.items():
            self._entries[key] = (node_id, now)

    def expired(self, now: float, keys: Iterable[str]) -> list[str]:
        """Of ``keys``, those whose entry has expired at ``now`` (none without a timeout)."""
        if self.timeout_ms <= 0:
            return []
        timeout, entries = self.timeout_ms, self._entries
        return [key for key in keys if (entry := entries.get(key)) is not None and now - entry[1] >= timeout]

    def drop(self, keys: Iterable[str]) -> int:
        """Remove ``keys`` (a stored entry leaves the store too); how many were there."""
        count = 0
        for key in keys:
            if self._entries.pop(key, None) is not None:
                count += 1
                if self.store is not None:
                    self.store.remove(key)
        return count

    def sweep(self) -> int:
        """Drop every entry expired now (Caffeine's ``cleanUp``); how many went."""
        return self.drop(self.expired(self.clock(), list(self._entries)))

    def keys(self) -> list[str]:
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def snapshot(self) -> dict[str, str]:
        return {k: v for k, (v, _) in self._entries.items()}
