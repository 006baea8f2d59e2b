"""The model's positions made in place (``parse._new``) are the locator's, and
``ChildFields.elements`` answers as ``element`` does, on odd children too."""

from __future__ import annotations

import random

import pytest
from lxml import etree

from artemis_routing_cli.config import LoadOptions, load_document
from artemis_routing_cli.config.parse import ChildFields, build_config
from tests.config.test_child_fields import _element, _random_children
from tests.conftest import broker_xml

XML = """<acceptors><acceptor name="a">tcp://0.0.0.0:61616?router=r</acceptor></acceptors>
<connectors><connector name="c1">tcp://h1:61616</connector></connectors>
<diverts><divert name="d"><address>a</address><!-- c --><forwarding-address>b</forwarding-address>
  <filter string="x = 1"/></divert></diverts>
<connection-routers><connection-router name="r"><policy name="FIRST_ELEMENT"/>
  <pool><static-connectors><connector-ref>c1</connector-ref><connector-ref>c1</connector-ref></static-connectors>
  </pool></connection-router></connection-routers>"""


def test_positions_made_in_place_are_the_locators(tmp_path) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(broker_xml(XML), encoding="utf-8")
    doc = load_document(str(path), LoadOptions(environ={}))
    config = build_config(doc)
    loc = doc.locator
    core = doc.core
    router_el = next(core.iter("{*}connection-router"))
    router = config.connection_routers[0]
    assert router.pos == loc.locate(router_el)
    assert router.policy is not None and router.policy.pos == loc.locate(next(core.iter("{*}policy")))
    assert router.pool is not None and router.pool.pos == loc.locate(next(core.iter("{*}pool")))
    refs = list(core.iter("{*}connector-ref"))
    assert router.pool.static_connector_pos == tuple(loc.locate(ref) for ref in refs)
    divert = config.diverts[0]
    assert divert.pos == loc.locate(next(core.iter("{*}divert")))
    assert divert.filter_pos == loc.locate(next(core.iter("{*}filter")))
    assert config.acceptors[0].pos == loc.locate(next(core.iter("{*}acceptor")))
    for pos in (router.pos, divert.pos, config.acceptors[0].pos, *router.pool.static_connector_pos):
        assert pos.line > 1 and pos.column >= 1


@pytest.mark.parametrize("seed", range(30))
def test_elements_is_element_by_element(tmp_path, seed: int) -> None:
    rng = random.Random(seed)
    el, locator = _element(tmp_path, f"<connection-router name='r'>{_random_children(rng)}</connection-router>")
    names = ("key-type", "pool", "username", "cache", "policy", "absent")
    for node in [el, *el.iterdescendants(etree.Element)]:
        fields = ChildFields(node, locator)
        assert fields.elements(names) == [fields.element(name) for name in names]
        assert fields.elements(names) == [next(node.iterchildren("{*}" + n), None) for n in names]
