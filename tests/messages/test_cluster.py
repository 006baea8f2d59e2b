"""Cluster-connection address matching, as the broker's binding filter does it."""

from __future__ import annotations

import pytest

from artemis_routing_cli.messages.cluster import cluster_address_problems, cluster_matches, java_split


@pytest.mark.parametrize(
    ("cc_address", "address", "expected"),
    [
        ("", "anything", True),
        (None, "orders", True),
        ("europe", "europe", True),
        ("europe", "europe.news", True),
        ("europe", "europeans", True),  # a prefix, not a path segment
        ("europe", "news.europe", False),
        ("europe,asia", "asia.news", True),
        ("europe,asia", "africa", False),
        ("!europe", "europe.news", False),
        ("!europe", "asia", True),
        ("europe,!europe.news", "europe.news.x", False),
        ("europe,!europe.news", "europe.sport", True),
        ("!europe.news,europe", "europe.news", False),
        ("europe, asia", "asia", False),  # entries are not trimmed
        ("europe, asia", " asia", True),
        ("europe,,asia", "africa", True),  # an empty entry matches everything
        ("europe,", "africa", True),  # the broker appends its own entries, so this one is empty too
        ("a_c", "abc", True),  # LIKE wildcard
        ("a%c", "aXYZc", True),
        ("europe", "$.artemis.internal.sf.cluster.x", False),
        ("", "$.artemis.internal.sf.cluster.x", False),
        ("", "activemq.management", False),
        ("", "activemq.notifications", False),
        ("it's", "it's", False),  # the quote breaks the broker's filter
        ("!", "anything", False),
        ("ORDERS", "orders", False),
    ],
)
def test_cluster_matches(cc_address, address, expected):
    assert cluster_matches(cc_address, address) is expected


def test_java_split():
    assert java_split("a,b,") == ["a", "b"]
    assert java_split("a,,b") == ["a", "", "b"]
    assert java_split(",a") == ["", "a"]
    assert java_split(",") == []
    assert java_split("") == [""]


def test_cluster_address_problems():
    assert cluster_address_problems("europe,!europe.news") == []
    assert any("empty entry" in p for p in cluster_address_problems("europe,"))
    assert any("spaces" in p for p in cluster_address_problems("europe, asia"))
    assert any("wildcards" in p for p in cluster_address_problems("my_queue"))
    assert any("quote" in p for p in cluster_address_problems("it's"))
