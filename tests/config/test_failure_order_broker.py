"""The error the broker fails on first, when a config holds several that stop it, held against the
real broker's start-up (tests/config/broker_start.py).

validate lists every finding; a command that stops on a refused config (simulate, serve, analyze)
names the one the broker fails on: ``verdict.DeployVerdict.first_failure``. The broker parses
broker.xml (an unknown policy name written there stops the parse), applies the broker properties,
deploys each router in list order (cache, pool, policy, then the key-filter and the
local-target-filter in ConnectionRouter's constructor), deploys the diverts, and starts the routers
(a pool's unknown cluster connection fails there).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from artemis_routing_cli.config import LoadOptions
from artemis_routing_cli.config.properties import PropertiesOptions
from artemis_routing_cli.verdict import load_checked
from tests.config.broker_start import run_broker

EMPTY = """<configuration xmlns="urn:activemq">
  <core xmlns="urn:activemq:core">
    <name>b</name>
  </core>
</configuration>
"""

ROUTER = """<configuration xmlns="urn:activemq">
  <core xmlns="urn:activemq:core">
    <name>b</name>{diverts}
    <connection-routers>
      <connection-router name="r">
        <key-type>CLIENT_ID</key-type>{router}
      </connection-router>
    </connection-routers>
  </core>
</configuration>
"""

DIVERT = """
    <diverts>
      <divert name="d">
        <address>a</address>
        <forwarding-address>b</forwarding-address>
        <filter string="x ==="/>
      </divert>
    </diverts>"""

# name: (broker.xml, broker properties or None, the finding arouter names first, and how it starts,
# the exception the broker fails on)
CASES: dict[str, tuple[str, str | None, tuple[str, str], str]] = {
    # issue 36: the policy is built before the key-filter is compiled
    "properties: policy before key-filter": (
        EMPTY, "connectionRouters.r.keyType=CLIENT_ID\nconnectionRouters.r.keyFilter=(\n"
               "connectionRouters.r.policyConfiguration=CONSISTENT_HASH_MODULO\n"
               "connectionRouters.r.policyConfiguration.properties.MODULO=abc\n",
        ("AR302", "MODULO"), 'java.lang.NumberFormatException: For input string: "abc"'),
    "properties: routers in list order": (
        EMPTY, "connectionRouters.z.keyFilter=(\nconnectionRouters.a.policyConfiguration=NOPE\n",
        ("AR309", "<key-filter>"), "java.util.regex.PatternSyntaxException: Unclosed group near index 1"),
    "broker.xml: an unknown policy stops the parse": (
        ROUTER.format(diverts=DIVERT, router="\n        <key-filter>(</key-filter>\n"
                                             "        <local-target-filter>[</local-target-filter>\n"
                                             '        <policy name="RANDOM"/>'),
        None, ("AR301", "policy 'RANDOM'"),
        "java.lang.ClassNotFoundException: No PolicyFactory found for the policy RANDOM"),
    "broker.xml: key-filter before local-target-filter": (
        ROUTER.format(diverts="", router="\n        <key-filter>(</key-filter>\n"
                                         "        <local-target-filter>[</local-target-filter>"),
        None, ("AR309", "<key-filter>"), "java.util.regex.PatternSyntaxException: Unclosed group near index 1"),
    "broker.xml: routers before diverts": (
        ROUTER.format(diverts=DIVERT, router="\n        <local-target-filter>[</local-target-filter>"),
        None, ("AR309", "<local-target-filter>"),
        "java.util.regex.PatternSyntaxException: Unclosed character class near index 0"),
    "diverts before the routers start": (
        EMPTY.replace("<name>b</name>", "<name>b</name>" + DIVERT),
        "connectionRouters.r.keyType=CLIENT_ID\nconnectionRouters.r.policyConfiguration=FIRST_ELEMENT\n"
        "connectionRouters.r.poolConfiguration.clusterConnection=nope\n",
        ("AR504", "divert filter"),
        "org.apache.activemq.artemis.api.core.ActiveMQInvalidFilterExpressionException: "
        "AMQ229020: Invalid filter: x ==="),
}


def _write(tmp_path: Path, name: str, xml: str, props: str | None) -> tuple[Path, Path | None]:
    slug = "".join(c if c.isalnum() else "-" for c in name)
    xml_path = tmp_path / f"{slug}.xml"
    xml_path.write_text(xml, encoding="utf-8")
    props_path = None
    if props is not None:
        props_path = tmp_path / f"{slug}.properties"
        props_path.write_text(props, encoding="utf-8")
    return xml_path, props_path


def _first(xml_path: Path, props_path: Path | None):
    options = LoadOptions(broker_properties=PropertiesOptions(paths=(str(props_path),)) if props_path else None)
    verdict = load_checked(str(xml_path), options).verdict
    assert len(verdict.refusals) >= 2  # validate keeps listing every one of them
    return verdict.first_failure


@pytest.mark.parametrize("name", list(CASES))
def test_the_first_failure_is_the_brokers(tmp_path: Path, name: str) -> None:
    xml, props, (rule, words), _ = CASES[name]
    first = _first(*_write(tmp_path, name, xml, props))
    assert first is not None and first.rule == rule and words in first.message


def test_the_broker_fails_on_those(tmp_path: Path) -> None:
    files = [_write(tmp_path, name, xml, props) for name, (xml, props, _, _) in CASES.items()]
    outcomes = run_broker(files, tmp_path)
    said = {name: (o.parse_error or o.failure) for name, o in zip(CASES, outcomes, strict=True)}
    assert said == {name: case[3] for name, case in CASES.items()}
    assert all(o.state != "STARTED" for o in outcomes)
