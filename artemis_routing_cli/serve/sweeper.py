"""Router caches expire while ``serve`` runs and when it stops, as the broker's do.

The broker's LocalCache is a Caffeine cache with expire-after-access: Caffeine drops expired
entries during its maintenance, which runs as the cache is used, and ``LocalCache.stop`` runs
``cleanUp`` before the router stops; its removal listener deletes each dropped entry of a
persisted cache from the journal. The routing engine's cache (``routing.cache``) only drops an
entry when that key is looked up again, so an entry nobody asks for again would stay on disk for
ever and come back, fresh, after a restart. ``serve`` sweeps each cache (``RouterCache.sweep``)
every :func:`sweep_period`, a chunk at a time, and once more when it stops.

What the broker does *not* do is persist access times: its journal record holds the router, the
key and the node id, and ``LocalCache.start`` puts every stored entry back with a fresh access
time. So does ``serve`` (``RouterCache.load``): an entry still valid when ``serve`` stopped is
valid for a whole timeout after it starts again, however long it was stopped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..routing.cache import RouterCache

#: Entries looked at per step of a sweep; the event loop gets a turn between steps.
SWEEP_CHUNK = 5_000
#: Sweeps happen at most this often, and at least this often (seconds).
MIN_SWEEP_PERIOD = 1.0
MAX_SWEEP_PERIOD = 60.0


async def sweep_in_steps(cache: RouterCache, chunk: int = SWEEP_CHUNK) -> int:
    """``cache.sweep()`` a chunk at a time, so a big cache never holds the event loop long."""
    if cache.timeout_ms <= 0:
        return 0
    keys = cache.keys()
    dropped = 0
    for start in range(0, len(keys), chunk):
        dropped += cache.drop(cache.expired(cache.clock(), keys[start:start + chunk]))
        await asyncio.sleep(0)
    return dropped


def sweep_period(timeout_ms: int) -> float:
    """Seconds between sweeps: the cache timeout, kept between 1 s and a minute."""
    return min(max(timeout_ms / 1000.0, MIN_SWEEP_PERIOD), MAX_SWEEP_PERIOD)


async def sweep_forever(cache: RouterCache, after_sweep: Callable[[], object] | None = None) -> None:
    """Sweep ``cache`` every :func:`sweep_period`; ``after_sweep`` (a coroutine function, such as
    the store's flush) runs after a sweep that dropped something."""
    period = sweep_period(cache.timeout_ms)
    while True:
        await asyncio.sleep(period)
        if await sweep_in_steps(cache) and after_sweep is not None:
            result = after_sweep()
            if asyncio.iscoroutine(result):
                await result
