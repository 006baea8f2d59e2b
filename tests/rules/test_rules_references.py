"""AR2xx: names that point at nothing, or at something written twice."""

from __future__ import annotations

from artemis_routing_cli.diagnostics import Severity

from .helpers import lint_fragment, only

CONNECTORS = """<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
  <connector name="b2">tcp://broker2:61616</connector>
</connectors>"""


def static_router(*refs: str, local: bool = False) -> str:
    enabled = "<local-target-enabled>true</local-target-enabled>" if local else ""
    body = "".join(f"<connector-ref>{r}</connector-ref>" for r in refs)
    return f"""<acceptors><acceptor name="a">tcp://0.0.0.0:61616?router=r1</acceptor></acceptors>
<connection-routers>
  <connection-router name="r1">
    <policy name="FIRST_ELEMENT"/>
    <pool>{enabled}<static-connectors>{body}</static-connectors></pool>
  </connection-router>
</connection-routers>"""


def test_ar201_partly_missing_is_a_warning_at_the_ref(tmp_path) -> None:
    diags = only(lint_fragment(tmp_path, CONNECTORS + "\n" + static_router("b1", "nope")), "AR201")
    assert [(d.severity, d.line) for d in diags] == [(Severity.WARNING, 10)]
    assert "'nope'" in diags[0].message


def test_ar201_all_missing_is_an_error(tmp_path) -> None:
    diags = only(lint_fragment(tmp_path, CONNECTORS + "\n" + static_router("x", "y")), "AR201")
    assert [d.severity for d in diags] == [Severity.ERROR, Severity.ERROR]
    assert "no target" in diags[0].message


def test_ar201_all_missing_with_local_target_says_only_local_is_left(tmp_path) -> None:
    diags = only(lint_fragment(tmp_path, CONNECTORS + "\n" + static_router("x", local=True)), "AR201")
    assert len(diags) == 1 and "only the local broker is left" in diags[0].message


def test_a_connector_with_a_bad_url_still_counts_as_defined(tmp_path) -> None:
    frag = '<connectors><connector name="b1">tcp://broker1:6x</connector></connectors>\n' + static_router("b1")
    diags = lint_fragment(tmp_path, frag)
    assert only(diags, "AR201") == [] and len(only(diags, "AR702")) == 1


DG_AND_BG = """<broadcast-groups>
  <broadcast-group name="bg1"><group-address>231.7.7.7</group-address><group-port>9876</group-port>
    <connector-ref>b1</connector-ref></broadcast-group>
</broadcast-groups>"""


def test_ar202_cluster_connection_pointing_at_a_broadcast_group(tmp_path) -> None:
    frag = CONNECTORS + DG_AND_BG + """<cluster-connections>
  <cluster-connection name="cc"><connector-ref>b1</connector-ref>
    <discovery-group-ref discovery-group-name="bg1"/></cluster-connection>
</cluster-connections>"""
    diags = only(lint_fragment(tmp_path, frag), "AR202")
    assert len(diags) == 1 and "skips the cluster connection" in diags[0].message


def test_ar202_leaves_names_matching_nothing_to_the_schema(tmp_path) -> None:
    frag = CONNECTORS + """<connection-routers><connection-router name="r1"><policy name="CONSISTENT_HASH"/>
  <pool><discovery-group-ref discovery-group-name="ghost"/></pool></connection-router></connection-routers>"""
    diags = lint_fragment(tmp_path, frag)
    assert only(diags, "AR202") == [] and len(only(diags, "AR106")) == 1


def test_ar203_names_a_cluster_connection_the_broker_skips(tmp_path) -> None:
    frag = CONNECTORS + """<cluster-connections>
  <cluster-connection name="cc"><connector-ref>missing</connector-ref></cluster-connection>
</cluster-connections>
<connection-routers><connection-router name="r1"><policy name="CONSISTENT_HASH"/>
  <pool><cluster-connection>cc</cluster-connection></pool></connection-router></connection-routers>"""
    diags = lint_fragment(tmp_path, frag)
    ar203 = only(diags, "AR203")
    assert len(ar203) == 1 and "skips" in ar203[0].message and ar203[0].line == 9
    assert len(only(diags, "AR206")) == 1


def test_ar204_and_ar205(tmp_path) -> None:
    frag = """<acceptors><acceptor name="a">tcp://0.0.0.0:61616?protocols=AMQP;router=r2</acceptor></acceptors>
<connection-routers><connection-router name="r1"><local-target-filter>x</local-target-filter>
</connection-router></connection-routers>"""
    diags = lint_fragment(tmp_path, frag)
    assert [(d.rule, d.line) for d in only(diags, "AR204", "AR205")] == [("AR204", 2), ("AR205", 3)]


def test_ar206_static_connector_missing(tmp_path) -> None:
    frag = CONNECTORS + """<cluster-connections>
  <cluster-connection name="cc"><connector-ref>b1</connector-ref>
    <static-connectors><connector-ref>b2</connector-ref><connector-ref>b9</connector-ref></static-connectors>
  </cluster-connection>
</cluster-connections>"""
    diags = only(lint_fragment(tmp_path, frag), "AR206")
    assert len(diags) == 1 and "'b9'" in diags[0].message and "whole static list" in diags[0].message
    assert diags[0].line == 7


def test_ar208_router_defined_twice_reports_the_dropped_first(tmp_path) -> None:
    frag = """<connection-routers>
  <connection-router name="r1"><local-target-filter>a</local-target-filter></connection-router>
  <connection-router name="r1"><local-target-filter>b</local-target-filter></connection-router>
</connection-routers>"""
    diags = only(lint_fragment(tmp_path, frag), "AR208")
    assert len(diags) == 1 and diags[0].line == 3 and "uses the last definition" in diags[0].message


def test_ar208_acceptors(tmp_path) -> None:
    same = """<acceptors>
  <acceptor name="a">tcp://0.0.0.0:61616</acceptor>
  <acceptor name="a">tcp://0.0.0.0:61616</acceptor>
</acceptors>"""
    diags = only(lint_fragment(tmp_path, same), "AR208")
    assert [d.severity for d in diags] == [Severity.WARNING]
    other = same.replace("61616</acceptor>\n</acceptors>", "61617</acceptor>\n</acceptors>")
    diags = only(lint_fragment(tmp_path, other), "AR208")
    assert [(d.severity, d.line) for d in diags] == [(Severity.ERROR, 4)]
