"""(6) Deploy verdicts on a real start: configs of the verdict tests (tests/cli/test_deploy_verdict.py),
refused and deployed, each started for real: the broker stops exactly where arouter says
``refuses-to-start`` and becomes active where it says the config deploys (or logs and skips)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from artemis_routing_cli.diagnostics import REFUSES
from artemis_routing_cli.linting import lint_path
from tests.cli.test_deploy_verdict import REFUSED, STATIC, pool, router, write
from tests.realbroker.instances import ACTIVE, create, launch, wait_logged

#: A sample of the refused configs (those that bind nothing: no acceptor of their own).
#: Each start costs 10-20 s of a JVM on the CI machine: one case per kind of refusal (a value check, the
#: policy factory, the modulo property, a policy property, the schema, the substitution, a boolean).
REFUSED_SAMPLE = ["quorum-size-0", "cache-timeout-minus-1", "policy-RANDOM", "modulo-missing", "modulo-lower-case",
                  "threshold-many", "router-without-name", "key-filter-typo", "empty-property-name",
                  "local-target-enabled-yes"]
DEPLOYED = {
    "plain-first-element": router(),
    "missing-connector-and-unreachable-quorum": pool(
        "<quorum-size>3</quorum-size><static-connectors><connector-ref>b1</connector-ref>"
        "<connector-ref>nosuch</connector-ref></static-connectors>"),
    "masked-password-that-decodes": "<mask-password>true</mask-password>\n" + pool(
        f"<password>3bdfd94fe8cdf710e7fefa72f809ea90</password>{STATIC}"),
    "modulo-3": router("<local-target-filter>^0$</local-target-filter>",
                       policy='<policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="3"/></policy>',
                       pool=""),
}
CASES = {**{name: REFUSED[name][0] for name in REFUSED_SAMPLE}, **DEPLOYED}


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One broker instance without web console; each case writes its broker.xml and starts it."""
    return create(tmp_path_factory.mktemp("verdicts") / "broker", "127.0.0.1", None)


@pytest.fixture
def started(instance: Path) -> Iterator[list]:
    runs: list = []
    yield runs
    for run in runs:
        run.stop()


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_the_broker_starts_exactly_where_arouter_says_it_deploys(instance: Path, started: list, case: str) -> None:
    path = write(instance / "etc", CASES[case])
    refusing = [d.rule for d in lint_path(str(path)).raw if d.broker == REFUSES]
    assert bool(refusing) == (case in REFUSED_SAMPLE)  # the verdict tests' own claim, checked again here
    run = launch(instance)
    started.append(run)
    became_active = wait_logged(run, ACTIVE)
    assert became_active == (not refusing), (case, refusing, run.log_text()[-2500:])
