"""The vectorised batch path equals the scalar engine, key for key (routing/batch.py)."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from artemis_routing_cli.config import load_text  # noqa: E402
from artemis_routing_cli.routing.batch import (  # noqa: E402
    BatchResult,
    connection_from_record,
    fnv1a32_batch,
    modulo_values,
    route_batch,
    vectorisable,
)
from artemis_routing_cli.routing.fnv import fnv1a32  # noqa: E402
from artemis_routing_cli.routing.keys import Connection  # noqa: E402
from artemis_routing_cli.routing.router import Router  # noqa: E402
from artemis_routing_cli.routing.targets import TargetState  # noqa: E402
from tests.conftest import broker_xml  # noqa: E402

CONNECTORS = "<connectors>" + "".join(
    f'<connector name="c{i}">tcp://h{i}:61616</connector>' for i in range(1, 6)) + "</connectors>"

# Mixed unicode: ASCII, Latin-1, CJK, emoji (two UTF-16 units), lone surrogates (Java strings hold them).
ALPHABET = st.one_of(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    st.characters(min_codepoint=0xA0, max_codepoint=0x2FFF),
    st.characters(min_codepoint=0x1F600, max_codepoint=0x1F64F),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, categories=["Cs"]),
    st.sampled_from("FOO0123456789"),
)
KEYS = st.lists(st.text(ALPHABET, max_size=12), max_size=60)


def make_router(*, key_type: str = "CLIENT_ID", key_filter: str | None = None, ltf: str | None = None,
                policy: str | None = "CONSISTENT_HASH", modulo: str | None = None, targets: int = 3,
                local_enabled: bool = False, cache: bool = False, state: TargetState | None = None,
                seed: int | None = 7, pool: bool = True) -> Router:
    body = f"<key-type>{key_type}</key-type>"
    if key_filter is not None:
        body += f"<key-filter>{key_filter}</key-filter>"
    if ltf is not None:
        body += f"<local-target-filter>{ltf}</local-target-filter>"
    if cache:
        body += "<cache><timeout>0</timeout></cache>"
    if policy is not None:
        prop = f'<property key="MODULO" value="{modulo}"/>' if modulo is not None else ""
        body += f'<policy name="{policy}">{prop}</policy>'
    if pool:
        refs = "".join(f"<connector-ref>c{i}</connector-ref>" for i in range(1, targets + 1))
        local = "<local-target-enabled>true</local-target-enabled>" if local_enabled else ""
        body += f"<pool>{local}<static-connectors>{refs}</static-connectors></pool>"
    cfg = load_text(broker_xml(CONNECTORS + '<connection-routers><connection-router name="r">' + body
                               + "</connection-router></connection-routers>"))
    router = Router.from_config(cfg, cfg.connection_routers[0], state, seed=seed)
    router.sni_encoding = "raw"  # the keys here are any text: SNI names as a raw-bytes client sends them
    return router


def scalar(router: Router, keys: list, management: bool = False) -> list[tuple]:
    out = []
    for k in keys:
        if management:
            res = router.route_key(k)
        else:
            conn = k if isinstance(k, Connection) else connection_from_record(router.key_type, {"key": k},
                                                                                 router.sni_encoding)
            res = router.route(conn)
        t = res.target
        out.append((res.key, res.key_value, res.status, res.target_label, t.node_id if t else None, res.local))
    return out


def rows(res: BatchResult) -> list[tuple]:
    return [(res.key[i], res.key_value[i], res.status[i], res.target[i], res.node_id[i], bool(res.local[i]))
            for i in range(len(res))]


@pytest.mark.parametrize(("text", "expected"), [
    ("a", -468965076), ("test", -1345293851), ("", -2128831035), ("FOO1", -1918712142),
    ("h\u00e9llo", -236604065), ("\U0001F600x", -1621575104),
])
def test_fnv_vectors(text: str, expected: int) -> None:
    assert fnv1a32_batch([text]).tolist() == [expected]
    # the same vectors inside a batch of mixed lengths and scripts
    batch = ["", "longer key \u00e9\U0001F600", text, "a"]
    assert int(fnv1a32_batch(batch)[2]) == expected


def test_fnv_empty_batch() -> None:
    assert fnv1a32_batch([]).tolist() == []


@settings(max_examples=200, deadline=None)
@given(KEYS)
def test_fnv_batch_equals_scalar(keys: list[str]) -> None:
    assert fnv1a32_batch(keys).tolist() == [fnv1a32(k) for k in keys]


@settings(max_examples=100, deadline=None)
@given(KEYS, st.integers(1, 1000))
def test_modulo_in_range(keys: list[str], modulo: int) -> None:
    values = modulo_values(fnv1a32_batch(keys), modulo)
    assert ((values >= 0) & (values < modulo)).all()
    assert values.tolist() == [(fnv1a32(k) & 0x7FFFFFFF) % modulo for k in keys]


ROUTER_SHAPES = st.fixed_dictionaries({
    "key_type": st.sampled_from(["CLIENT_ID", "USER_NAME", "SNI_HOST", "ROLE_NAME"]),
    "key_filter": st.sampled_from([None, "^.{3}", "[0-9]+", "\\p{L}+", "^Z", "  "]),
    "ltf": st.sampled_from([None, "^FOO.*", "^0$", "NULL", "1|2", "\\p{So}.*"]),
    "policy": st.sampled_from([None, "FIRST_ELEMENT", "CONSISTENT_HASH", "CONSISTENT_HASH_MODULO", "NOPE"]),
    "modulo": st.sampled_from([None, "3", "1", "0", "abc"]),
    "targets": st.integers(1, 5),
    "local_enabled": st.booleans(),
    "cache": st.booleans(),
    "pool": st.booleans(),
})


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ROUTER_SHAPES, KEYS, st.data())
def test_vectorised_equals_scalar_for_every_deterministic_shape(shape: dict, keys: list[str], data) -> None:
    down = data.draw(st.sets(st.sampled_from(["c1", "c2", "c3", "c4", "c5", "local"]), max_size=3))
    ids = data.draw(st.dictionaries(st.sampled_from(["c1", "c2", "c3", "c4", "c5", "local"]),
                                    st.text(ALPHABET, max_size=8), max_size=3))
    state = TargetState(node_ids=ids, down=frozenset(down))
    keys = keys + ["FOO1", "NULL", "", "$.artemis.internal.router.client.x"]
    expected = scalar(make_router(**shape, state=state), keys)
    r = make_router(**shape, state=state)
    # The one deterministic shape that must stay scalar: a cache with two ready targets sharing a
    # node id (a cache hit returns the first of them, the ring the last).
    shared_ids = len(set(ids.values())) < len(ids)
    fits = vectorisable(r)  # before routing: routing fills the cache
    assert fits or (shape["cache"] and shared_ids)
    res = route_batch(r, keys)
    assert res.vectorised == fits
    assert rows(res) == expected


@settings(max_examples=60, deadline=None)
@given(ROUTER_SHAPES, KEYS)
def test_management_keys_as_given(shape: dict, keys: list[str]) -> None:
    keys = keys + ["NULL", "FOO1"]
    assert rows(route_batch(make_router(**shape), keys, management=True)) == scalar(
        make_router(**shape), keys, management=True)


@pytest.mark.parametrize("policy", ["ROUND_ROBIN", "LEAST_CONNECTIONS"])
def test_order_dependent_policies_use_the_engine_loop(policy: str) -> None:
    keys = [f"k{i}" for i in range(50)] + ["FOO", "k3"]
    state = TargetState(connections={"c1": 5, "c2": 5, "c3": 9})
    res = route_batch(make_router(policy=policy, ltf="^FOO$", state=state, seed=11), keys)
    assert not res.vectorised
    assert rows(res) == scalar(make_router(policy=policy, ltf="^FOO$", state=state, seed=11), keys)
    assert len(set(res.target[:50])) == (2 if policy == "LEAST_CONNECTIONS" else 3)


def test_connections_with_every_key_type() -> None:
    conns = [
        Connection(client_id="FOO1", username="alice", sni_host="a.example", remote_address="/10.0.0.1:5",
                   roles=("guest", "admin-eu")),
        Connection(client_id="$.artemis.internal.router.client.r", username="bob"),
        Connection(remote_address="/0:0:0:0:0:0:0:1:9", roles=("x",)),
        Connection(),
    ] * 3
    for key_type in ("CLIENT_ID", "USER_NAME", "SNI_HOST", "SOURCE_IP", "ROLE_NAME"):
        for key_filter in (None, "^.{3}", "admin-.."):
            shape = {"key_type": key_type, "key_filter": key_filter, "ltf": "^10.*", "local_enabled": True}
            assert rows(route_batch(make_router(**shape), conns)) == scalar(make_router(**shape), conns)


def test_source_ip_and_roles_as_key_column_strings() -> None:
    for key_type, keys in (("SOURCE_IP", ["10.0.0.1", "10.0.0.1:5000", "[::1]:7", "/10.1.1.1:9", "", None]),
                           ("ROLE_NAME", ["a,b", " admin , x", "", None, ","])):
        res = route_batch(make_router(key_type=key_type), keys)
        assert rows(res) == scalar(make_router(key_type=key_type), keys)


def test_cache_is_left_as_the_scalar_loop_leaves_it() -> None:
    keys = ["a", "b", "a", "c", "FOO"]
    r1, r2 = make_router(cache=True, ltf="FOO"), make_router(cache=True, ltf="FOO")
    route_batch(r1, keys)
    scalar(r2, keys)
    assert r1.cache is not None and r2.cache is not None
    assert r1.cache.snapshot() == r2.cache.snapshot()
    assert vectorisable(r1) is False  # now holds entries: later batches use the engine loop


def test_duplicate_node_ids_with_a_cache_use_the_engine_loop() -> None:
    state = TargetState(node_ids={"c1": "same", "c2": "same"})
    r = make_router(cache=True, state=state)
    assert not vectorisable(r)
    keys = [f"k{i}" for i in range(30)] * 2
    assert rows(route_batch(r, keys)) == scalar(make_router(cache=True, state=state), keys)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(ALPHABET, max_size=10), min_size=1, max_size=200), st.integers(1, 5))
def test_removing_a_target_moves_only_its_keys(keys: list[str], gone: int) -> None:
    ids = {f"c{i}": f"node-{i}" for i in range(1, 6)}
    before = route_batch(make_router(targets=5, state=TargetState(node_ids=ids)), keys)
    after = route_batch(make_router(targets=5, state=TargetState(node_ids=ids, down=frozenset({f"c{gone}"}))),
                        keys)
    moved = before.target != after.target
    assert set(before.target[moved].tolist()) <= {f"c{gone}"}
    assert f"c{gone}" not in set(after.target.tolist())


def test_large_batch_mixed_unicode_equals_scalar() -> None:
    rng = np.random.default_rng(5)
    pool = ["a", "é", "中", "\U0001F600", "\ud83d", "Z", "0", "1"]
    keys = ["".join(rng.choice(pool, size=int(n))) for n in rng.integers(0, 20, size=3000)]
    shape = {"ltf": "^0.*", "local_enabled": True, "targets": 5, "key_filter": "[^Z]+"}
    assert rows(route_batch(make_router(**shape), keys)) == scalar(make_router(**shape), keys)


def test_a_no_break_space_key_filter_is_a_filter_in_the_batch_too() -> None:
    """String.isBlank(): U+00A0 and U+0085 are real filters (find a NBSP), U+2003 is no filter."""
    keys = ["a\u00a0b", "ab", "\x85"]
    nbsp = route_batch(make_router(key_filter="\u00a0"), keys)
    assert list(nbsp.key) == ["\u00a0", "NULL", "NULL"]
    assert list(route_batch(make_router(key_filter="\x85"), keys).key) == ["NULL", "NULL", "\x85"]
    assert list(route_batch(make_router(key_filter="\u2003"), keys).key) == keys


@settings(max_examples=100, deadline=None)
@given(KEYS, st.integers(1, 1000))
def test_signed_modulo_before_2_23(keys: list[str], modulo: int) -> None:
    """Before 2.23 the remainder is Java's on the signed hash: the sign of the hash, below modulo."""
    values = modulo_values(fnv1a32_batch(keys), modulo, signed=True).tolist()
    for k, v in zip(keys, values, strict=True):
        h = fnv1a32(k)
        assert v == (-(-h % modulo) if h < 0 else h % modulo)
        assert abs(v) < modulo and (v <= 0 if h < 0 else v >= 0)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ROUTER_SHAPES, KEYS, st.sampled_from([(2, 22), (2, 23), (2, 41)]))
def test_vectorised_equals_scalar_across_the_sign_rule(shape: dict, keys: list[str], version) -> None:
    keys = keys + ["FOO1", "a", "test", "NULL"]  # fnv("a") and fnv("test") are negative
    expected_router = make_router(**shape)
    expected_router.broker_version = version
    r = make_router(**shape)
    r.broker_version = version
    assert rows(route_batch(r, keys)) == scalar(expected_router, keys)


def test_the_sign_rule_changes_negative_hashes_only() -> None:
    old, new = make_router(policy="CONSISTENT_HASH_MODULO", modulo="3"), \
        make_router(policy="CONSISTENT_HASH_MODULO", modulo="3")
    old.broker_version = (2, 22)
    # fnv("a") = -468965076: Java's -468965076 % 3 = 0; fnv("test") = -1345293851 % 3 = -2
    assert [old.route_key(k).key_value for k in ("a", "test")] == ["0", "-2"]
    assert [new.route_key(k).key_value for k in ("a", "test")] == [str((-468965076 & 0x7FFFFFFF) % 3),
                                                                   str((-1345293851 & 0x7FFFFFFF) % 3)]
