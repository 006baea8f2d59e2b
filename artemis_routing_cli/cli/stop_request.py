"""A stop asked for by a signal, safe to ask for at any instruction of the main thread.

Python runs a signal handler in the main thread between two instructions, whatever that thread
holds at the time.  A handler that calls ``threading.Event.set`` takes the event's lock; if the
signal lands while ``Event.wait`` itself holds that lock (on its way in or out), the process
waits for itself for ever.  This handler takes no lock: it sets a flag and writes one byte to a
pipe, and the wait between rounds is a ``select`` on that pipe.
"""

from __future__ import annotations

import os
import select
import signal
from collections.abc import Iterable
from types import FrameType, TracebackType
from typing import Any


class StopRequest:
    """Installs itself for ``signals`` while in a ``with`` block; ``wait`` sleeps until asked to stop."""

    def __init__(self, signals: Iterable[signal.Signals] = (signal.SIGINT, signal.SIGTERM)) -> None:
        self.signals = tuple(signals)
        self.asked = False
        self._read = self._write = -1
        self._previous: dict[signal.Signals, Any] = {}

    def ask(self, signum: int = 0, frame: FrameType | None = None) -> None:
        """The handler: no lock, no allocation that can wait on another thread."""
        self.asked = True
        try:
            os.write(self._write, b"\0")
        except OSError:  # the pipe is full (already woken) or closed (the block has ended)
            pass

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds`` or until asked to stop; True when asked."""
        if not self.asked and seconds > 0:
            # A signal during select runs ``ask`` and select goes on (PEP 475) with a byte to read.
            select.select([self._read], [], [], seconds)
        return self.asked

    def __enter__(self) -> StopRequest:
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        self._previous = {sig: signal.signal(sig, self.ask) for sig in self.signals}
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        os.close(self._read)
        os.close(self._write)
        self._read = self._write = -1
