"""``Router.pick``, the policy's choice without a :class:`RouteResult` (what ``serve``'s fast path asks
for each connection), answers as ``Router.route_value`` does: whenever it picks, ``picked(raw, target)``
equals route_value's answer, and whenever it declines (``UNPICKED``) it has changed nothing, so that
route_value still gives what it would have given. Randomised keys against every policy, with and
without a local-target-filter, a cache, a key-filter, a local target, targets down, a quorum not met,
no pool and no policy; the stateful policies (ROUND_ROBIN, LEAST_CONNECTIONS) through a long sequence,
two routers from the same seed side by side."""

from __future__ import annotations

import random

import pytest

from artemis_routing_cli.routing.keys import INTERNAL_CLIENT_ID_PREFIX, NULL_KEY
from artemis_routing_cli.routing.router import UNPICKED, Router
from artemis_routing_cli.routing.targets import TargetState

from .test_engine import router

POLICIES = ['<policy name="CONSISTENT_HASH"/>',
            '<policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="3"/></policy>',
            '<policy name="FIRST_ELEMENT"/>', '<policy name="ROUND_ROBIN"/>', '<policy name="LEAST_CONNECTIONS"/>',
            '<policy name="LEAST_CONNECTIONS"><property key="CONNECTION_COUNT_THRESHOLD" value="3"/></policy>',
            ""]
EXTRAS = {
    "plain": "",
    "local-target-filter": "<local-target-filter>a.*</local-target-filter>",
    "cache": "<cache><persisted>false</persisted><timeout>0</timeout></cache>",
    "key-filter": "<key-filter>^.{2}</key-filter>",
}


def pool(refs: str, *, local: bool = False, quorum: int = 1) -> str:
    return (f"<pool><quorum-size>{quorum}</quorum-size><local-target-enabled>{str(local).lower()}"
            f"</local-target-enabled><static-connectors>{refs}</static-connectors></pool>")


REFS3 = "<connector-ref>c1</connector-ref><connector-ref>c2</connector-ref><connector-ref>c3</connector-ref>"
POOLS = {
    "three": pool(REFS3),
    "one": pool("<connector-ref>c2</connector-ref>"),
    "local-too": pool(REFS3, local=True),
    "one-down": pool(REFS3),  # with c2 down (STATES)
    "below-quorum": pool(REFS3, quorum=3),  # with c2 down
    "all-down": pool("<connector-ref>c2</connector-ref>"),  # with c2 down
    "no-pool": "",
}
UP = TargetState(node_ids={"c1": "n-one", "c2": "n-two", "c3": "n-three"}, connections={"c1": 5, "c2": 1, "c3": 1})
DOWN = TargetState(node_ids=UP.node_ids, connections=UP.connections, down=frozenset({"c2"}))
STATES = {"one-down": DOWN, "below-quorum": DOWN, "all-down": DOWN}


def keys(seed: int) -> list[str | None]:
    rng = random.Random(seed)
    made: list[str | None] = [None, "", NULL_KEY, INTERNAL_CLIENT_ID_PREFIX, INTERNAL_CLIENT_ID_PREFIX + "x",
                              INTERNAL_CLIENT_ID_PREFIX[:-1], "$" + INTERNAL_CLIENT_ID_PREFIX, "h\u00e9llo",
                              "\U0001F600", "a", "ab", "x" * 200]
    alphabet = "abcXYZ019-_.$\u00e9\u4e2d\U0001F600 "
    made += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40))) for _ in range(200)]
    made += [INTERNAL_CLIENT_ID_PREFIX + str(rng.randrange(1000)) for _ in range(10)]
    rng.shuffle(made)
    return made


def both(body: str, state: TargetState) -> tuple[Router, Router]:
    """Two routers of ``body`` from the same start (seed): one asked through pick, one through route_value."""
    made = router(body, state, seed=11), router(body, state, seed=11)
    for r in made:
        r.tracing = False
    return made


@pytest.mark.parametrize("key_type", ["CLIENT_ID", "USER_NAME"])
@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.split('"')[1] + ("-threshold" if "THRESHOLD" in p else "")
                         if p else "no-policy")
@pytest.mark.parametrize("extra", list(EXTRAS))
@pytest.mark.parametrize("pool_name", list(POOLS))
def test_pick_answers_as_route_value(key_type: str, policy: str, extra: str, pool_name: str) -> None:
    body = f"<key-type>{key_type}</key-type>{EXTRAS[extra]}{policy}{POOLS[pool_name]}"
    picking, general = both(body, STATES.get(pool_name, UP))
    rng = random.Random(f"{key_type}{policy}{extra}{pool_name}")
    picks = 0
    for _round in range(3):  # the stateful policies move on: the same keys again meet other positions
        for i, key in enumerate(keys(rng.randrange(1 << 30))):
            other = f"other-{i}" if i % 4 else INTERNAL_CLIENT_ID_PREFIX + str(i)
            client_id, raw = (key, key) if key_type == "CLIENT_ID" else (other, key)
            expected = general.route_value(client_id, raw)
            target = picking.pick(client_id, raw)
            if target is UNPICKED:
                assert picking.route_value(client_id, raw) == expected, key
                continue
            picks += 1
            assert raw is not None
            got = picking.picked(raw, target)
            assert got == expected, key
            assert picking.pool is not None  # the pool's own target object: serve keeps answers by identity
            assert target is None or any(target is t for t in picking.pool.targets)
    usual = (extra == "plain" and policy and "MODULO" not in policy and pool_name != "no-pool")
    assert (picks > 0) == bool(usual)  # it picks where it should: the fast path is taken


def test_pick_declines_without_moving_a_round_robin() -> None:
    body = f'<key-type>CLIENT_ID</key-type><policy name="ROUND_ROBIN"/>{POOLS["three"]}'
    picking, general = both(body, UP)
    for client_id in ["a", INTERNAL_CLIENT_ID_PREFIX + "1", "b", None, "c", INTERNAL_CLIENT_ID_PREFIX, "d"]:
        target = picking.pick(client_id, client_id)
        expected = general.route_value(client_id, client_id)
        if target is UNPICKED:
            assert client_id is None or client_id.startswith(INTERNAL_CLIENT_ID_PREFIX)
            assert picking.route_value(client_id, client_id) == expected
        else:
            assert client_id is not None and picking.picked(client_id, target) == expected


def test_pick_reads_the_router_each_time() -> None:
    """Management and the pool monitor change a router in place: pick follows at once."""
    from artemis_routing_cli.jregex.javaregex import compile_java

    picking, general = both(f'<key-type>CLIENT_ID</key-type><policy name="CONSISTENT_HASH"/>{POOLS["three"]}', UP)
    assert picking.pick("abc", "abc") is not UNPICKED
    for r in (picking, general):
        r.local_target_filter = compile_java("ab.*")
    assert picking.pick("abc", "abc") is UNPICKED
    for r in (picking, general):
        r.local_target_filter = None
        r.pool = router(f'<key-type>CLIENT_ID</key-type><policy name="CONSISTENT_HASH"/>{POOLS["three"]}',
                        DOWN).pool
    for key in keys(5):
        target = picking.pick(key, key)
        if target is not UNPICKED:
            assert key is not None
            assert picking.picked(key, target) == general.route_value(key, key)
            assert target is None or target.name != "c2"
