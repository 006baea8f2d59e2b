"""Message flow through diverts and cluster connections."""

from __future__ import annotations

import json

from artemis_routing_cli.messages import Message, parse_typed_literal
from artemis_routing_cli.messages.flow import simulate_message

from .conftest import cluster_xml, divert_xml

MANUAL = [
    divert_xml("prices-divert", "priceUpdates", "priceForwarding", exclusive=True, filter="office='New York'",
               transformer="org.apache.activemq.artemis.jms.example.AddForwardingTimeTransformer"),
    divert_xml("order-divert", "orders", "spyTopic"),
    divert_xml("shipping-divert", "shipping", "dallas, chicago, denver"),
]


def addresses(result):
    return [(d.address, d.routing_type, d.via) for d in result.deliveries]


def test_manual_exclusive_divert_matching(broker):
    result = simulate_message(broker(MANUAL), "priceUpdates", Message(properties={"office": "New York"}))
    assert not result.original_delivered
    assert addresses(result) == [("priceForwarding", None, ("prices-divert",))]
    decision = result.decisions[0]
    assert (decision.divert, decision.verdict, decision.exclusive) == ("prices-divert", "true", True)
    assert decision.transformer.endswith("AddForwardingTimeTransformer")
    assert any("transformer" in w for w in result.warnings)


def test_manual_exclusive_divert_not_matching(broker):
    result = simulate_message(broker(MANUAL), "priceUpdates", Message(properties={"office": "London"}))
    assert result.original_delivered
    assert addresses(result) == [("priceUpdates", None, ())]
    assert result.decisions[0].verdict == "false"


def test_manual_exclusive_divert_unknown(broker):
    result = simulate_message(broker(MANUAL), "priceUpdates", Message())
    assert result.original_delivered
    assert result.decisions[0].verdict == "unknown"


def test_manual_non_exclusive_divert(broker):
    result = simulate_message(broker(MANUAL), "orders", Message(), routing_type="ANYCAST")
    assert result.original_delivered
    assert addresses(result) == [("orders", "ANYCAST", ()), ("spyTopic", None, ("order-divert",))]


def test_manual_composite_divert_fans_out(broker):
    result = simulate_message(broker(MANUAL), "shipping", Message())
    assert addresses(result) == [
        ("shipping", None, ()),
        ("dallas", None, ("shipping-divert",)),
        ("chicago", None, ("shipping-divert",)),
        ("denver", None, ("shipping-divert",)),
    ]
    assert result.decisions[0].forwarded_to == ("dallas", "chicago", "denver")


def test_no_divert_on_address(broker):
    result = simulate_message(broker(MANUAL), "elsewhere", Message())
    assert addresses(result) == [("elsewhere", None, ())]
    assert result.decisions == []


def test_chain_and_routing_types(broker):
    config = broker([
        divert_xml("d1", "a", "b", exclusive=True, routing_type="MULTICAST"),
        divert_xml("d2", "b", "c", routing_type="PASS", filter="AMQAddress = 'b'"),
        divert_xml("d3", "c", "d", exclusive=True, routing_type="ANYCAST", filter="x > 1"),
    ])
    result = simulate_message(config, "a", Message(properties={"x": 2}), routing_type="ANYCAST")
    assert addresses(result) == [
        ("b", "MULTICAST", ("d1",)),
        ("d", "ANYCAST", ("d1", "d2", "d3")),
    ]
    assert [(d.divert, d.depth) for d in result.decisions] == [("d1", 0), ("d2", 1), ("d3", 2)]
    assert not result.original_delivered


def test_strip_clears_routing_type(broker):
    config = broker([divert_xml("d", "a", "b")])
    result = simulate_message(config, "a", Message(), routing_type="MULTICAST")
    assert addresses(result) == [("a", "MULTICAST", ()), ("b", None, ("d",))]


def test_divert_to_its_own_address_is_a_loop(broker):
    config = broker([divert_xml("self", "a", "a", exclusive=True)])
    result = simulate_message(config, "a", Message())
    assert result.deliveries == []
    assert any("loop" in w and "own address" in w for w in result.warnings)


def test_ping_pong_loop(broker):
    config = broker([divert_xml("ab", "a", "b", exclusive=True), divert_xml("ba", "b", "a", exclusive=True)])
    result = simulate_message(config, "a", Message())
    assert result.deliveries == []
    assert any("loop" in w and "a -> b -> a" in w for w in result.warnings)


def test_exclusive_and_non_exclusive_mix(broker):
    config = broker([
        divert_xml("spy", "orders", "audit"),
        divert_xml("big", "orders", "bigOrders", exclusive=True, filter="amount > 1000"),
        divert_xml("eu", "orders", "euOrders", exclusive=True, filter="region = 'EU'"),
    ])
    big_eu = simulate_message(config, "orders", Message(properties={"amount": 5000, "region": "EU"}))
    assert addresses(big_eu) == [("bigOrders", None, ("big",)), ("euOrders", None, ("eu",))]
    assert [(d.divert, d.verdict) for d in big_eu.decisions] == [("big", "true"), ("eu", "true"), ("spy", "skipped")]
    small = simulate_message(config, "orders", Message(properties={"amount": 5, "region": "US"}))
    assert addresses(small) == [("orders", None, ()), ("audit", None, ("spy",))]
    assert small.original_delivered


def test_every_divert_sees_the_original_message(broker):
    config = broker([
        divert_xml("t1", "a", "b", transformer="com.example.Rewrite", filter="kind = 'x'"),
        divert_xml("t2", "a", "c", filter="kind = 'x'"),
    ])
    result = simulate_message(config, "a", Message(properties={"kind": "x"}))
    assert [d.address for d in result.deliveries] == ["a", "b", "c"]


def test_shared_routing_name_takes_turns(broker):
    config = broker([
        divert_xml("one", "a", "b", routing_name="same"),
        divert_xml("two", "a", "c", routing_name="same"),
    ])
    result = simulate_message(config, "a", Message())
    assert [d.address for d in result.deliveries] == ["a", "b"]
    assert result.decisions[1].verdict == "skipped"
    assert any("share routing-name" in w for w in result.warnings)


def test_unsupported_and_error_filters(broker):
    config = broker([
        divert_xml("body", "a", "b", filter="XPATH '//x'"),
        divert_xml("oops", "a", "c", filter="n * 2 > 1"),
    ])
    result = simulate_message(config, "a", Message(properties={"n": "text"}))
    assert [d.verdict for d in result.decisions] == ["unsupported", "false"]
    assert "evaluation error" in result.decisions[1].reason
    assert [d.address for d in result.deliveries] == ["a"]


def test_cluster_connections_per_delivery(broker):
    config = broker(
        [divert_xml("d", "europe.orders", "asia.orders")],
        [cluster_xml("eu", "europe"), cluster_xml("eu-orders", "europe.orders", "STRICT"),
         cluster_xml("all", None, "OFF")],
    )
    result = simulate_message(config, "europe.orders", Message())
    routes = {c.address: c.connections for c in result.cluster}
    assert routes["europe.orders"] == (("eu", "ON_DEMAND"), ("eu-orders", "STRICT"), ("all", "OFF"))
    assert routes["asia.orders"] == (("all", "OFF"),)
    assert any("matches 3 cluster connections" in w for w in result.warnings)


def test_json_output_shape(broker):
    result = simulate_message(broker(MANUAL), "orders", Message(properties={"n": parse_typed_literal("5L")}))
    data = json.loads(json.dumps(result.to_json()))
    assert set(data) >= {"original_delivered", "deliveries", "decisions", "warnings", "cluster"}
    assert data["deliveries"][1] == {"address": "spyTopic", "routing_type": None, "via": ["order-divert"]}
    assert data["decisions"][0]["verdict"] == "true"
    assert data["message"]["properties"] == {"n": {"long": 5}}


def test_fan_out_is_bounded_with_a_warning(broker) -> None:
    from artemis_routing_cli.messages.flow import MAX_COPIES

    # 30 addresses in a row, each with 3 non-exclusive diverts to the next: 3**29 copies in the broker
    cfg = broker([divert_xml(f"d{a}-{k}", f"a{a}", f"a{a + 1}") for a in range(30) for k in range(3)])
    result = simulate_message(cfg, "a0", Message(address="a0"))
    assert len(result.deliveries) <= MAX_COPIES
    assert any("fans out" in w for w in result.warnings)


def test_forwarding_entries_are_trimmed_as_java_trims(broker):
    """String.trim() drops only chars <= U+0020: a no-break space pasted from a web page stays."""
    config = broker([divert_xml("d", "in", "a ,\t b,\u00a0c\u00a0,")])
    result = simulate_message(config, "in", Message())
    assert [d.address for d in result.deliveries if d.via] == ["a", "b", "\u00a0c\u00a0"]
