"""AR601, AR602: cluster connections."""

from __future__ import annotations

import pytest

from artemis_routing_cli.rules.cluster import overlap

from .helpers import lint_fragment, only


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("", "", ""),
    ("europe", "europe.news", "europe.news"),
    ("europe", "asia", None),
    ("europe,!europe.news", "europe.news", None),
    ("!europe", "europe.news", None),
    ("!europe", "asia", "asia"),
    ("europe,asia", "asia.jobs", "asia.jobs"),
    ("europe", "eu", "europe"),
])
def test_overlap(a, b, expected) -> None:
    assert overlap(a, b) == expected
    assert overlap(b, a) == expected


def test_ar601_reports_the_second_connection(tmp_path) -> None:
    frag = """<connectors><connector name="c">tcp://c:61616</connector></connectors>
<cluster-connections>
  <cluster-connection name="all"><connector-ref>c</connector-ref></cluster-connection>
  <cluster-connection name="jobs"><address>jobs</address><connector-ref>c</connector-ref></cluster-connection>
</cluster-connections>"""
    [d] = only(lint_fragment(tmp_path, frag), "AR601")
    assert d.line == 5 and "'all' (all addresses)" in d.message and "'jobs'" in d.message


def test_ar602_ignores_a_router_pools_cluster_connection_element(tmp_path) -> None:
    frag = """<connectors><connector name="c">tcp://c:61616</connector></connectors>
<cluster-connections><cluster-connection name="cc"><connector-ref>c</connector-ref>
  <static-connectors><connector-ref>c</connector-ref></static-connectors></cluster-connection></cluster-connections>
<connection-routers><connection-router name="r"><policy name="CONSISTENT_HASH"/>
  <pool><cluster-connection>cc</cluster-connection></pool></connection-router></connection-routers>"""
    diags = lint_fragment(tmp_path, frag)
    assert only(diags, "AR602", "AR601", "AR203") == []
