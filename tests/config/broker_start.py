"""Runs the real broker's start-up on configs (tests/config/java/BrokerStartOracle.java on the
Artemis distribution's lib/, tests/artemis_dist.py): how it reads a broker.xml, which error it fails
on first, the key-filters it deploys. Skips (fails in CI) where the distribution or a JDK is missing."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tests.artemis_dist import DEFAULT_VERSION, artemis_home
from tests.javacache import compiled
from tests.javarun import needs_jdk

SOURCE = Path(__file__).resolve().parent / "java" / "BrokerStartOracle.java"
#: Guard against a hung JVM, not a synchronisation device: a passing run never waits for it.
HANG_GUARD_SECONDS = 600


@dataclass
class Outcome:
    """What the broker did with one config."""

    parse_error: str | None = None  # the exception that stopped reading or parsing broker.xml
    failure: str | None = None  # the exception start-up failed on (AMQ224000), None when it started
    state: str | None = None
    key_filters: dict[str, str | None] = field(default_factory=dict)  # router -> key-filter as deployed


def _units(text: str) -> str | None:
    if text == "null":
        return None
    if text == "-":
        return ""
    return "".join(chr(int(u, 16)) for u in text.split(","))


# The JVM's default charset, which the broker reads broker.xml with: UTF-8, as on JDK 18+ (JEP 400)
# whatever the locale; the JDK 17 here takes it from this property, not from the test's locale.
UTF8_DEFAULT = ("-Dfile.encoding=UTF-8",)


def run_broker(cases: list[tuple[Path, Path | None]], workdir: Path, version: str = DEFAULT_VERSION,
               jvm: tuple[str, ...] = UTF8_DEFAULT) -> list[Outcome]:
    """Start the real broker (``version``) on each (broker.xml, broker properties or None), in one JVM
    started with ``jvm`` options."""
    needs_jdk()
    lib = artemis_home(version) / "lib"
    classes = compiled(SOURCE, options=("-encoding", "UTF-8", "-cp", f"{lib}/*"))
    args: list[str] = []
    for n, (xml, props) in enumerate(cases):
        args += [str(xml), "" if props is None else str(props), str(workdir / f"instance-{n}")]
    proc = subprocess.run(["java", *jvm, "-cp", f"{classes}:{lib}/*", "BrokerStartOracle", *args], capture_output=True,
                          timeout=HANG_GUARD_SECONDS, check=True, stdin=subprocess.DEVNULL)
    lines = proc.stdout.decode("utf-8", "replace").splitlines()  # (the broker logs to stdout)
    outcomes: list[Outcome] = []
    failed_next = False
    for line in lines:
        if line.startswith("CASE "):
            outcomes.append(Outcome())
        elif not outcomes:
            continue
        elif failed_next:
            outcomes[-1].failure, failed_next = line.strip(), False
        elif "AMQ224000" in line and outcomes[-1].failure is None:
            failed_next = True
        elif line.startswith("PARSE "):
            outcomes[-1].parse_error = line[6:]
        elif line.startswith("ROUTER "):
            _, name, units = line.split(" ")
            outcomes[-1].key_filters[name] = _units(units)
        elif line.startswith("STATE "):
            outcomes[-1].state = line[6:]
    assert len(outcomes) == len(cases), (lines[-20:], proc.stderr[-2000:])
    return outcomes
