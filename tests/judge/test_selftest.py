"""``arouter selftest``: arouter's engine and Artemis 2.40.0's own ConnectionRouter (one JVM for the batch) agree
on a seeded run of several thousand random routers and connections, and the run is not vacuous."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from artemis_routing_cli.config.brokerhome import read_broker_home
from artemis_routing_cli.judge.selftest import KEY_TYPES, run_selftest
from tests.artemis_dist import artemis_home
from tests.cli.helpers import arouter
from tests.real_clients import need


@pytest.fixture(scope="module")
def home() -> Path:
    need(shutil.which("javac") is not None, "a JDK (javac) for the broker's router classes")
    return artemis_home("2.40.0")


def test_a_seeded_run_of_thousands_of_cases_agrees_and_means_something(home: Path) -> None:
    outcome = run_selftest(read_broker_home(str(home)), seed=20261208, count=3000)
    assert outcome.disagreements() == []
    answers = [a for per_case in outcome.theirs for a in per_case]
    assert len(answers) > 9000
    statuses = Counter(status for status, _ in answers)
    assert set(statuses) == {"OK", "REFUSED_USE_ANOTHER", "REFUSED_UNAVAILABLE"}  # the broker answered each kind
    assert any(target == "local" for _, target in answers)
    assert len({target for _, target in answers if target not in ("", "local")}) > 1000  # many node ids chosen
    assert {case.key_type for case in outcome.cases} == set(KEY_TYPES)


def test_the_command_prints_the_agreement_per_area_and_exits_0(home: Path) -> None:
    run = arouter("selftest", "--broker-home", str(home), "--cases", "60", "--seed", "3", "-f", "json")
    assert run.code == 0, run.err
    doc = json.loads(run.out)
    assert doc["agree"] is True and doc["disagreements"] == []
    assert all(a["agree"] == a["connections"] for a in doc["areas"].values())
    assert any(area.startswith("ROLE_NAME") for area in doc["areas"])


def test_selftest_without_a_broker_home_is_one_line_and_exit_2(tmp_path: Path) -> None:
    run = arouter("selftest", "--cases", "5", env={"ARTEMIS_HOME": ""})
    assert run.code == 2 and "--broker-home" in run.err and len(run.err.strip().splitlines()) == 1
