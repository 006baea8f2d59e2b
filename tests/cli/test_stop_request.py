"""``probe --watch``'s stop: a signal may land at any instruction of the main thread.

Python runs a signal handler between two instructions of the main thread.  These tests call the
handler at every instruction the wait runs, one run per instruction, the way a signal could.
A handler that takes a lock the interrupted code already holds never returns; the wait must
return True (asked to stop) whichever instruction was interrupted.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

from artemis_routing_cli.cli.stop_request import StopRequest

#: Every run waits this long at most (so that the instructions after the sleep run too); a run
#: still going after ``stuck_after`` seconds is stuck on a lock.
SLEEP = 0.001


def run_interrupted(wait: Callable[[float], Any], handler: Callable[[], None], at: int | None,
                    stuck_after: float = 60.0) -> tuple[int, bool]:
    """Run ``wait(SLEEP)`` in a thread, calling ``handler`` at its instruction number ``at``.

    Returns how many instructions ran and whether the run ended within ``stuck_after`` seconds.
    """
    count = 0

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal count
        frame.f_trace_opcodes = True
        if event == "opcode":
            if count == at:
                handler()  # tracing is off inside a trace function, as it is inside a handler's body
            count += 1
        return tracer

    def body() -> None:
        sys.settrace(tracer)
        try:
            wait(SLEEP)
        finally:
            sys.settrace(None)

    worker = threading.Thread(target=body, daemon=True)
    worker.start()
    worker.join(stuck_after)
    return count, not worker.is_alive()


def test_a_signal_at_any_instruction_of_the_wait_stops_it() -> None:
    with StopRequest(signals=(signal.SIGUSR1,)) as probe_stop:
        total, _ = run_interrupted(probe_stop.wait, lambda: None, None)
    assert total > 5  # the wait's own instructions were traced
    for at in range(total):
        with StopRequest(signals=(signal.SIGUSR1,)) as stop:
            ran, ended = run_interrupted(stop.wait, stop.ask, at)
            assert ended, f"stuck after a signal at instruction {at}"
            assert stop.asked and ran > at  # the round loop reads ``asked`` next


def test_the_harness_finds_the_lock_an_event_takes() -> None:
    """The same harness catches ``threading.Event.set`` as a handler: it hangs at some instruction."""
    counted = threading.Event()
    total, _ = run_interrupted(counted.wait, lambda: None, None)
    stuck = []
    for at in range(total):
        event = threading.Event()
        _, ended = run_interrupted(event.wait, event.set, at, stuck_after=5.0)
        if not ended:
            stuck.append(at)
            break  # one stuck thread (a daemon) is proof enough
    assert stuck, "Event.set never hung: the harness cannot see a handler's lock"


def test_a_real_signal_ends_the_wait_and_the_handlers_come_back() -> None:
    before = signal.getsignal(signal.SIGUSR1)
    with StopRequest(signals=(signal.SIGUSR1,)) as stop:
        assert signal.getsignal(signal.SIGUSR1) == stop.ask
        signal.raise_signal(signal.SIGUSR1)
        assert stop.wait(3600.0) is True
    assert signal.getsignal(signal.SIGUSR1) is before


def test_a_signal_during_the_sleep_wakes_it() -> None:
    """Whenever the signal comes (before the sleep or in it), the hour-long wait ends asked."""
    with StopRequest(signals=(signal.SIGUSR1,)) as stop:
        sender = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGUSR1))
        sender.start()
        assert stop.wait(3600.0) is True
        sender.join()


def test_no_signal_no_stop() -> None:
    with StopRequest(signals=(signal.SIGUSR1,)) as stop:
        assert stop.wait(0.0) is False
        assert stop.wait(-1.0) is False
