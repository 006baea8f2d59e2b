"""The time one routing decision may spend in regex evaluation, when a caller sets one (serve: a key
must not hold up the other connections).

A caller opens :class:`match_budget`; every evaluation inside it (a key-filter ``find`` and a
local-target-filter ``matches`` share one deadline, in wall-clock time: what the other connections
wait) reads :func:`remaining`.

* The ``regex`` module's ``timeout`` counts the *CPU time* of the thread, not wall time: on a loaded
  machine (a process getting an eighth of a core) a 5 ms timeout held the event loop for 40 ms. So
  the fast path gets at most :data:`FAST_SLICE_SECONDS` of it (:func:`fast_timeout`); a key it
  cannot finish in that slice goes on to the UTF-16 matcher with what is left of the budget. That
  matcher is the exact one (the fast path is used only where it gives the same answer), so a key
  that finishes gets the same answer either way.
* The UTF-16 matcher looks at the wall clock after every :data:`WORK_PER_CHECK` units of work - a
  unit is one step or one character a step scans or compares (a greedy class run over a long key, a
  back-reference compare, a literal) - so an expensive step cannot stretch the interval between two
  looks (counting steps alone let ``(.*)\\1x`` on a 5,000-character key run 80 ms past a 5 ms budget).

* A pattern whose evaluation is bounded on the text at hand (:mod:`._match_bound`: ``^load.*`` on a key of
  ordinary length) is evaluated without a timeout: its worst case is far inside the budget.

Either raises TimeoutError once the budget is spent - never before a minimum of work (the CPU
slice, or :data:`WORK_PER_CHECK` units), so that on a loaded machine an ordinary key is not refused
because the process waited for the CPU.
"""

from __future__ import annotations

import time
from contextvars import ContextVar, Token

MATCH_DEADLINE: ContextVar[float | None] = ContextVar("MATCH_DEADLINE", default=None)
"""``time.monotonic()`` by which the evaluations in progress must end (None: no budget)."""

WORK_PER_CHECK = 256
"""Units of matcher work between two looks at the clock (a unit costs well under a microsecond)."""

FAST_SLICE_SECONDS = 0.001
"""CPU time the ``regex`` module may spend on one evaluation under a budget (far more than an
ordinary key needs: microseconds)."""


class match_budget:  # noqa: N801 - used as a function: ``with match_budget(seconds):``
    """Every regex evaluation inside ``with match_budget(seconds):`` shares ``seconds`` from now (a class,
    not a generator: serve opens one for each connection of a router with a filter)."""

    __slots__ = ("seconds", "token")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __enter__(self) -> None:
        self.token = open_budget(self.seconds)

    def __exit__(self, *exc: object) -> None:
        MATCH_DEADLINE.reset(self.token)


def open_budget(seconds: float) -> Token[float | None]:
    """What ``with match_budget(seconds):`` does on entry, without the object, for serve's per-connection
    call (``decide.route_value_within_budget``): close it with ``MATCH_DEADLINE.reset(token)``."""
    return MATCH_DEADLINE.set(time.monotonic() + seconds)


def fast_timeout() -> float | None:
    """The ``timeout`` to give the ``regex`` module under a budget: :data:`FAST_SLICE_SECONDS` of CPU,
    however much wall-clock time is left - a process that was descheduled before the evaluation
    started must not refuse an ordinary key, which needs microseconds (the wall clock is looked at
    once the slice is spent)."""
    return None if MATCH_DEADLINE.get() is None else FAST_SLICE_SECONDS


def remaining() -> float | None:
    """Seconds left of the budget in force (0.0 once spent), None without one."""
    deadline = MATCH_DEADLINE.get()
    return None if deadline is None else max(0.0, deadline - time.monotonic())
