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
