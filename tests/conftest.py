"""Shared test helpers: paths, the corpus, and a broker.xml wrapper."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the same examples every time (a red build must be reproducible); locally hypothesis
# explores new ones on each run.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "samples" / "broker.xml"
CORPUS = (REPO / ".." / "shared" / "corpus").resolve()


def broker_xml(core: str, *, extra_ns: str = "") -> str:
    """Wrap a <core> fragment into a complete broker.xml document."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<configuration xmlns="urn:activemq"{extra_ns}>\n'
        '  <core xmlns="urn:activemq:core">\n'
        f"{core}\n"
        "  </core>\n"
        "</configuration>\n"
    )


def corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(CORPUS.rglob("*.xml"))


@pytest.fixture
def write_broker(tmp_path: Path):
    """Write a <core> fragment as broker.xml in tmp_path and return its path."""

    def write(core: str, name: str = "broker.xml") -> Path:
        p = tmp_path / name
        p.write_text(broker_xml(core), encoding="utf-8")
        return p

    return write


@pytest.fixture
def mosquitto(tmp_path: Path):  # noqa: ANN201 - yields tests.peers.Mosquitto
    """A real mosquitto broker on a free 127.0.0.1 port (skips when mosquitto is not installed)."""
    from tests.peers import start_mosquitto

    broker = start_mosquitto(tmp_path)
    if broker is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    yield broker
    broker.stop()


@pytest.fixture(autouse=True)
def _no_output_guard_left() -> object:
    """A command run in-process (CliRunner) guards the process's output with its config's secrets
    (redact_output.guard); the next test must not inherit that guard."""
    yield
    from artemis_routing_cli import redact_output

    redact_output.release()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Long tests first, dealt evenly to the xdist workers (tests/schedule.py)."""
    from tests.schedule import order

    workerinput = getattr(config, "workerinput", None)
    order(items, int(workerinput["workercount"]) if workerinput else 1)


def missing_peers(skipped: list[object]) -> dict[str, int]:
    """Reason -> how many tests a missing real peer kept from running, from pytest's skip reports."""
    from collections import Counter

    from tests.real_clients import PEER_MISSING

    found: Counter[str] = Counter()
    for report in skipped:
        longrepr = getattr(report, "longrepr", None)
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr or "")
        reason = reason.removeprefix("Skipped: ")
        if reason.startswith(PEER_MISSING):
            found[reason[len(PEER_MISSING):]] += 1
    return dict(found)


def pytest_terminal_summary(terminalreporter: object, exitstatus: int, config: pytest.Config) -> None:
    """Say loudly, last, which tests did not run for want of a real peer, and how to get it: the
    README's test command runs what CI runs only where .ci/run has installed the peers."""
    missing = missing_peers(terminalreporter.stats.get("skipped", []))  # type: ignore[attr-defined]
    if not missing:
        return
    write = terminalreporter.write_line  # type: ignore[attr-defined]
    terminalreporter.section("real peers missing: these tests did NOT run", sep="!", red=True, bold=True)  # type: ignore[attr-defined]
    for reason, count in sorted(missing.items()):
        write(f"{count:4d} test(s): {reason}", red=True)
    write("CI runs them all (.ci/run installs every peer, and CI=true fails a test whose peer is missing).",
          bold=True)
