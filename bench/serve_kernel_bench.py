"""Kernel time per redirect of ``arouter serve`` and of the bare Protocol, traced with ftrace (run by
hand as root, never from the test suite; issue 21).

    python bench/serve_kernel_bench.py [--kinds bare,half-close,serve] [--protocols mqtt,amqp]
                                       [--loop uvloop] [--seconds 0.4] [--repeats 3]

``/proc/PID/stat`` splits a process's CPU time into user and system by sampling at each timer tick
(a kernel built with ``CONFIG_TICK_CPU_ACCOUNTING``, without ``IRQ_TIME_ACCOUNTING``: see
``/proc/config.gz``), which at 250 Hz over a few seconds cannot tell a microsecond per redirect
apart. This bench measures the kernel's share directly: an ftrace instance (``/sys/kernel/tracing/
instances/arouter-bench``, TSC clock) records, for the server's main thread only, every system
call's entry and exit and every softirq, interrupt and page fault while it is the current task,
during ``--seconds`` of load from the C generator (16 clients, closed loop). Printed per kind: the
kernel time per redirect - each system call, softirq and interrupt, where one that lasted over
50 us (it blocked in ``epoll_pwait``, or the task was preempted) counts at its kind's median - and
the largest items with their median duration and count per redirect. The count per redirect is
``strace -c``'s (``serve_syscall_bench.py``); the durations show whether the same calls cost more.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serve_bench import HELLOS, build_loadgen, free_port, wait_listening, write_payloads  # noqa: E402
from serve_callgrind_bench import load, serve_answers, server_code  # noqa: E402

HERE = Path(__file__).resolve().parent
TRACING = Path("/sys/kernel/tracing")
EVENTS = ("raw_syscalls/sys_enter", "raw_syscalls/sys_exit", "irq/softirq_entry", "irq/softirq_exit",
          "irq/irq_handler_entry", "irq/irq_handler_exit", "irq_vectors/local_timer_entry",
          "irq_vectors/local_timer_exit", "irq_vectors/reschedule_entry", "irq_vectors/reschedule_exit",
          "irq_vectors/call_function_single_entry", "irq_vectors/call_function_single_exit",
          "exceptions/page_fault_user", "exceptions/page_fault_kernel")
#: x86-64 system call numbers of what a redirect makes
SYSCALLS = {0: "read", 1: "write", 3: "close", 48: "shutdown", 51: "getsockname", 52: "getpeername",
            54: "setsockopt", 202: "futex", 233: "epoll_ctl", 281: "epoll_pwait", 288: "accept4",
            426: "io_uring_enter"}
ACCEPT4 = 288
LONG = 50e-6  # a call this long blocked or was preempted: counted at its kind's median
_LINE = re.compile(r"^\s*\S+-\d+\s+\[(\d+)\]\s+\S+\s+(\d+): (\w+): (.*)$")


def tsc_hz() -> float:
    """The TSC's rate, from the kernel's boot log (``tsc: Detected ... MHz``)."""
    try:
        log = subprocess.run(["dmesg"], capture_output=True, text=True, check=False).stdout
    except OSError:
        log = ""
    found = re.findall(r"tsc: (?:Refined TSC clocksource calibration: |Detected )([\d.]+) MHz", log)
    if not found:
        raise SystemExit("serve_kernel_bench: the TSC rate is not in dmesg")
    return float(found[-1]) * 1e6


def analyse(text: str, hz: float) -> tuple[int, dict[str, list[float]]]:
    """(accept4 calls, durations in seconds by item) of one trace."""
    started: dict[tuple[str, str], tuple[int, str]] = {}
    durations: dict[str, list[float]] = {}
    accepts = 0
    for line in text.splitlines():
        found = _LINE.match(line)
        if not found:
            continue
        cpu, stamp, event, rest = found.group(1), int(found.group(2)), found.group(3), found.group(4)
        if event == "sys_enter":
            number = int(rest.split()[1])
            accepts += number == ACCEPT4
            started[cpu, "sys"] = (stamp, SYSCALLS.get(number, f"syscall {number}"))
        elif event == "sys_exit" or event.endswith("_exit"):
            kind = "sys" if event == "sys_exit" else event[:-5]
            begun = started.pop((cpu, kind), None)
            if begun is not None:
                durations.setdefault(begun[1], []).append((stamp - begun[0]) / hz)
        elif event.endswith("_entry"):
            action = re.search(r"action=(\w+)", rest)
            started[cpu, event[:-6]] = (stamp, event[:-6] + (f" {action.group(1)}" if action else ""))
        elif event.startswith("page_fault"):
            durations.setdefault(event, []).append(0.0)
    return accepts, durations


def measure(tmp: str, loadgen: str, kind: str, protocol: str, loop_name: str, config: str,
            answers: dict[bytes, bytes], seconds: float, hz: float) -> tuple[int, dict[str, list[float]]]:
    tree = str(HERE.parent)
    instance = TRACING / "instances" / "arouter-bench"
    instance.mkdir(exist_ok=True)
    (instance / "buffer_size_kb").write_text("32768")
    (instance / "trace_clock").write_text("x86-tsc")
    port = free_port()
    payloads = write_payloads(tmp, protocol, HELLOS[protocol], 1000)
    proc = subprocess.Popen([sys.executable, "-c", server_code(tree, kind, port, loop_name, config, answers)],
                            env=dict(os.environ, PYTHONPATH=tree))
    try:
        wait_listening(port)
        load(loadgen, port, payloads, 1.5)
        (instance / "tracing_on").write_text("0")
        (instance / "trace").write_text("")
        (instance / "set_event_pid").write_text(str(proc.pid))
        for event in EVENTS:
            (instance / "events" / event / "enable").write_text("1")
        generator = subprocess.Popen([loadgen, str(port), payloads, "closed", "16", str(seconds + 1.0), "0"],
                                     stdout=subprocess.DEVNULL)
        time.sleep(0.5)
        (instance / "tracing_on").write_text("1")
        time.sleep(seconds)
        (instance / "tracing_on").write_text("0")
        for event in EVENTS:
            (instance / "events" / event / "enable").write_text("0")
        generator.wait()
        return analyse((instance / "trace").read_text(), hz)
    finally:
        proc.terminate()
        proc.wait()
        (instance / "trace").write_text("")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default="bare,half-close,serve")
    parser.add_argument("--protocols", default="mqtt,amqp")
    parser.add_argument("--loop", default="uvloop")
    parser.add_argument("--seconds", type=float, default=0.4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--show", type=int, default=8)
    args = parser.parse_args()
    if not (TRACING / "instances").is_dir():
        raise SystemExit("serve_kernel_bench: needs root and tracefs at /sys/kernel/tracing")
    hz = tsc_hz()
    tmp = tempfile.mkdtemp(prefix="arouter-kernel-")
    loadgen = build_loadgen(tmp)
    if loadgen is None:
        raise SystemExit("serve_kernel_bench: needs gcc (or cc) for bench/loadgen/loadgen.c")
    config, answers = serve_answers(tmp)  # serve's own answers, for the bare Protocol
    print(f"ftrace (TSC at {hz / 1e6:.0f} MHz), {args.loop}, the server's main thread; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    try:
        run(args, tmp, loadgen, config, answers, hz)
    finally:
        instance = TRACING / "instances" / "arouter-bench"
        if instance.is_dir():
            instance.rmdir()  # the instance and its buffers go


def run(args: argparse.Namespace, tmp: str, loadgen: str, config: str, answers: dict[bytes, bytes],
        hz: float) -> None:
    for rep in range(args.repeats):
        for protocol in args.protocols.split(","):
            for kind in args.kinds.split(","):
                accepts, durations = measure(tmp, loadgen, kind, protocol, args.loop, config, answers,
                                             args.seconds, hz)
                done = max(accepts, 1)
                rows = []
                for item, values in durations.items():
                    middle = statistics.median(values)
                    total = sum(v if v < LONG else middle for v in values) / done
                    rows.append((item, middle, len(values) / done, total))
                kernel = sum(total for item, _, _, total in rows if item != "futex")
                rows.sort(key=lambda row: -row[3])
                shown = "; ".join(f"{item} {total * 1e6:.2f} ({count:.2f} x {middle * 1e6:.2f})"
                                  for item, middle, count, total in rows[:args.show])
                print(f"  {rep + 1} {protocol:5} {kind:10} {kernel * 1e6:6.2f} us in the kernel per redirect "
                      f"({accepts} traced): {shown}", flush=True)


if __name__ == "__main__":
    main()
