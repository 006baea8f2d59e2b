"""Divert problems for the validate rules."""

from __future__ import annotations

from artemis_routing_cli.messages.checks import divert_problems

from .conftest import divert_xml


def codes(config):
    return [(d.name, code) for d, code, _ in divert_problems(config)]


def test_clean_config_has_no_problems(broker):
    config = broker([divert_xml("d", "a", "b, c", filter="x = 1"), divert_xml("e", "b", "d")])
    assert divert_problems(config) == []


def test_filter_syntax_error_with_column(broker):
    config = broker([divert_xml("d", "a", "b", filter="x = = 1")])
    [(divert, code, text)] = divert_problems(config)
    assert (divert.name, code) == ("d", "filter-syntax")
    assert "column 5" in text


def test_body_query_filter(broker):
    assert codes(broker([divert_xml("d", "a", "b", filter="XPATH '//a'")])) == [("d", "filter-body")]


def test_exclusive_without_filter_shadows(broker):
    config = broker([divert_xml("all", "a", "b", exclusive=True), divert_xml("spy", "a", "c")])
    problems = divert_problems(config)
    assert [(d.name, c) for d, c, _ in problems] == [("all", "exclusive-shadows")]
    assert "spy" in problems[0][2]


def test_loops_and_ping_pong(broker):
    config = broker([
        divert_xml("self", "s", "s"),
        divert_xml("ab", "a", "b", exclusive=True, filter="x = 1"),
        divert_xml("ba", "b", "a", exclusive=True, filter="x = 1"),
    ])
    problems = [(d.name, c, t) for d, c, t in divert_problems(config) if c == "loop"]
    assert len(problems) == 2
    assert any("own address" in t for _, _, t in problems)
    assert any("ping-pong" in t and "a -> b -> a" in t for _, _, t in problems)


def test_composite_entries(broker):
    config = broker([
        divert_xml("empty", "a", "b,,c"),
        divert_xml("trail", "x", "b,c,"),
        divert_xml("twice", "y", "b, b"),
    ])
    assert codes(config) == [
        ("empty", "composite-empty"), ("trail", "composite-empty"), ("twice", "composite-repeated")]


def test_duplicate_names_and_shared_routing_name(broker):
    config = broker([
        divert_xml("d", "a", "b", routing_name="r"),
        divert_xml("e", "a", "c", routing_name="r"),
        divert_xml("d", "z", "y"),
    ])
    assert codes(config) == [("d", "duplicate-name"), ("e", "routing-name-shared")]


def test_loop_search_is_bounded_on_a_dense_divert_graph(broker) -> None:
    """30 addresses, each forwarding to 10 others: exponentially many cycles, still answered."""
    import random

    rng = random.Random(7)
    diverts = [divert_xml(f"d{a}-{k}", f"a{a}", f"a{rng.randrange(30)}") for a in range(30) for k in range(10)]
    loops = [p for p in divert_problems(broker(diverts)) if p[1] == "loop"]
    assert loops


def test_every_cyclic_group_is_reported_even_past_the_walk_budget(broker, monkeypatch) -> None:
    from artemis_routing_cli.messages import checks

    monkeypatch.setattr(checks, "MAX_LOOP_WALK_STEPS", 0)
    diverts = [divert_xml("x1", "a", "b"), divert_xml("x2", "b", "a"), divert_xml("self", "c", "c"),
               divert_xml("line", "d", "e")]
    loops = [(d.name, m) for d, code, m in checks.divert_problems(broker(diverts)) if code == "loop"]
    assert sorted(name for name, _ in loops) == ["self", "x1"]
    two_way = next(m for name, m in loops if name == "x1")
    assert "x1, x2" in two_way and "a -> b -> a" in two_way


def test_shadowed_diverts_are_those_a_scan_of_every_divert_names(broker):
    """Exclusive diverts without a filter shadow, in order, the non-exclusive diverts of their address:
    grouped once by address, the names (and so the messages of both divert checks) are those a scan
    of every active divert per shadowing divert gives."""
    import random

    from artemis_routing_cli.messages.checks import non_exclusive_by_address
    from artemis_routing_cli.messages.flow import active_diverts
    from artemis_routing_cli.rules import all_rules
    from artemis_routing_cli.rules.base import Context
    from artemis_routing_cli.rules.diverts import _shadowing

    rng = random.Random(11)
    for _ in range(20):
        items = [divert_xml(f"d{i}", rng.choice("abc"), rng.choice("xyz"), exclusive=rng.random() < 0.4,
                            **({"filter": "x = 1"} if rng.random() < 0.3 else {})) for i in range(rng.randint(1, 12))]
        config = broker(items)
        active = active_diverts(config)
        grouped = non_exclusive_by_address(active)
        for divert in active:
            scanned = [d.name for d in active if d.address == divert.address and not d.exclusive]
            assert grouped.get(divert.address, []) == scanned
        shadows = [(d.name, t) for d, c, t in divert_problems(config) if c == "exclusive-shadows"]
        for name, text in shadows:
            owner = next(d for d in active if d.name == name)
            scanned = [d.name for d in active if d.address == owner.address and not d.exclusive]
            assert (", and non-exclusive divert(s) " + ", ".join(scanned) + " never fire" in text) is bool(scanned)
        reported = list(_shadowing(Context(config, all_rules()), active))
        assert [d.message.split("'")[1] for d in reported] == [
            d.name for d in active if d.exclusive and d.filter is None
            and any(o.address == d.address and not o.exclusive for o in active)]
