"""AR311, AR312: pool and cache numbers."""

from __future__ import annotations

import pytest

from .helpers import lint_fragment, only

CONNECTORS = """<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
  <connector name="b2">tcp://broker2:61616</connector>
</connectors>"""


def pool(settings: str, refs: tuple[str, ...] = ("b1", "b2"), cache: str = "") -> str:
    body = "".join(f"<connector-ref>{r}</connector-ref>" for r in refs)
    return f"""{CONNECTORS}
<connection-routers>
  <connection-router name="r1">
    <policy name="FIRST_ELEMENT"/>{cache}
    <pool>{settings}<static-connectors>{body}</static-connectors></pool>
  </connection-router>
</connection-routers>"""


@pytest.mark.parametrize(("settings", "fires"), [
    ("<check-period>0</check-period>", True),
    ("<check-period>1</check-period>", False),
    ("<check-period>3000000000</check-period>", True),  # an xs:long, not a Java int
    ("<quorum-size>0</quorum-size>", True),
    ("<quorum-size>-1</quorum-size>", True),
    ("<quorum-timeout>0</quorum-timeout>", False),
    ("<quorum-timeout>-1</quorum-timeout>", True),
    ("<quorum-timeout>abc</quorum-timeout>", False),  # the schema's business (AR103)
])
def test_ar311_pool_limits(tmp_path, settings, fires) -> None:
    assert bool(only(lint_fragment(tmp_path, pool(settings)), "AR311")) == fires


@pytest.mark.parametrize(("timeout", "fires"), [("-1", True), ("0", False), ("60000", False)])
def test_ar311_cache_timeout(tmp_path, timeout, fires) -> None:
    frag = pool("", cache=f"<cache><timeout>{timeout}</timeout></cache>")
    assert bool(only(lint_fragment(tmp_path, frag), "AR311")) == fires


@pytest.mark.parametrize(("settings", "refs", "fires"), [
    ("<quorum-size>2</quorum-size>", ("b1", "b2"), False),
    ("<quorum-size>3</quorum-size>", ("b1", "b2"), True),
    ("<quorum-size>3</quorum-size><local-target-enabled>true</local-target-enabled>", ("b1", "b2"), False),
    ("<quorum-size>2</quorum-size>", ("b1", "b9"), True),  # b9 does not exist
    ("<quorum-size>2</quorum-size>", ("b1", "b1"), True),  # the same connector twice is one target
])
def test_ar312_quorum_against_static_targets(tmp_path, settings, refs, fires) -> None:
    diags = only(lint_fragment(tmp_path, pool(settings, refs)), "AR312")
    assert bool(diags) == fires
    if fires:
        assert "can never be reached" in diags[0].message


def test_ar312_not_for_discovery_pools(tmp_path) -> None:
    frag = """<discovery-groups><discovery-group name="dg"><group-address>231.7.7.7</group-address>
  <group-port>9876</group-port></discovery-group></discovery-groups>
<connection-routers><connection-router name="r1"><policy name="FIRST_ELEMENT"/>
  <pool><quorum-size>5</quorum-size><discovery-group-ref discovery-group-name="dg"/></pool>
</connection-router></connection-routers>"""
    assert only(lint_fragment(tmp_path, frag), "AR312") == []
