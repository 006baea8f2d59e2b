"""AR311 (values the broker's parser rejects, every section) and AR312 (unreachable quorums)."""

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
    # AbstractPool keys targets by identity: the same connector twice is two targets (and quorum 2 is reachable)
    ("<quorum-size>2</quorum-size>", ("b1", "b1"), False),
    ("<quorum-size>3</quorum-size>", ("b1", "b1"), True),
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


CLUSTER = """<cluster-connections>
  <cluster-connection name="cc">
    <connector-ref>b1</connector-ref>
    {body}
  </cluster-connection>
</cluster-connections>"""


@pytest.mark.parametrize(("body", "fires"), [
    ("<max-hops>-1</max-hops>", True),  # GE_ZERO
    ("<max-hops>0</max-hops>", False),
    ("<max-hops/>", True),  # the schema fills in its default 1; Integer.parseInt("") fails
    ("<max-hops>\u00a01</max-hops>", False),  # not an xs:int: the schema's business (AR103)
    ("<check-period>0</check-period>", True),  # GT_ZERO (a long)
    ("<check-period>3000000000</check-period>", False),  # Long.parseLong is fine
    ("<reconnect-attempts>-2</reconnect-attempts>", True),  # MINUS_ONE_OR_GE_ZERO
    ("<reconnect-attempts>-1</reconnect-attempts>", False),
    ("<retry-interval-multiplier>0</retry-interval-multiplier>", True),  # GT_ZERO on a double
    ("<retry-interval-multiplier>NaN</retry-interval-multiplier>", True),
    ("<retry-interval-multiplier>INF</retry-interval-multiplier>", True),  # xs:double yes, Java no
    ("<retry-interval-multiplier>1.5</retry-interval-multiplier>", False),
    ("<call-failover-timeout>0</call-failover-timeout>", True),  # MINUS_ONE_OR_GT_ZERO
    ("<call-failover-timeout>-1</call-failover-timeout>", False),
    ("<confirmation-window-size>1MiB</confirmation-window-size>", False),  # ByteUtil.convertTextBytes
    ("<confirmation-window-size>lots</confirmation-window-size>", True),
    ("<confirmation-window-size>3GiB</confirmation-window-size>", True),  # beyond a positive int
    ("<producer-window-size>-1</producer-window-size>", False),
    ("<message-load-balancing/>", True),  # empty: the schema's default, the broker's enum check fails
    ("<forward-when-no-consumers>true</forward-when-no-consumers><message-load-balancing/>", False),  # not read
])
def test_ar311_cluster_connection_values(tmp_path, body, fires) -> None:
    frag = CONNECTORS + CLUSTER.format(body=body)
    hits = only(lint_fragment(tmp_path, frag), "AR311")
    assert bool(hits) == fires, hits
    if fires:
        assert hits[0].line >= 2 and "the broker refuses to start" in hits[0].message


def test_ar311_cluster_values_of_a_skipped_cluster_connection_are_not_read(tmp_path) -> None:
    frag = CONNECTORS + CLUSTER.format(body="<max-hops>-1</max-hops>").replace(">b1<", ">nope<")
    diags = lint_fragment(tmp_path, frag)
    assert only(diags, "AR311") == [] and only(diags, "AR206")


def test_ar311_empty_cluster_connector_ref(tmp_path) -> None:
    frag = CONNECTORS + CLUSTER.format(body="").replace("<connector-ref>b1</connector-ref>",
                                                        "<connector-ref> </connector-ref>")
    diags = lint_fragment(tmp_path, frag)
    assert [d.rule for d in diags if d.severity.value == "error"] == ["AR311"]
    assert "NOT_NULL_OR_EMPTY" in only(diags, "AR311")[0].message


@pytest.mark.parametrize(("groups", "fires"), [
    ("<broadcast-group name='bg'><group-address>231.7.7.7</group-address><group-port>0</group-port>"
     "<connector-ref>b1</connector-ref></broadcast-group>", True),  # MINUS_ONE_OR_GT_ZERO
    ("<broadcast-group name='bg'><group-address>231.7.7.7</group-address><group-port>9876</group-port>"
     "<broadcast-period>0</broadcast-period><connector-ref>b1</connector-ref></broadcast-group>", True),
    ("<broadcast-group name='bg'><local-bind-port>0</local-bind-port><group-address>231.7.7.7</group-address>"
     "<group-port>9876</group-port><connector-ref>b1</connector-ref></broadcast-group>", True),
    ("<broadcast-group name='bg'><group-address>231.7.7.7</group-address><group-port>9876</group-port>"
     "<connector-ref> </connector-ref></broadcast-group>", True),  # NOT_NULL_OR_EMPTY
    ("<broadcast-group name='bg'><group-address>231.7.7.7</group-address><group-port>-1</group-port>"
     "<connector-ref>b1</connector-ref></broadcast-group>", False),
])
def test_ar311_broadcast_group_values(tmp_path, groups, fires) -> None:
    frag = CONNECTORS + f"<broadcast-groups>{groups}</broadcast-groups>"
    assert bool(only(lint_fragment(tmp_path, frag), "AR311")) == fires


@pytest.mark.parametrize(("body", "fires"), [
    ("<refresh-timeout>0</refresh-timeout>", True),
    ("<local-bind-port>0</local-bind-port>", True),
    ("<initial-wait-timeout/>", True),
    ("<refresh-timeout>10</refresh-timeout><local-bind-port>-1</local-bind-port>", False),
])
def test_ar311_discovery_group_values(tmp_path, body, fires) -> None:
    frag = (f"<discovery-groups><discovery-group name='dg'><group-address>231.7.7.7</group-address>"
            f"<group-port>9876</group-port>{body}</discovery-group></discovery-groups>")
    assert bool(only(lint_fragment(tmp_path, frag), "AR311")) == fires


@pytest.mark.parametrize(("body", "fires"), [
    ("<address> </address><forwarding-address>x</forwarding-address>", True),  # blank after trim
    ("<address>a</address><forwarding-address></forwarding-address>", True),
    ("<address>a</address><forwarding-address>x</forwarding-address><routing-type/>", True),
    ("<address>\u00a0</address><forwarding-address>x</forwarding-address>", False),  # Java's trim keeps a NBSP
    ("<address>a</address><forwarding-address>x</forwarding-address>", False),
])
def test_ar311_divert_values(tmp_path, body, fires) -> None:
    frag = f"<diverts><divert name='d'>{body}</divert></diverts>"
    assert bool(only(lint_fragment(tmp_path, frag), "AR311")) == fires


def test_ar311_every_pool_of_a_router_is_read(tmp_path) -> None:
    """Each <pool> is parsed in turn (the last one stays): a bad value in an earlier one stops the broker too."""
    frag = pool("<check-period>0</check-period>").replace(
        "</pool>", "</pool><pool><static-connectors><connector-ref>b1</connector-ref></static-connectors></pool>")
    assert only(lint_fragment(tmp_path, frag), "AR311")


def test_model_keeps_rejected_values_as_written() -> None:
    from artemis_routing_cli.config import LoadOptions, load_text
    from tests.conftest import broker_xml

    cfg = load_text(broker_xml(CONNECTORS + CLUSTER.format(body="<max-hops>-1</max-hops><check-period>0</check-period>")
                               + pool("<quorum-size>0</quorum-size>").replace(CONNECTORS, "")), LoadOptions(environ={}))
    cc = cfg.cluster_connections[0]
    assert (cc.max_hops, cc.check_period) == (-1, 0)  # not the defaults 1 and 30000
    assert cfg.connection_routers[0].pool is not None and cfg.connection_routers[0].pool.quorum_size == 0
    assert {(p.section, p.element) for p in cfg.problems} == {
        ("cluster-connection cc", "max-hops"), ("cluster-connection cc", "check-period"),
        ("connection-router r1", "quorum-size")}
