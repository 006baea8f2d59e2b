"""AR313: Boolean.parseBoolean reads anything but 'true' as false."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import broker_xml

from .helpers import lint_fragment, only


@pytest.mark.parametrize(("value", "fires"), [("1", True), ("yes", True), ("true", False), ("TRUE", False),
                                              ("false", False), (" true ", False), ("0", True)])
def test_divert_exclusive(tmp_path, value, fires) -> None:
    frag = f"""<diverts><divert name="d"><address>a</address><forwarding-address>b</forwarding-address>
  <filter string="x = 1"/><exclusive>{value}</exclusive></divert></diverts>"""
    diags = only(lint_fragment(tmp_path, frag), "AR313")
    assert bool(diags) == fires
    if value == "1":
        assert "write true" in diags[0].message


def test_static_connectors_attribute_is_not_trimmed(tmp_path) -> None:
    frag = """<connectors><connector name="a">tcp://a:61616</connector><connector name="b">tcp://b:61616</connector>
</connectors>
<cluster-connections><cluster-connection name="cc"><connector-ref>a</connector-ref>
  <static-connectors allow-direct-connections-only=" true"><connector-ref>b</connector-ref></static-connectors>
</cluster-connection></cluster-connections>"""
    [d] = only(lint_fragment(tmp_path, frag), "AR313")
    assert d.line == 5 and "not trimmed" in d.message


def test_cache_persisted(tmp_path) -> None:
    frag = """<connection-routers><connection-router name="r"><cache><persisted>1</persisted></cache>
  <local-target-filter>x</local-target-filter></connection-router></connection-routers>"""
    assert len(only(lint_fragment(tmp_path, frag), "AR313")) == 1


def test_attribute_still_checked_when_a_router_pool_names_a_cluster_connection(tmp_path) -> None:
    """A pool's <cluster-connection> element is not a cluster connection of the model: the elements and
    the model must still line up, or the attribute check silently disappears."""
    frag = """<connectors><connector name="a">tcp://a:61616</connector><connector name="b">tcp://b:61616</connector>
</connectors>
<cluster-connections><cluster-connection name="cc"><connector-ref>a</connector-ref>
  <static-connectors allow-direct-connections-only="yes"><connector-ref>b</connector-ref></static-connectors>
</cluster-connection></cluster-connections>
<connection-routers><connection-router name="r"><policy name="CONSISTENT_HASH"/>
  <pool><cluster-connection>cc</cluster-connection></pool></connection-router></connection-routers>"""
    [d] = only(lint_fragment(tmp_path, frag), "AR313")
    assert d.line == 5 and 'allow-direct-connections-only="yes"' in d.message


def test_element_with_a_no_break_space_is_false() -> None:
    from artemis_routing_cli.config import LoadOptions, load_text
    from tests.conftest import broker_xml

    frag = """<diverts><divert name="d"><address>a</address><forwarding-address>b</forwarding-address>
  <exclusive>\u00a0true</exclusive></divert></diverts>"""
    cfg = load_text(broker_xml(frag), LoadOptions(environ={}))
    assert cfg.diverts[0].exclusive is False  # String.trim keeps U+00A0: "\u00a0true" is not "true"


@pytest.mark.parametrize("value", ["true", " TRUE ", "false", "False\n", "1", "yes", "", " ", "\u00a0true", "tru e"])
def test_objects_passed_over_are_exactly_those_with_nothing_to_say(tmp_path: Path, value: str) -> None:
    """The quick pass over pools and diverts (``_suspect``) skips only what the full reading reports nothing for."""
    from artemis_routing_cli.config.nodes import ChildFields
    from artemis_routing_cli.linting import lint_path
    from artemis_routing_cli.rules.booleans import DIVERT_BOOLEANS, _suspect

    path = tmp_path / "broker.xml"
    path.write_text(broker_xml(f'<diverts><divert name="d"><address>a</address><forwarding-address>b'
                               f'</forwarding-address><exclusive>{value}</exclusive></divert></diverts>'))
    from artemis_routing_cli.config import LoadOptions, load_document
    from artemis_routing_cli.config.parse import build_config

    divert = build_config(load_document(str(path), LoadOptions({}, None, None))).diverts[0]
    assert isinstance(divert.fields, ChildFields)
    reported = [d for d in lint_path(str(path)).diagnostics if d.rule == "AR313"]
    assert _suspect(divert.fields, DIVERT_BOOLEANS) == bool(reported)
