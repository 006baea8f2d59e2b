"""Bench: probe 20 dead targets with a 2 s timeout; the wall time should be ~2 s, not 20 x 2 s.

Run by hand: ``python bench/probe_bench.py``. Two kinds of dead target:

* silent: 20 listening sockets on 127.0.0.1 that never accept (TCP connects through the kernel's
  backlog, then the CORE handshake goes unanswered until the timeout);
* blackhole: 20 ports on 203.0.113.1 (TEST-NET-3, documentation only: nothing answers; depending
  on the network the SYN is dropped until the timeout or refused at once as unreachable).
"""

from __future__ import annotations

import asyncio
import socket
import time

from artemis_routing_cli.probe.model import Credentials, Endpoint, ProbeOptions
from artemis_routing_cli.probe.runner import check_endpoint

TARGETS = 20
TIMEOUT = 2.0


async def probe_all(endpoints: list[Endpoint], options: ProbeOptions) -> list[object]:
    return await asyncio.gather(*(check_endpoint(e, Credentials(), options) for e in endpoints))


def timed(label: str, endpoints: list[Endpoint]) -> None:
    options = ProbeOptions(timeout=TIMEOUT, protocol="auto")
    started = time.perf_counter()
    checks = asyncio.run(probe_all(endpoints, options))
    wall = time.perf_counter() - started
    failed = sum(1 for c in checks if not (c.reachable and c.handshake and c.handshake.ok))  # type: ignore[attr-defined]
    print(f"{label:>9}: {len(endpoints)} targets, timeout {TIMEOUT:g}s, {failed} not ready, wall {wall:.2f}s "
          f"(sequential would be ~{len(endpoints) * TIMEOUT:.0f}s)")


def main() -> None:
    listeners = []
    for _ in range(TARGETS):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        listeners.append(s)
    try:
        timed("silent", [Endpoint(f"s{i}", "127.0.0.1", s.getsockname()[1]) for i, s in enumerate(listeners)])
    finally:
        for s in listeners:
            s.close()
    timed("blackhole", [Endpoint(f"b{i}", "203.0.113.1", 61616 + i) for i in range(TARGETS)])


if __name__ == "__main__":
    main()
