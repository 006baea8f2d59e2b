"""Persisted router caches (``<cache><persisted>true</persisted>``) in SQLite, WAL mode.

The broker keeps a persisted cache entry in its journal before it answers the client, and
reloads every entry when the router starts (``LocalCache.start``). Here the entries live in
``--data-dir/router-caches.sqlite``: the routing engine's cache calls :meth:`RouterStore.put` /
:meth:`RouterStore.remove` (queued, never blocking the event loop) and the serving shell awaits
:meth:`RouterStore.flush` before it writes the redirect, so an entry a client has seen is
committed (``synchronous=FULL``) and survives ``kill -9``.

Like the broker, an entry is written only when its node id changes, and an expired entry is
deleted when the cache drops it: when its key is looked up, at the periodic sweep and when
``serve`` stops (:mod:`.sweeper`). Like the broker's journal record, a row holds no access
time: a reloaded entry starts a fresh timeout.
"""

from __future__ import annotations

import asyncio
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..errors import UsageError

DB_NAME = "router-caches.sqlite"

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS cache_entry ("
    " router TEXT NOT NULL, key TEXT NOT NULL, node_id TEXT NOT NULL,"
    " PRIMARY KEY (router, key)) WITHOUT ROWID"
)


class CacheDatabase:
    """One SQLite file for every router; all writes go through one worker thread."""

    def __init__(self, data_dir: str) -> None:
        path = Path(data_dir)
        try:
            path.mkdir(parents=True, exist_ok=True)
            self.path = path / DB_NAME
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise UsageError(f"--data-dir: cannot open the cache database ({exc})", file=str(path)) from None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arouter-cache-db")
        self._pending: list[tuple[str, str, str | None]] = []  # (router, key, node id or None = delete)
        self._last: asyncio.Future[None] | None = None

    def load(self, router: str) -> dict[str, str]:
        rows = self._conn.execute("SELECT key, node_id FROM cache_entry WHERE router = ?", (router,)).fetchall()
        return {key: node_id for key, node_id in rows}

    def store_for(self, router: str) -> RouterStore:
        return RouterStore(self, router, self.load(router))

    def queue(self, router: str, key: str, node_id: str | None) -> None:
        self._pending.append((router, key, node_id))

    @property
    def pending(self) -> int:
        return len(self._pending)

    async def flush(self) -> None:
        """Commit everything queued so far (one transaction), off the event loop."""
        if self._pending:
            batch, self._pending = self._pending, []
            self._last = asyncio.get_running_loop().run_in_executor(self._pool, self._commit, batch)
        if self._last is not None:
            # Entries queued before this call may sit in a batch another flush submitted: the
            # single worker commits in order, so waiting for the latest batch covers them.
            await asyncio.shield(self._last)

    def _commit(self, batch: list[tuple[str, str, str | None]]) -> None:
        with self._conn:
            self._conn.execute("BEGIN")
            for router, key, node_id in batch:
                if node_id is None:
                    self._conn.execute("DELETE FROM cache_entry WHERE router = ? AND key = ?", (router, key))
                else:
                    self._conn.execute(
                        "INSERT INTO cache_entry (router, key, node_id) VALUES (?, ?, ?) "
                        "ON CONFLICT (router, key) DO UPDATE SET node_id = excluded.node_id",
                        (router, key, node_id),
                    )

    def close(self) -> None:
        if self._pending:
            self._commit(self._pending)
            self._pending = []
        self._pool.shutdown(wait=True)
        self._conn.close()


class RouterStore:
    """The engine's ``CacheStore`` for one router (see ``routing.cache``)."""

    def __init__(self, db: CacheDatabase, router: str, entries: dict[str, str]) -> None:
        self.db = db
        self.router = router
        self.entries = dict(entries)  # what is (or is queued to be) on disk

    def put(self, key: str, node_id: str) -> None:
        if self.entries.get(key) != node_id:
            self.entries[key] = node_id
            self.db.queue(self.router, key, node_id)

    def remove(self, key: str) -> None:
        if self.entries.pop(key, None) is not None:
            self.db.queue(self.router, key, None)

    async def flush(self) -> None:
        await self.db.flush()
