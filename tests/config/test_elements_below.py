"""build_config reads the sections below <core> from one walk: each name's elements are the ones a
walk per name (the broker's getElementsByTagName: any namespace, document order) gives, and the
rules' shared walk answers the same from the model's lists as from its own."""

from __future__ import annotations

import random

import pytest
from lxml import etree

from artemis_routing_cli.config.nodes import descendants
from artemis_routing_cli.config.parse import READ_BELOW_CORE, elements_below
from artemis_routing_cli.rules._util import raw_elements
from tests.conftest import SAMPLE

CORE = "urn:activemq:core"


def _random_tree(rng: random.Random) -> etree._Element:
    names = [*READ_BELOW_CORE, "connectors", "acceptors", "diverts", "pool", "other", "connector-ref"]
    namespaces = [CORE, "urn:other", None]
    core = etree.Element(f"{{{CORE}}}core")
    nodes = [core]
    for _ in range(rng.randint(0, 60)):
        parent = rng.choice(nodes)
        roll = rng.random()
        if roll < 0.1:
            parent.append(etree.Comment("c"))
            continue
        ns = rng.choice(namespaces)
        name = rng.choice(names)
        el = etree.SubElement(parent, f"{{{ns}}}{name}" if ns else name)
        nodes.append(el)
    return core


@pytest.mark.parametrize("seed", range(60))
def test_one_walk_gives_each_names_elements_in_document_order(seed: int) -> None:
    core = _random_tree(random.Random(seed))
    found = elements_below(core)
    assert set(found) == set(READ_BELOW_CORE)
    for name in READ_BELOW_CORE:
        assert found[name] == list(descendants(core, name)), name


def test_the_rules_read_the_models_walk_as_their_own() -> None:
    from dataclasses import replace

    from artemis_routing_cli.config import load

    config = load(str(SAMPLE))
    assert config.elements_below is not None
    own = raw_elements(replace(config, elements_below=None))
    shared = raw_elements(config)
    for part in ("connectors", "acceptors", "routers", "cluster_connections"):
        assert getattr(shared, part) == getattr(own, part), part
    assert shared.routers  # the sample has routers: the comparison saw elements
