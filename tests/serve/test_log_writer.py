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


def test_lines_queued_while_the_writer_writes_are_neither_lost_nor_repeated():
    """The writer takes what is queued in one go (a C loop of popleft) while the event loop's thread keeps
    appending: every line reaches the stream once, in order."""
    out = io.StringIO()
    writer = BackgroundWriter(out, interval=0.0005)
    for i in range(20_000):
        writer.write(f"{i}\n")
        if i % 1000 == 0:
            threading.Event().wait(0.002)  # let the writer take a batch mid-way
    writer.close()
    assert out.getvalue().splitlines() == [str(i) for i in range(20_000)]


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


def test_info_line_writes_what_info_writes():
    out_info, out_line = io.StringIO(), io.StringIO()
    by_info = ServeLog("text", writer=BackgroundWriter(out_info))
    by_line = ServeLog("text", writer=BackgroundWriter(out_line))
    for i in range(100):
        by_info.info("route", f"line {i}")
        by_line.info_line("route", f"line {i}")
    by_info.close()
    by_line.close()
    stamped = [line.partition(" ")[2].partition(" ")[2] for line in out_line.getvalue().splitlines()]  # no date, time
    assert stamped == [line.partition(" ")[2].partition(" ")[2] for line in out_info.getvalue().splitlines()]
    assert stamped == [f"INFO  line {i}" for i in range(100)]


def test_info_line_is_bounded_as_the_writer_is_and_its_drops_are_reported():
    stream = GatedStream()
    writer = BackgroundWriter(stream, interval=0.001, max_pending=3)
    log = ServeLog("text", writer=writer)
    log.info_line("route", "a")
    assert stream.entered.wait(HANG_GUARD)  # the thread now hangs writing "a"
    for text in "bcdef":
        log.info_line("route", text)  # returns at once although nothing is being read
    assert writer.dropped == 2 and len(writer.pending) == 3
    stream.gate.set()
    writer.close()
    lines = stream.getvalue().splitlines()
    assert [line.rsplit(" ", 1)[1] for line in lines[:4]] == ["a", "b", "c", "d"]
    assert lines[4] == "arouter: 2 log line(s) dropped: stderr was not read fast enough"


def test_info_line_without_the_background_writer_is_info():
    records = []
    log = ServeLog("json", stream=io.StringIO(), sink=records.append)
    log.info_line("route", "AMQ221085: Route x")
    assert [(r["level"], r["event"], r["message"]) for r in records] == [("info", "route", "AMQ221085: Route x")]


def test_route_line_writes_what_info_line_writes_and_is_bounded_as_it_is():
    out_info, out_route = io.StringIO(), io.StringIO()
    by_info = ServeLog("text", writer=BackgroundWriter(out_info))
    by_route = ServeLog("text", writer=BackgroundWriter(out_route))
    keys = ["FOO1", "it's", 'a"b', "\u00e9\n\\x"]
    for i in range(100):
        key = keys[i % len(keys)]
        by_info.info_line("route", f"AMQ221085: Route 127.0.0.1:{i} to t1 [MQTT, l, router r, CLIENT_ID key {key!r}]")
        by_route.route_line("AMQ221085: Route ", f"127.0.0.1:{i}", " to t1 [MQTT, l, router r, CLIENT_ID key ", key,
                            "]")
    by_info.close()
    by_route.close()
    without_stamp = [line.partition(" ")[2].partition(" ")[2] for line in out_route.getvalue().splitlines()]
    assert without_stamp == [line.partition(" ")[2].partition(" ")[2] for line in out_info.getvalue().splitlines()]
    assert len(without_stamp) == 100
    stream = GatedStream()
    writer = BackgroundWriter(stream, interval=0.001, max_pending=3)
    log = ServeLog("text", writer=writer)
    log.route_line("", "a", "", "k", "")
    assert stream.entered.wait(HANG_GUARD)
    for text in "bcdef":
        log.route_line("", text, "", "k", "")
    assert writer.dropped == 2 and len(writer.pending) == 3
    stream.gate.set()
    writer.close()
    assert stream.getvalue().splitlines()[4] == "arouter: 2 log line(s) dropped: stderr was not read fast enough"
