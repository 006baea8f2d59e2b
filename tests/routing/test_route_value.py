"""``Router.route_value``, the engine's untraced answer for CLIENT_ID and USER_NAME routers, key-filter
included (what ``serve`` calls per connection, and what ``route`` runs when it does not trace),
gives what the traced ``route`` gives, trace aside; and a pool's ready targets are worked out with it."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from artemis_routing_cli.routing.keys import INTERNAL_CLIENT_ID_PREFIX, Connection
from artemis_routing_cli.routing.targets import TargetState

from .test_engine import STATIC3, router

POLICIES = ['<policy name="CONSISTENT_HASH"/>',
            '<policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="3"/></policy>',
            '<policy name="FIRST_ELEMENT"/>', '<policy name="ROUND_ROBIN"/>', '<policy name="LEAST_CONNECTIONS"/>']
STATE = TargetState(node_ids={"c1": "n-one", "c2": "n-two", "c3": "n-three"}, connections={"c1": 5, "c2": 1})


def keys() -> list[str | None]:
    rng = random.Random(21)
    made: list[str | None] = [None, "", "NULL", INTERNAL_CLIENT_ID_PREFIX + "x", "h\u00e9llo", "\U0001F600"]
    made += ["".join(rng.choice("abcXYZ019-_.\u00e9") for _ in range(rng.randrange(1, 24))) for _ in range(300)]
    return made


@pytest.mark.parametrize("key_type", ["CLIENT_ID", "USER_NAME"])
@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.split('"')[1])
@pytest.mark.parametrize("extra", ["", "<local-target-filter>a.*</local-target-filter>",
                                   "<cache><persisted>false</persisted><timeout>0</timeout></cache>",
                                   "<key-filter>^.{2}</key-filter>", "<key-filter>[0-9]{2}</key-filter>",
                                   "<key-filter>x*</key-filter>", "<key-filter> </key-filter>",
                                   "<key-filter>^.{3}</key-filter><local-target-filter>a.*</local-target-filter>"],
                         ids=["plain", "local-target-filter", "cache", "key-filter", "key-filter-unmatched",
                              "key-filter-empty-match", "key-filter-blank", "key-filter-and-local-target-filter"])
def test_route_value_answers_as_the_traced_route(key_type: str, policy: str, extra: str) -> None:
    body = f"<key-type>{key_type}</key-type>{extra}{policy}{STATIC3}"
    traced, untraced, untraced_route = (router(body, STATE, seed=7) for _ in range(3))  # the same start (seed)
    untraced.tracing = untraced_route.tracing = False
    for i, key in enumerate(keys()):
        other = f"other-{i}"
        conn = Connection(client_id=key, username=other) if key_type == "CLIENT_ID" else \
            Connection(client_id=other if i % 3 else INTERNAL_CLIENT_ID_PREFIX + other, username=key)
        expected = replace(traced.route(conn), trace=())
        raw = conn.client_id if key_type == "CLIENT_ID" else conn.username
        assert untraced.route_value(conn.client_id, raw) == expected, key
        assert untraced_route.route(conn) == expected, key  # route() untraced: route_value


def test_route_value_follows_a_key_filter_set_through_management() -> None:
    r = router(f"<key-type>CLIENT_ID</key-type><key-filter>^.{{2}}</key-filter>"
               f'<policy name="CONSISTENT_HASH"/>{STATIC3}', STATE)
    r.tracing = False
    assert r.route_value("abcdef", "abcdef").key == "ab"
    r.key_filter = "^.{4}"
    assert r.route_value("abcdef", "abcdef").key == "abcd"
    r.key_filter = None
    assert r.route_value("abcdef", "abcdef").key == "abcdef"


def test_a_pool_knows_its_ready_targets_and_quorum_when_made() -> None:
    r = router(f'<key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>{STATIC3}',
               TargetState(node_ids={"c1": "n1", "c2": "n2", "c3": "n3"}, down=frozenset({"c2"})))
    pool = r.pool
    assert pool is not None
    assert [t.name for t in pool.ready_targets] == ["c1", "c3"] == [t.name for t in pool.ready()]
    assert pool.ready_count == 2 and not pool.below_quorum()
    strict = replace(pool, quorum_size=3)  # a replaced pool works them out again
    assert strict.ready_targets == () and strict.ready() == [] and strict.ready_count == 2 and strict.below_quorum()
    assert strict == replace(strict)
