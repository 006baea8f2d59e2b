"""Mutated broker.xml files never crash validate or the engine: findings or one clean error, no traceback."""

from __future__ import annotations

import copy
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from artemis_routing_cli.config import LoadOptions, load_text
from artemis_routing_cli.errors import ArouterError
from artemis_routing_cli.linting import LintSettings, lint_path
from artemis_routing_cli.routing.keys import Connection
from artemis_routing_cli.routing.router import Router
from tests.conftest import SAMPLE

SAMPLE_TREE = etree.fromstring(SAMPLE.read_bytes())
NASTY = ["", " ", "-1", "0", "2147483648", "abc", "TRUE", "${x}", "NULL", "(?<=a+)", "[", "\u00e9\U0001F600",
         "tcp://", "tcp://h:x", "a,,b,", "!", "CONSISTENT_HASH_MODULO", "LEAST_CONNECTIONS", "x" * 300]


def mutate(seed: int, steps: int) -> bytes:
    rng = random.Random(seed)
    root = copy.deepcopy(SAMPLE_TREE)
    for _ in range(steps):
        elements = [e for e in root.iter() if isinstance(e.tag, str) and e is not root]
        if not elements:
            break
        el = rng.choice(elements)
        action = rng.randrange(6)
        parent = el.getparent()
        if action == 0 and parent is not None:
            parent.remove(el)  # drop an element
        elif action == 1 and len(el) == 0:
            el.text = rng.choice(NASTY)  # odd text
        elif action == 2 and el.attrib:
            key = rng.choice(list(el.attrib))
            if rng.random() < 0.5:
                del el.attrib[key]
            else:
                el.set(key, rng.choice(NASTY))
        elif action == 3 and parent is not None:
            parent.append(copy.deepcopy(el))  # repeat an element (maybe out of order)
        elif action == 4 and parent is not None:
            sibling = rng.choice(elements)
            if el not in sibling.iterancestors() and sibling is not el:
                sibling.append(copy.deepcopy(el))  # move a copy somewhere else
        elif action == 5:
            el.tail = (el.tail or "") + rng.choice(["", " text "])
    return etree.tostring(root)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.integers(1, 12))
def test_validate_never_crashes_on_a_mutated_sample(tmp_path_factory, seed: int, steps: int) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "broker.xml"
    path.write_bytes(mutate(seed, steps))
    report = lint_path(str(path), LintSettings(environ={}))
    for d in report.diagnostics:
        assert d.line >= 1 and d.column >= 1 and d.message and "\n" not in d.message


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.integers(1, 12))
def test_engine_never_crashes_on_a_mutated_sample(seed: int, steps: int) -> None:
    try:
        cfg = load_text(mutate(seed, steps).decode("utf-8"), LoadOptions(environ={}))
    except ArouterError:
        return  # a clean, one-line refusal is fine
    for router in cfg.connection_routers:
        try:
            r = Router.from_config(cfg, router, seed=1)
        except ArouterError:
            continue  # e.g. an invalid Java regex: reported, not a crash
        for conn in (Connection(client_id="FOO1", username="admin", remote_address="/10.0.0.1:1"), Connection()):
            try:
                res = r.route(conn)
            except ArouterError:
                continue
            assert res.status in ("OK", "REFUSED_UNAVAILABLE", "REFUSED_USE_ANOTHER")
