"""The broker's own loader (Artemis 2.40.0 from Maven Central, its classes in a JVM) and arouter give every
config of the verdict tests the same verdict: the refused configs of issue 14, every rule's documented
FAIL and PASS example, and the shared corpus. One JVM judges them all (judge.loader.run_batch)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from artemis_routing_cli.config.brokerhome import read_broker_home
from artemis_routing_cli.diagnostics import REFUSES
from artemis_routing_cli.judge.loader import run_batch
from artemis_routing_cli.linting import LintSettings, lint_path
from tests.artemis_dist import artemis_home
from tests.cli.test_deploy_verdict import CORPUS, EXAMPLES, REFUSED, write
from tests.real_clients import need


@pytest.fixture(scope="module")
def home():
    need(shutil.which("javac") is not None, "a JDK (javac) for the broker's loader")
    return read_broker_home(str(artemis_home("2.40.0")))


def _configs(tmp: Path) -> dict[str, Path]:
    paths: dict[str, Path] = {}
    for case, (fragment, _rule) in REFUSED.items():
        (tmp / case).mkdir()
        paths[f"refused:{case}"] = write(tmp / case, fragment)
    for i, (rule, kind, fragment) in enumerate(EXAMPLES):
        folder = tmp / f"ex{i}"
        folder.mkdir()
        paths[f"example:{rule}-{kind}"] = write(folder, fragment)
    for path in CORPUS:
        paths[f"corpus:{path.name}"] = path
    return paths


def test_the_brokers_loader_and_arouter_agree_on_every_verdict_config(tmp_path: Path, home) -> None:
    configs = _configs(tmp_path)
    settings = LintSettings(broker_home=home)
    ours = {name: any(d.broker == REFUSES for d in lint_path(str(p), settings).raw) for name, p in configs.items()}
    theirs = run_batch(home, [(str(p), "") for p in configs.values()])
    broker = {name: not v.starts for name, v in zip(configs, theirs, strict=True)}
    differ = {name: (f"arouter {'refuses' if ours[name] else 'deploys'}, broker {v.stage}: {v.error} {v.message[:160]}"
                     if not v.starts else "arouter refuses, broker deploys")
              for name, v in zip(configs, theirs, strict=True) if ours[name] != broker[name]}
    assert differ == {}
    assert all(broker[f"refused:{case}"] for case in REFUSED)  # the test refuses what it means to
    assert sum(not r for r in broker.values()) > 50  # and most configs deploy
