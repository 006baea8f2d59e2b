"""The time one regex evaluation may take, when a caller sets one (serve: a key must not hold up the
other connections). Both matchers read it: the ``regex`` module's ``timeout`` on the fast path, a
deadline checked every 1,024 steps in the UTF-16 matcher. Either raises TimeoutError."""

from __future__ import annotations

from contextvars import ContextVar

MATCH_TIMEOUT: ContextVar[float | None] = ContextVar("MATCH_TIMEOUT", default=None)
