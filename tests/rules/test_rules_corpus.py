"""The real broker.xml corpus and the user manual's router example."""

from __future__ import annotations

import re
import subprocess

import pytest

from artemis_routing_cli.diagnostics import Severity
from artemis_routing_cli.linting import LintSettings, lint_path
from artemis_routing_cli.rules import families

from .helpers import CORPUS, MIRROR, lint_fragment, only

OUR_RULES = {meta.id for mod in families() for meta in mod.RULES}
CORPUS_FILES = sorted(CORPUS.rglob("*.xml")) if CORPUS.is_dir() else []


@pytest.mark.skipif(not CORPUS_FILES, reason="../shared/corpus is absent")
def test_corpus_has_179_files() -> None:
    assert len(CORPUS_FILES) == 179


@pytest.mark.skipif(not CORPUS_FILES, reason="../shared/corpus is absent")
def test_corpus_gives_no_error_from_the_rule_families() -> None:
    settings = LintSettings(environ={})  # as on a machine without the examples' variables
    errors = []
    for path in CORPUS_FILES:
        for d in lint_path(str(path), settings).diagnostics:
            if d.rule in OUR_RULES and d.severity is Severity.ERROR:
                errors.append(f"{d.file}:{d.line}: {d.rule} {d.message}")
    assert errors == []


@pytest.mark.skipif(not CORPUS_FILES, reason="../shared/corpus is absent")
def test_corpus_routers_are_judged() -> None:
    """The connection-router examples are read (their routers are in the model) and no router goes unused."""
    from artemis_routing_cli.config import LoadOptions, load

    router_files = [p for p in CORPUS_FILES if "connection-router" in p.as_posix()]
    assert router_files
    seen = set()
    routers = 0
    for path in router_files:
        routers += len(load(str(path), LoadOptions(environ={})).connection_routers)
        seen |= {d.rule for d in lint_path(str(path), LintSettings(environ={})).diagnostics}
    assert routers > 0 and "AR205" not in seen


def _manual_block() -> str | None:
    try:
        text = subprocess.run(["git", "-C", str(MIRROR), "show", "HEAD:docs/user-manual/connection-routers.adoc"],
                              capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    blocks = re.findall(r"----\n(<connection-routers>.*?</connection-routers>)\n----", text, re.S)
    return next((b for b in blocks if "consistent-hash-router" in b), None)


MANUAL_CONTEXT = """<connectors>
  <connector name="connector1">tcp://b1:61616</connector>
  <connector name="connector2">tcp://b2:61616</connector>
  <connector name="connector3">tcp://b3:61616</connector>
</connectors>
<discovery-groups>
  <discovery-group name="dg1"><group-address>231.7.7.7</group-address><group-port>9876</group-port></discovery-group>
  <discovery-group name="dg2"><group-address>231.7.7.7</group-address><group-port>9877</group-port></discovery-group>
</discovery-groups>
"""


def test_user_manual_router_example_gets_ar306(tmp_path) -> None:
    block = _manual_block()
    if block is None:
        pytest.skip("the broker's source mirror is absent")
    diags = lint_fragment(tmp_path, MANUAL_CONTEXT + block)
    repeated = only(diags, "AR306")
    assert len(repeated) == 1
    assert "the broker uses the last <policy>: CONSISTENT_HASH" in repeated[0].message
    assert [d for d in diags if d.severity is Severity.ERROR] == []
