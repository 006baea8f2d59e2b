"""AR2xx: names that point at nothing, or at something written twice."""

from __future__ import annotations

import pytest

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


def test_ar201_static_refs_are_not_trimmed(tmp_path) -> None:
    diags = only(lint_fragment(tmp_path, CONNECTORS + "\n" + static_router(" b1 ", "b2")), "AR201")
    [d] = diags
    assert d.severity is Severity.WARNING and "' b1 '" in d.message and "does not trim" in d.message


def test_ar201_whitespace_on_every_ref_refuses_everything(tmp_path) -> None:
    diags = only(lint_fragment(tmp_path, CONNECTORS + "\n" + static_router("\n  b1\n  ")), "AR201")
    assert [d.severity for d in diags] == [Severity.ERROR] and "no target" in diags[0].message


def test_ar201_a_comment_first_becomes_the_name(tmp_path) -> None:
    [d] = only(lint_fragment(tmp_path, CONNECTORS + "\n" + static_router("<!--main-->b1", "b2")), "AR201")
    assert "'main'" in d.message


def test_ar201_empty_ref_stops_the_broker(tmp_path) -> None:
    frag = CONNECTORS + "\n" + static_router("b1").replace("<connector-ref>b1</connector-ref>",
                                                           "<connector-ref>b1</connector-ref><connector-ref/>")
    diags = only(lint_fragment(tmp_path, frag), "AR201")
    assert [d.severity for d in diags] == [Severity.ERROR] and "NullPointerException" in diags[0].message


def test_ar201_quiet_for_exact_names(tmp_path) -> None:
    assert only(lint_fragment(tmp_path, CONNECTORS + "\n" + static_router("b1", "b2", "b1")), "AR201") == []


def _cluster(connector_ref: str, *static: str) -> str:
    refs = "".join(f"<connector-ref>{r}</connector-ref>" for r in static)
    members = f"<static-connectors>{refs}</static-connectors>" if static else ""
    return (f"<cluster-connections><cluster-connection name=\"cc\"><connector-ref>{connector_ref}</connector-ref>"
            f"{members}</cluster-connection></cluster-connections>")


def test_ar206_static_refs_are_not_trimmed(tmp_path) -> None:
    [d] = only(lint_fragment(tmp_path, CONNECTORS + _cluster("b1", " b2")), "AR206")
    assert "' b2'" in d.message and "drops the whole static list" in d.message and "does not trim" in d.message


def test_ar206_own_connector_ref_is_trimmed_but_not_a_no_break_space(tmp_path) -> None:
    assert only(lint_fragment(tmp_path, CONNECTORS + _cluster(" b1 ", "b2")), "AR206") == []  # getString trims
    [d] = only(lint_fragment(tmp_path, CONNECTORS + _cluster("\u00a0b1", "b2")), "AR206")
    assert "no-break space" in d.message


def test_ar206_empty_static_ref(tmp_path) -> None:
    frag = CONNECTORS + _cluster("b1", "b2").replace("</static-connectors>", "<connector-ref/></static-connectors>")
    [d] = only(lint_fragment(tmp_path, frag), "AR206")
    assert "NullPointerException" in d.message


def test_ar203_cluster_connection_with_unknown_discovery_group_is_not_deployed(tmp_path) -> None:
    frag = CONNECTORS + """
<broadcast-groups><broadcast-group name="bg"><group-address>231.7.7.7</group-address><group-port>9876</group-port>
  <connector-ref>b1</connector-ref></broadcast-group></broadcast-groups>
<cluster-connections><cluster-connection name="cc"><connector-ref>b1</connector-ref>
  <discovery-group-ref discovery-group-name="bg"/></cluster-connection></cluster-connections>
<connection-routers><connection-router name="r1"><policy name="CONSISTENT_HASH"/>
  <pool><cluster-connection>cc</cluster-connection></pool></connection-router></connection-routers>"""
    diags = lint_fragment(tmp_path, frag)
    [d] = only(diags, "AR203")
    assert "discovery-group-ref> names no discovery group ('bg')" in d.message and d.severity is Severity.ERROR
    assert only(diags, "AR202")  # the cluster connection's own reference


def _broadcast(*refs: str) -> str:
    body = "".join(f"<connector-ref>{r}</connector-ref>" for r in refs)
    return (f"<broadcast-groups><broadcast-group name=\"bg\"><group-address>231.7.7.7</group-address>"
            f"<group-port>9876</group-port>{body}</broadcast-group></broadcast-groups>")


def test_ar209_and_ar207_read_only_the_first_ref(tmp_path) -> None:
    diags = lint_fragment(tmp_path, CONNECTORS + _broadcast("b1", "nope"))
    assert only(diags, "AR207") == []  # 'nope' is never looked up
    [d] = only(diags, "AR209")
    assert "announces 'b1' 2 times; 'nope' never" in d.message
    diags = lint_fragment(tmp_path, CONNECTORS + _broadcast("nope", "b1"))
    assert len(only(diags, "AR207")) == 1 and "'nope'" in only(diags, "AR207")[0].message


def test_ar209_quiet_with_one_ref(tmp_path) -> None:
    assert only(lint_fragment(tmp_path, CONNECTORS + _broadcast("b1")), "AR209", "AR207") == []


@pytest.mark.parametrize(("second", "severity"), [
    ("tcp://0.0.0.0:61616?protocols=CORE;router=r", Severity.WARNING),  # the same parameters, other order
    ("tcp://0.0.0.0:61616?router=r&amp;protocols=CORE", Severity.WARNING),  # & instead of ;
    ("tcp://0.0.0.0:61616?router=r;protocols=AMQP", Severity.ERROR),
    ("tcp://0.0.0.0:61616?router=r;protocols=CORE;amqpCredits=1", Severity.ERROR),  # extraProps count too
])
def test_ar208_acceptors_compared_by_transport_parameters(tmp_path, second: str, severity: Severity) -> None:
    frag = (f'<acceptors><acceptor name="a">tcp://0.0.0.0:61616?router=r;protocols=CORE</acceptor>'
            f'<acceptor name="a">{second}</acceptor></acceptors>')
    [d] = only(lint_fragment(tmp_path, frag), "AR208")
    assert d.severity is severity
