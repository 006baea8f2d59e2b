"""The event loop ``arouter serve`` runs on (``--loop``).

``auto`` (the default) takes uvloop when it is installed (``pip install
'artemis-routing-cli[serve]'``; it does not exist on Windows) and asyncio's own loop otherwise;
``asyncio`` and ``uvloop`` force one. A redirect costs the listener a few tens of microseconds of
CPU, most of it in the event loop's own machinery, and uvloop does that part in C: on a 2-core
machine it is what keeps p99 in single-digit milliseconds at 5,000 redirects/s (bench/README.md).
Everything ``serve`` does works the same on both loops; the tests run on both.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import UsageError

LOOPS = ("auto", "asyncio", "uvloop")
INSTALL_HINT = "pip install 'artemis-routing-cli[serve]'"

T = TypeVar("T")


@dataclass(frozen=True)
class LoopChoice:
    """The loop to run on and why (``reason`` is shown in the start-up log)."""

    name: str  # "uvloop" or "asyncio"
    reason: str

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        if self.name == "uvloop":
            import uvloop

            return uvloop.new_event_loop()
        return asyncio.new_event_loop()

    def run(self, main: Coroutine[Any, Any, T]) -> T:
        """``asyncio.run(main)`` on this loop."""
        if self.name == "uvloop":
            import uvloop

            return uvloop.run(main)
        return asyncio.run(main)


def uvloop_version() -> str | None:
    """uvloop's version when it can be imported, else None."""
    try:
        import uvloop
    except ImportError:
        return None
    return str(getattr(uvloop, "__version__", "?"))


def choose_loop(requested: str) -> LoopChoice:
    """The loop for ``--loop REQUESTED``; a usage error for an unknown name or a missing uvloop."""
    if requested not in LOOPS:
        raise UsageError(f"--loop {requested!r}: choose auto, asyncio or uvloop")
    if requested == "asyncio":
        return LoopChoice("asyncio", "--loop asyncio")
    version = uvloop_version()
    if requested == "uvloop":
        if version is None:
            raise UsageError(f"--loop uvloop: uvloop is not installed ({INSTALL_HINT}; not available on Windows)")
        return LoopChoice("uvloop", "--loop uvloop")
    if version is None:
        why = "uvloop does not run on Windows" if sys.platform == "win32" else (
            f"uvloop is not installed; {INSTALL_HINT} for a faster loop")
        return LoopChoice("asyncio", f"--loop auto: {why}")
    return LoopChoice("uvloop", "--loop auto")


def describe(loop: asyncio.AbstractEventLoop) -> str:
    """What runs, for the start-up log: ``uvloop 0.23.0`` or ``asyncio UnixSelectorEventLoop``."""
    cls = type(loop)
    if cls.__module__.split(".")[0] == "uvloop":
        return f"uvloop {uvloop_version()}"
    return f"asyncio {cls.__name__.lstrip('_')}"
