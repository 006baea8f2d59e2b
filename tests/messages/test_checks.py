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
