"""Rule metadata, the documented FAIL/PASS examples, and the user manual's router example."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from artemis_routing_cli.config.schema import SCHEMA_RULES
from artemis_routing_cli.diagnostics import Severity
from tests.schema.schema_support import check_fragment

_BLOCK = re.compile(r"\*\*(FAIL|PASS)\*\*\n```xml\n(.*?)```", re.S)
MIRROR = Path("/work/.mirror/apache+activemq-artemis/repo")


def examples(kind: str) -> list[tuple[str, str]]:
    found = []
    for rule in SCHEMA_RULES:
        for label, block in _BLOCK.findall(rule.doc):
            if label == kind:
                found.append((rule.id, block))
    return found


def test_rule_ids_and_metadata() -> None:
    assert [r.id for r in SCHEMA_RULES] == ["AR101", "AR102", "AR103", "AR104", "AR105", "AR106"]
    assert len({r.name for r in SCHEMA_RULES}) == len(SCHEMA_RULES)
    for rule in SCHEMA_RULES:
        assert rule.severity is Severity.ERROR
        assert rule.category == "schema"
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
        labels = [label for label, _ in _BLOCK.findall(rule.doc)]
        assert labels == ["FAIL", "PASS"], rule.id


@pytest.mark.parametrize(("rule", "fragment"), examples("FAIL"), ids=[r for r, _ in examples("FAIL")])
def test_documented_fail_example_fires_its_rule(rule: str, fragment: str) -> None:
    assert [d.rule for d in check_fragment(fragment)] == [rule]


@pytest.mark.parametrize(("rule", "fragment"), examples("PASS"), ids=[r for r, _ in examples("PASS")])
def test_documented_pass_example_is_clean(rule: str, fragment: str) -> None:
    assert check_fragment(fragment) == []


# Our own router set with the manual's shape: a router with no pool, a static pool, a router
# whose <policy> is written twice (once after its pool), and a discovery pool with credentials.
MANUAL_SHAPED = """<discovery-groups>
  <discovery-group name="dg-a"><group-port>9876</group-port></discovery-group>
  <discovery-group name="dg-b"><group-port>9877</group-port></discovery-group>
</discovery-groups>
<connection-routers>
  <connection-router name="partition">
    <key-type>CLIENT_ID</key-type>
    <key-filter>^.{3}</key-filter>
    <local-target-filter>^ABC.*</local-target-filter>
  </connection-router>
  <connection-router name="static">
    <policy name="FIRST_ELEMENT"/>
    <pool>
      <static-connectors>
        <connector-ref>b1</connector-ref>
        <connector-ref>b2</connector-ref>
      </static-connectors>
    </pool>
  </connection-router>
  <connection-router name="hashed">
    <key-type>USER_NAME</key-type>
    <policy name="CONSISTENT_HASH"/>
    <pool>
      <local-target-enabled>true</local-target-enabled>
      <discovery-group-ref discovery-group-name="dg-a"/>
    </pool>
    <policy name="CONSISTENT_HASH"/>
  </connection-router>
  <connection-router name="least">
    <key-type>CLIENT_ID</key-type>
    <policy name="LEAST_CONNECTIONS"/>
    <pool>
      <username>guest</username>
      <password>guest</password>
      <discovery-group-ref discovery-group-name="dg-b"/>
    </pool>
  </connection-router>
</connection-routers>"""


def test_manual_shaped_routers_pass() -> None:
    assert check_fragment(MANUAL_SHAPED) == []


def _manual_example() -> str | None:
    git = shutil.which("git")
    if git is None or not MIRROR.exists():
        return None
    shown = subprocess.run([git, "-C", str(MIRROR), "show", "HEAD:docs/user-manual/connection-routers.adoc"],
                           capture_output=True, text=True, check=False)
    if shown.returncode != 0:
        return None
    blocks = re.findall(r"<connection-routers>.*?</connection-routers>", shown.stdout, re.S)
    return max(blocks, key=len) if blocks else None


def test_user_manual_example_passes_with_its_discovery_groups() -> None:
    example = _manual_example()
    if example is None:
        pytest.skip("the Artemis source mirror is not available")
    # the manual's set has one router that holds two <policy> elements
    assert example.count('<policy name="CONSISTENT_HASH"/>') == 2
    groups = ('<discovery-groups><discovery-group name="dg1"/><discovery-group name="dg2"/>'
              "</discovery-groups>\n")
    assert check_fragment(groups + example) == []
    # alone, its discovery-group-name references point at nothing, which the broker's schema rejects
    assert [d.rule for d in check_fragment(example)] == ["AR106", "AR106"]
