"""The serving log's background writer: the event loop only queues lines; a slow stderr is
written by a thread, falls behind without blocking anybody, and says how many lines it dropped."""

from __future__ import annotations

import io
import threading

from artemis_routing_cli.serve.log import BackgroundWriter, ServeLog

from .conftest import HANG_GUARD


class GatedStream(io.StringIO):
    """A stderr whose reader is stuck until the test opens the gate (a slow terminal or pipe)."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.gate = threading.Event()

    def write(self, text: str) -> int:
        self.entered.set()
        assert self.gate.wait(HANG_GUARD)
        return super().write(text)


def test_lines_are_written_in_order_and_all_of_them_by_close():
    out = io.StringIO()
    log = ServeLog("text", writer=BackgroundWriter(out))
    for i in range(1000):
        log.info("route", f"line {i}")
    log.close()
    lines = out.getvalue().splitlines()
    assert [line.split("INFO  ")[1] for line in lines] == [f"line {i}" for i in range(1000)]


def test_a_stuck_stderr_never_blocks_the_caller_and_drops_are_reported():
    stream = GatedStream()
    writer = BackgroundWriter(stream, interval=0.001, max_pending=3)
    writer.write("a\n")
    assert stream.entered.wait(HANG_GUARD)  # the thread now hangs in write("a\n")
    for line in ("b\n", "c\n", "d\n", "e\n", "f\n"):
        writer.write(line)  # returns at once although nothing is being read
    assert writer.dropped == 2
    stream.gate.set()
    writer.close()
    assert stream.getvalue() == "a\nb\nc\nd\narouter: 2 log line(s) dropped: stderr was not read fast enough\n"
