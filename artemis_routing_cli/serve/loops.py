"""The event loop ``arouter serve`` runs on (``--loop``).

``auto`` (the default) takes uvloop when it can be imported - it is a dependency of the package on
CPython outside Windows, so a plain ``pip install`` brings it - and asyncio's own loop otherwise;
``asyncio`` and ``uvloop`` force one. A redirect costs the listener a few tens of microseconds of
CPU, most of it in the event loop's own machinery, and uvloop does that part in C: on a 2-core
machine it is what keeps p99 in single-digit milliseconds at 5,000 redirects/s (bench/README.md).
Everything ``serve`` does works the same on both loops; the tests run on both.
"""

from __future__ import annotations

import asyncio
import platform
import sys
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import UsageError

LOOPS = ("auto", "asyncio", "uvloop")
INSTALL_HINT = "pip install uvloop"

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
            raise UsageError(f"--loop uvloop: uvloop is not installed ({INSTALL_HINT}; not available on Windows "
                             "or PyPy)")
        return LoopChoice("uvloop", "--loop uvloop")
    if version is None:
        return LoopChoice("asyncio", f"--loop auto: {_why_no_uvloop()}")
    return LoopChoice("uvloop", "--loop auto")


def _why_no_uvloop() -> str:
    if sys.platform == "win32":
        return "uvloop does not run on Windows"
    if platform.python_implementation() != "CPython":
        return f"uvloop is not built for {platform.python_implementation()}"
    return f"uvloop is not installed (a dependency of arouter on CPython: {INSTALL_HINT}) for a faster loop"


def describe(loop: asyncio.AbstractEventLoop) -> str:
    """What runs, for the start-up log: ``uvloop 0.23.0`` or ``asyncio UnixSelectorEventLoop``."""
    cls = type(loop)
    if cls.__module__.split(".")[0] == "uvloop":
        return f"uvloop {uvloop_version()}"
    return f"asyncio {cls.__name__.lstrip('_')}"
