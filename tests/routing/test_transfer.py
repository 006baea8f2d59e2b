"""routing.transfer: the one before → after count (diff's churn and analyze's what-if)."""

from __future__ import annotations

from artemis_routing_cli.routing.transfer import Answer, count_transfer


def test_counts_every_key_and_names_moves() -> None:
    b1, b2 = Answer("OK", "broker1", "n1"), Answer("OK", "broker2", "n2")
    local = Answer("OK", "local", "n0", local=True)
    refused = Answer("REFUSED_UNAVAILABLE")
    null_local = Answer("OK", "local", "n0", local=True, null=True)
    t = count_transfer([(b1, b1, 5), (b1, b2, 3), (b2, local, 2), (local, b1, 1), (b2, refused, 4),
                        (refused, b1, 6), (b1, null_local, 7)])
    assert t.keys == 28 and t.moved == 23 and round(t.churn, 4) == round(23 / 28, 4)
    assert t.matrix[("broker1", "broker1")] == 5 and t.matrix[("broker2", "REFUSED_UNAVAILABLE")] == 4
    assert sum(t.matrix.values()) == t.keys
    assert (t.became_local, t.became_remote, t.became_refused, t.became_routed, t.became_null) == (9, 1, 4, 6, 7)
    assert t.flows()[0] == ("REFUSED_UNAVAILABLE", "broker1", 6)


def test_same_connector_name_with_another_node_id_moves() -> None:
    t = count_transfer([(Answer("OK", "broker1", "n1"), Answer("OK", "broker1", "n9"), 4)])
    assert t.moved == 4 and t.matrix[("broker1", "broker1")] == 4 and t.node_ids == {"broker1": {"n1", "n9"}}
