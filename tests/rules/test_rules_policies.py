"""AR301-AR306, AR314, AR317: the router's <policy>."""

from __future__ import annotations

import pytest

from artemis_routing_cli.diagnostics import Severity

from .helpers import lint_fragment, only

POOL = """<pool><static-connectors><connector-ref>b1</connector-ref></static-connectors></pool>"""
CONNECTORS = '<connectors><connector name="b1">tcp://broker1:61616</connector></connectors>'


def router(*children: str) -> str:
    body = "\n    ".join(children)
    return f"""{CONNECTORS}
<connection-routers>
  <connection-router name="r1">
    {body}
  </connection-router>
</connection-routers>"""


def modulo(*props: tuple[str, str]) -> str:
    inner = "".join(f'<property key="{k}" value="{v}"/>' for k, v in props)
    return f'<policy name="CONSISTENT_HASH_MODULO">{inner}</policy>'


LTF = "<local-target-filter>^0$</local-target-filter>"


@pytest.mark.parametrize(("name", "hint"), [("round_robin", "ROUND_ROBIN"), (" ROUND_ROBIN", "ROUND_ROBIN"),
                                            ("RANDOM", None)])
def test_ar301_unknown_policy(tmp_path, name, hint) -> None:
    diags = only(lint_fragment(tmp_path, router(f'<policy name="{name}"/>', POOL)), "AR301")
    assert len(diags) == 1 and diags[0].severity is Severity.ERROR and diags[0].line == 5
    assert (f"did you mean {hint}" in diags[0].message) == (hint is not None)


@pytest.mark.parametrize("value", ["3.0", " 3", "3 ", "three", "", "99999999999"])
def test_ar302_modulo_that_integer_parseint_rejects(tmp_path, value) -> None:
    diags = only(lint_fragment(tmp_path, router(LTF, modulo(("MODULO", value)))), "AR302")
    assert [d.severity for d in diags] == [Severity.ERROR]
    assert "not an integer" in diags[0].message


@pytest.mark.parametrize("value", ["3", "+3", "\u0663"])  # Java's parseInt takes any Unicode decimal digit
def test_ar302_quiet_for_what_java_parses(tmp_path, value) -> None:
    assert only(lint_fragment(tmp_path, router(LTF, modulo(("MODULO", value)))), "AR302") == []


@pytest.mark.parametrize("value", ["0", "-2"])
def test_ar302_modulo_zero_or_less_is_a_warning(tmp_path, value) -> None:
    diags = only(lint_fragment(tmp_path, router(LTF, modulo(("MODULO", value)))), "AR302")
    assert [d.severity for d in diags] == [Severity.WARNING]
    assert "keeps every key" in diags[0].message


def test_ar303_alone_is_an_error_and_replaces_ar302(tmp_path) -> None:
    diags = lint_fragment(tmp_path, router(LTF, modulo(("Modulo", "3"))))
    assert only(diags, "AR302") == []
    [d] = only(diags, "AR303")
    assert d.severity is Severity.ERROR and "manual" in d.message and "refuses to start" in d.message


def test_ar303_next_to_modulo_is_a_warning(tmp_path) -> None:
    diags = lint_fragment(tmp_path, router(LTF, modulo(("MODULO", "3"), ("modulo", "4"))))
    assert [d.severity for d in only(diags, "AR303")] == [Severity.WARNING]
    assert only(diags, "AR302") == []


def test_ar304_and_no_ar305_for_modulo_with_pool(tmp_path) -> None:
    diags = lint_fragment(tmp_path, router(LTF, modulo(("MODULO", "3")), POOL))
    assert len(only(diags, "AR304")) == 1 and only(diags, "AR305") == []
    assert "REFUSED_UNAVAILABLE" in only(diags, "AR304")[0].message


@pytest.mark.parametrize(("children", "fires"), [
    ((LTF, modulo(("MODULO", "3"))), False),  # sharding
    ((modulo(("MODULO", "3")),), True),  # no local filter: refuses everything
    ((LTF,), False),  # partitioning
    (("<key-type>CLIENT_ID</key-type>",), True),  # nothing at all
    ((POOL,), True),  # pool without policy
    (('<policy name="CONSISTENT_HASH"/>', LTF), True),  # policy without pool
    (('<policy name="CONSISTENT_HASH"/>', POOL), False),
])
def test_ar305_policy_and_pool_pairing(tmp_path, children, fires) -> None:
    diags = only(lint_fragment(tmp_path, router(*children)), "AR305")
    assert bool(diags) == fires
    if fires:
        assert "REFUSED_USE_ANOTHER" in diags[0].message


def test_ar306_every_replaced_policy_names_the_winner(tmp_path) -> None:
    frag = router('<policy name="ROUND_ROBIN"/>', '<policy name="FIRST_ELEMENT"/>', POOL,
                  '<policy name="LEAST_CONNECTIONS"/>')
    diags = only(lint_fragment(tmp_path, frag), "AR306")
    assert [d.line for d in diags] == [5, 6]
    assert all("the broker uses the last <policy>: LEAST_CONNECTIONS (line 8)" in d.message for d in diags)


def test_ar306_only_the_last_policy_properties_count(tmp_path) -> None:
    frag = router(LTF, modulo(("MODULO", "3")), '<policy name="CONSISTENT_HASH_MODULO"/>')
    diags = lint_fragment(tmp_path, frag)
    assert len(only(diags, "AR306")) == 1 and len(only(diags, "AR302")) == 1


@pytest.mark.parametrize(("value", "fires"), [("10", False), ("-1", False), ("ten", True), ("1e3", True)])
def test_ar314_threshold(tmp_path, value, fires) -> None:
    frag = router(f'<policy name="LEAST_CONNECTIONS"><property key="CONNECTION_COUNT_THRESHOLD" value="{value}"/>'
                  "</policy>", POOL)
    assert bool(only(lint_fragment(tmp_path, frag), "AR314")) == fires


def test_ar317_property_the_policy_does_not_read(tmp_path) -> None:
    frag = router('<policy name="LEAST_CONNECTIONS"><property key="connection_count_threshold" value="5"/>'
                  "</policy>", POOL)
    [d] = only(lint_fragment(tmp_path, frag), "AR317")
    assert "'CONNECTION_COUNT_THRESHOLD'" in d.message


def _random_router(rng, n: int) -> str:
    names = ["CONSISTENT_HASH", "FIRST_ELEMENT", "ROUND_ROBIN", "LEAST_CONNECTIONS", "CONSISTENT_HASH_MODULO",
             "NO_SUCH_POLICY"]
    keys = ["MODULO", "modulo", "CONNECTION_COUNT_THRESHOLD", "OTHER"]
    parts = []
    for _ in range(rng.choice([0, 1, 1, 1, 2])):
        props = "".join(f'<property key="{k}" value="{rng.choice(["3", "x", "-1"])}"/>'
                        for k in rng.sample(keys, rng.choice([0, 0, 1, 2])))
        parts.append(f'<policy name="{rng.choice(names)}">{props}</policy>')
    if rng.random() < 0.3:
        parts.append("<local-target-filter>^A</local-target-filter>")
    if rng.random() < 0.8:
        parts.append("<pool><static-connectors><connector-ref>c1</connector-ref></static-connectors></pool>")
    return f'<connection-router name="r{n}"><key-type>CLIENT_ID</key-type>{"".join(parts)}</connection-router>'


@pytest.mark.parametrize("seed", range(8))
def test_the_quick_answer_skips_only_routers_the_checks_say_nothing_about(tmp_path, seed) -> None:
    """policies.check skips a router when _quiet says the family has nothing to say about it: for random
    routers, each one skipped gets no finding from the family's full checks."""
    import random

    from artemis_routing_cli.config import load
    from artemis_routing_cli.rules import all_rules, policies
    from artemis_routing_cli.rules.base import Context

    from .helpers import wrap

    rng = random.Random(seed)
    routers = "".join(_random_router(rng, n) for n in range(40))
    path = tmp_path / "broker.xml"
    path.write_text(wrap('<connectors><connector name="c1">tcp://h:61616</connector></connectors>'
                         f"<connection-routers>{routers}</connection-routers>"), encoding="utf-8")
    config = load(str(path))
    ctx = Context(config, all_rules())
    skipped = [r for r in config.connection_routers if policies._quiet(r)]
    assert skipped and len(skipped) < len(config.connection_routers)  # both ways taken
    for router in skipped:
        assert list(policies._router_findings(ctx, router)) == [], router.name
