"""Deadlines a fixed delay after they are set, kept with one event-loop timer.

Every connection of a listener gets the same handshake timeout, and after its answer the same
linger time. Deadlines set at ``now + delay`` with one ``delay`` therefore fall due in the order
they were set: a queue ordered by insertion (a dict) and one timer for its head do what a
``loop.call_later`` per connection did, without a timer handle per socket to create, schedule and
cancel (on asyncio's own loop that was a tenth of a redirect's Python time).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol


class Expiring(Protocol):
    def expire(self) -> None:
        """The deadline has passed."""


class Deadlines:
    """``add(item)``: ``item.expire()`` is called ``delay`` seconds from now, unless
    ``discard(item)`` is called first. An item is in the queue at most once."""

    __slots__ = ("_loop", "_delay", "_due", "timer", "_armed", "_time", "due", "delay", "clock")

    def __init__(self, loop: asyncio.AbstractEventLoop, delay: float) -> None:
        self._loop = loop
        # the loop's clock: asyncio's own loop reads time.monotonic() in a Python method; call that
        # function directly (uvloop's clock is its own: asked through the loop)
        self._time: Callable[[], float] = (time.monotonic if type(loop).time is asyncio.BaseEventLoop.time
                                           else loop.time)
        self._delay = delay
        self._due: dict[Expiring, float] = {}  # item -> loop time it expires at, in that order
        #: the loop's timer for the head of the queue (None: none set); a hot path that adds inline reads it
        self.timer: asyncio.TimerHandle | None = None
        self._armed = 0.0  # when the timer was set to fire
        # for a hot path that does add() inline: due[item] = clock() + delay, then arm() (see there)
        self.due = self._due
        self.delay = delay
        self.clock = self._time

    def __len__(self) -> int:
        return len(self._due)

    def add(self, item: Expiring) -> None:
        self._due[item] = self._time() + self._delay
        if self.timer is None:
            self._arm()

    def discard(self, item: Expiring) -> None:
        # the timer stays: if it was set for this item it finds nothing due and moves on
        self._due.pop(item, None)

    def arm(self) -> None:
        """What :meth:`add` does after adding when no timer is set. A hot path that adds inline calls it
        when its item is the only one due and :attr:`timer` is None: while anything else is due a timer
        is set (or, inside the timer's own callback, set again when it returns)."""
        if self.timer is None:
            self._arm()

    def _arm(self) -> None:
        when = next(iter(self._due.values()))
        self._armed = when
        self.timer = self._loop.call_at(when, self._fire)

    def _fire(self) -> None:
        self.timer = None
        # the loop runs a timer up to its clock resolution early: what was due then is due now
        limit = max(self._loop.time(), self._armed)
        due = self._due
        try:
            while due:
                item = next(iter(due))
                if due[item] > limit:
                    break
                del due[item]
                item.expire()
        finally:
            if due and self.timer is None:
                self._arm()
