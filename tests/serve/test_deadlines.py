"""The listener's deadline queue (``serve/deadlines.py``): one timer for many deadlines of the same
delay. Runs on a real event loop (both loops); each test waits on futures the expiring items
resolve, never on the clock."""

from __future__ import annotations

import asyncio

import pytest

from artemis_routing_cli.serve.deadlines import Deadlines
from artemis_routing_cli.serve.loops import choose_loop

from .conftest import EVENT_LOOPS

DELAY = 0.01  # seconds; the tests only rely on the order deadlines pass in


class Item:
    def __init__(self, name: str, expired: list[str], done: asyncio.Future[None] | None = None,
                 fails: bool = False) -> None:
        self.name = name
        self.expired = expired
        self.done = done
        self.fails = fails

    def expire(self) -> None:
        self.expired.append(self.name)
        if self.done is not None:
            self.done.set_result(None)
        if self.fails:
            raise RuntimeError(f"{self.name} failed")


def run(loop_name: str, scenario) -> None:  # noqa: ANN001
    loop = choose_loop(loop_name).new_event_loop()
    try:
        loop.run_until_complete(scenario(loop))
    finally:
        loop.close()


@pytest.mark.parametrize("loop_name", EVENT_LOOPS)
def test_items_expire_in_the_order_they_were_added_and_discarded_ones_never(loop_name):
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        expired: list[str] = []
        last: asyncio.Future[None] = loop.create_future()
        queue = Deadlines(loop, DELAY)
        items = [Item(f"c{i}", expired) for i in range(5)] + [Item("last", expired, last)]
        for item in items:
            queue.add(item)
        queue.discard(items[0])  # the head: the timer set for it finds nothing due and moves on
        queue.discard(items[3])
        await last  # every deadline before "last" has passed by now
        assert expired == ["c1", "c2", "c4", "last"]
        assert len(queue) == 0

    run(loop_name, scenario)


@pytest.mark.parametrize("loop_name", EVENT_LOOPS)
def test_an_item_added_after_the_queue_emptied_gets_a_new_timer(loop_name):
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        expired: list[str] = []
        queue = Deadlines(loop, DELAY)
        first: asyncio.Future[None] = loop.create_future()
        queue.add(Item("first", expired, first))
        await first
        second: asyncio.Future[None] = loop.create_future()
        queue.add(Item("second", expired, second))
        await second
        assert expired == ["first", "second"]

    run(loop_name, scenario)


@pytest.mark.parametrize("loop_name", EVENT_LOOPS)
def test_an_item_that_fails_to_expire_does_not_stop_the_others(loop_name):
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        errors: list[str] = []
        loop.set_exception_handler(lambda _loop, context: errors.append(str(context.get("exception"))))
        expired: list[str] = []
        last: asyncio.Future[None] = loop.create_future()
        queue = Deadlines(loop, DELAY)
        for item in (Item("bad", expired, fails=True), Item("good", expired), Item("last", expired, last)):
            queue.add(item)
        await last
        assert expired == ["bad", "good", "last"]
        assert errors == ["bad failed"]

    run(loop_name, scenario)


def add_inline(queue: Deadlines, item: Item) -> None:
    """What serve/fresh.py does instead of ``queue.add(item)``."""
    due = queue.due
    due[item] = queue.clock() + queue.delay
    if len(due) == 1:
        queue.arm()


@pytest.mark.parametrize("loop_name", EVENT_LOOPS)
def test_items_added_inline_expire_as_added_ones_do_after_emptying_discards_and_expiries(loop_name):
    async def scenario(loop: asyncio.AbstractEventLoop) -> None:
        expired: list[str] = []
        queue = Deadlines(loop, DELAY)
        gone = Item("gone", expired)
        add_inline(queue, gone)
        queue.discard(gone)  # emptied: the timer set for it stays
        first: asyncio.Future[None] = loop.create_future()
        add_inline(queue, Item("first", expired, first))  # alone again: arm() finds that timer set
        add_inline(queue, Item("second", expired))
        await first
        third: asyncio.Future[None] = loop.create_future()
        queue.add(Item("added", expired))
        add_inline(queue, Item("third", expired, third))
        await third
        assert expired == ["first", "second", "added", "third"]
        assert len(queue) == 0

    run(loop_name, scenario)
