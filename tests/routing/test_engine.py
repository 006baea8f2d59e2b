"""The routing engine against the broker's behaviour (artemis-facts §2)."""

from __future__ import annotations

import pytest

from artemis_routing_cli.config import load_text
from artemis_routing_cli.errors import UsageError
from artemis_routing_cli.routing.cache import RouterCache
from artemis_routing_cli.routing.fnv import fnv1a32
from artemis_routing_cli.routing.keys import (
    Connection,
    java_socket_address,
    resolve_key,
    source_address,
    source_ip_key,
)
from artemis_routing_cli.routing.policies import Ring
from artemis_routing_cli.routing.router import Router
from artemis_routing_cli.routing.targets import Target, TargetState
from tests.conftest import broker_xml

CONNECTORS = """
<connectors>
  <connector name="c1">tcp://h1:61616</connector>
  <connector name="c2">tcp://h2:61617</connector>
  <connector name="c3">tcp://h3:61618</connector>
</connectors>"""


def router(body: str, state: TargetState | None = None, *, seed: int | None = None, name: str = "r",
           clock=None) -> Router:  # noqa: ANN001
    cfg = load_text(broker_xml(CONNECTORS + f'<connection-routers><connection-router name="{name}">{body}'
                               "</connection-router></connection-routers>"))
    kwargs = {"clock": clock} if clock is not None else {}
    return Router.from_config(cfg, cfg.connection_routers[0], state, seed=seed, **kwargs)


STATIC3 = "<pool><static-connectors><connector-ref>c1</connector-ref><connector-ref>c2</connector-ref>" \
          "<connector-ref>c3</connector-ref></static-connectors></pool>"


@pytest.mark.parametrize(("text", "expected"), [
    ("a", -468965076), ("test", -1345293851), ("", -2128831035), ("FOO1", -1918712142),
    ("h\u00e9llo", -236604065), ("\U0001F600x", -1621575104),
])
def test_fnv_vectors(text: str, expected: int) -> None:
    assert fnv1a32(text) == expected


# What JDK 17 prints for the InetSocketAddress each transport makes of an accepted peer: Netty's
# native epoll/kqueue transports up to Netty 4.1.111 (Artemis 2.35) give IPv6 addresses a scope id
# even when it is 0, from 4.1.112 (Artemis 2.36) only link-local or scoped ones; the JDK's NIO
# transport only a scope id above 0 (checked with a JDK 17 program: InetSocketAddress.toString()).
@pytest.mark.parametrize(("host", "port", "scope", "native", "printed", "key"), [
    ("10.0.0.1", 12345, 0, True, "/10.0.0.1:12345", "10.0.0.1"),
    ("10.0.0.1", 12345, 0, False, "/10.0.0.1:12345", "10.0.0.1"),
    ("::1", 5000, 0, True, "/[0:0:0:0:0:0:0:1]:5000", "[0:0:0:0:0:0:0:1]"),
    ("fe80::1", 5000, 0, True, "/[fe80:0:0:0:0:0:0:1%0]:5000", "[fe80:0:0:0:0:0:0:1%0]"),
    ("fe80::1", 5000, 0, False, "/[fe80:0:0:0:0:0:0:1]:5000", "[fe80:0:0:0:0:0:0:1]"),
    ("::1", 5000, 0, False, "/[0:0:0:0:0:0:0:1]:5000", "[0:0:0:0:0:0:0:1]"),
    ("fe80::1", 5000, 2, True, "/[fe80:0:0:0:0:0:0:1%2]:5000", "[fe80:0:0:0:0:0:0:1%2]"),
    ("fe80::1", 5000, 2, False, "/[fe80:0:0:0:0:0:0:1%2]:5000", "[fe80:0:0:0:0:0:0:1%2]"),
    ("2001:db8::1:0:0:1", 61616, 0, False, "/[2001:db8:0:0:1:0:0:1]:61616", "[2001:db8:0:0:1:0:0:1]"),
    ("::ffff:1.2.3.4", 7, 0, True, "/1.2.3.4:7", "1.2.3.4"),
])
def test_source_ip_as_java_prints_it(host: str, port: int, scope: int, native: bool, printed: str, key: str) -> None:
    assert java_socket_address(host, port, scope, native=native) == printed
    assert source_ip_key(printed) == key


@pytest.mark.parametrize(("host", "broker", "printed"), [
    ("::1", (2, 35), "/[0:0:0:0:0:0:0:1%0]:5"), ("::1", (2, 36), "/[0:0:0:0:0:0:0:1]:5"),
    ("2001:db8::1", (2, 21), "/[2001:db8:0:0:0:0:0:1%0]:5"), ("2001:db8::1", (2, 41), "/[2001:db8:0:0:0:0:0:1]:5"),
    ("fe80::1", (2, 35), "/[fe80:0:0:0:0:0:0:1%0]:5"), ("fe80::1", (2, 36), "/[fe80:0:0:0:0:0:0:1%0]:5"),
    ("febf::1", (2, 41), "/[febf:0:0:0:0:0:0:1%0]:5"), ("fec0::1", (2, 41), "/[fec0:0:0:0:0:0:0:1]:5"),
    ("::1%3", (2, 41), "/[0:0:0:0:0:0:0:1%3]:5"),
])
def test_epoll_scope_follows_the_broker_version(host: str, broker: tuple[int, int], printed: str) -> None:
    """Netty 4.1.112 (Artemis 2.36): epoll keeps a scope only for fe80::/10 or a scope that is not 0."""
    assert java_socket_address(host, 5, native=True, broker=broker) == printed


def test_user_given_source_addresses_print_per_transport() -> None:
    conn = Connection(remote_address="::1")
    assert resolve_key("SOURCE_IP", None, conn).key == "[0:0:0:0:0:0:0:1]"
    assert resolve_key("SOURCE_IP", None, conn, broker=(2, 35)).key == "[0:0:0:0:0:0:0:1%0]"
    assert resolve_key("SOURCE_IP", None, conn, native=False).key == "[0:0:0:0:0:0:0:1]"
    assert resolve_key("SOURCE_IP", None, Connection(remote_address="[fe80::1%3]:9")).key == "[fe80:0:0:0:0:0:0:1%3]"
    assert resolve_key("SOURCE_IP", None, Connection(remote_address="/[0:0:0:0:0:0:0:1]:5")).key == (
        "[0:0:0:0:0:0:0:1]")  # Java's own form is taken as it is


@pytest.mark.parametrize(("remote", "key"), [
    ("203.0.113.9:40000", "203.0.113.9"),
    ("::1:40000", "::1"),  # a v1 header's TCP6 source, as written: no transport reformats it
    ("2001:db8:0:0:0:0:0:1:40000", "2001:db8:0:0:0:0:0:1"),
    ("null:0", "null"),  # LOCAL or UNSPEC: the broker stores null:0
])
def test_source_ip_after_a_proxy_header_is_the_headers_source_as_is(remote: str, key: str) -> None:
    conn = Connection(remote_address=remote, remote_as_is=True)
    assert resolve_key("SOURCE_IP", None, conn).key == key
    assert resolve_key("SOURCE_IP", None, conn, native=False).key == key


@pytest.mark.parametrize("bad", ["x", "fe80::1%eth0", "10.0.0.1%2", "[::1]:x", "300.1.1.1"])
def test_source_addresses_java_cannot_have_are_refused(bad: str) -> None:
    with pytest.raises(UsageError):
        source_address(bad)


def test_sni_host_is_lowercased_as_netty_does() -> None:
    conn = Connection(sni_host="Broker-1.EXAMPLE.net")
    assert resolve_key("SNI_HOST", None, conn).key == "broker-1.example.net"
    assert resolve_key("SNI_HOST", "^[a-z0-9-]+", conn).key == "broker-1"


def test_key_filter_uses_find_and_the_matched_text() -> None:
    assert resolve_key("CLIENT_ID", "^.{3}", Connection(client_id="FOO1")).key == "FOO"
    assert resolve_key("CLIENT_ID", "[0-9]+", Connection(client_id="ab12cd34")).key == "12"
    assert resolve_key("CLIENT_ID", "^Z", Connection(client_id="FOO1")).key == "NULL"
    assert resolve_key("CLIENT_ID", "^.{3}", Connection()).key == "NULL"
    assert resolve_key("USER_NAME", "   ", Connection(username="bob")).key == "bob"  # blank filter: none


def test_a_key_filter_is_blank_as_java_s_string_isblank() -> None:
    """KeyResolver.setKeyFilter drops a String.isBlank() filter: U+2003 is blank, a NBSP or U+0085 is a filter."""
    assert resolve_key("USER_NAME", "\u2003", Connection(username="bob")).key == "bob"
    assert resolve_key("USER_NAME", "\u00a0", Connection(username="bob")).key == "NULL"
    assert resolve_key("USER_NAME", "\u00a0", Connection(username="a\u00a0b")).key == "\u00a0"
    assert resolve_key("USER_NAME", "\x85", Connection(username="bob")).key == "NULL"


def test_role_name_first_role_where_filter_finds() -> None:
    # the broker walks the roles in Java HashSet order (tests/routing/test_role_order_java.py), not as listed:
    # "admin-eu", "admin-us", "guest" here
    conn = Connection(roles=("guest", "admin-us", "admin-eu"))
    assert resolve_key("ROLE_NAME", None, conn).key == "admin-eu"
    assert resolve_key("ROLE_NAME", "admin-..", conn).key == "admin-eu"
    assert resolve_key("ROLE_NAME", "[gu]+e", conn).key == "gue"
    assert resolve_key("ROLE_NAME", None, Connection(roles=("guest", "admin-eu"), roles_in_broker_order=True)).key \
        == "guest"
    assert resolve_key("ROLE_NAME", "^x", conn).key == "NULL"
    assert resolve_key("ROLE_NAME", None, Connection()).key == "NULL"


def test_local_partition_manual_example() -> None:
    r = router("<key-type>CLIENT_ID</key-type><key-filter>^.{3}</key-filter>"
               "<local-target-filter>^FOO.*</local-target-filter>")
    foo = r.route(Connection(client_id="FOO1"))
    assert (foo.status, foo.local, foo.key) == ("OK", True, "FOO")
    bar = r.route(Connection(client_id="BAR1"))
    assert (bar.status, bar.target) == ("REFUSED_USE_ANOTHER", None)


def test_local_target_filter_is_a_full_match_not_find() -> None:
    r = router("<key-type>USER_NAME</key-type><local-target-filter>admin</local-target-filter>"
               "<policy name='FIRST_ELEMENT'/>" + STATIC3)
    assert r.route(Connection(username="admin")).local
    res = r.route(Connection(username="administrator"))
    assert not res.local and res.target is not None and res.target.name == "c1"


def test_null_key_can_match_the_local_filter() -> None:
    r = router("<key-type>SNI_HOST</key-type><local-target-filter>NULL</local-target-filter>")
    assert r.route(Connection()).local


def test_internal_router_client_ids_stay_local() -> None:
    r = router("<key-type>USER_NAME</key-type><policy name='FIRST_ELEMENT'/>" + STATIC3)
    res = r.route(Connection(client_id="$.artemis.internal.router.client.x"))
    assert res.local and res.decided_by == "internal"


def test_modulo_transform_then_local_filter_and_never_selects() -> None:
    body = ("<key-type>CLIENT_ID</key-type><local-target-filter>^0$</local-target-filter>"
            "<policy name='CONSISTENT_HASH_MODULO'><property key='MODULO' value='3'/></policy>")
    r = router(body)
    for cid in ["FOO1", "a", "test", "x" * 40]:
        expected = str((fnv1a32(cid) & 0x7FFFFFFF) % 3)
        res = r.route(Connection(client_id=cid))
        assert res.key_value == expected
        assert res.local == (expected == "0")
        assert res.status == ("OK" if expected == "0" else "REFUSED_USE_ANOTHER")
    with_pool = router(body + STATIC3)
    outcomes = {with_pool.route(Connection(client_id=c)).status for c in ["FOO1", "a", "test", "b", "c", "d"]}
    assert outcomes <= {"OK", "REFUSED_UNAVAILABLE"} and "REFUSED_UNAVAILABLE" in outcomes


def test_lower_case_modulo_is_ignored_with_a_warning() -> None:
    r = router("<policy name='CONSISTENT_HASH_MODULO'><property key='modulo' value='3'/></policy>")
    assert r.route_key("FOO1").key_value == "FOO1"
    assert any("fails to deploy" in w for w in r.warnings)


def test_null_key_is_not_transformed() -> None:
    r = router("<key-type>SNI_HOST</key-type>"
               "<policy name='CONSISTENT_HASH_MODULO'><property key='MODULO' value='3'/></policy>")
    assert r.route(Connection()).key_value == "NULL"


def test_first_element_skips_targets_that_are_down() -> None:
    r = router("<policy name='FIRST_ELEMENT'/>" + STATIC3, TargetState(down=frozenset({"c1"})))
    res = r.route(Connection())
    assert res.target is not None and res.target.name == "c2" and res.target.address == "h2:61617"


def test_round_robin_from_seed_position() -> None:
    r = router("<policy name='ROUND_ROBIN'/>" + STATIC3, seed=4)
    names = [r.route(Connection()).target.name for _ in range(4)]  # type: ignore[union-attr]
    assert names == ["c2", "c3", "c1", "c2"]  # 4 % 3 = 1 first


def test_consistent_hash_floor_else_smallest() -> None:
    ids = {"c1": "node-a", "c2": "node-b", "c3": "node-c"}
    r = router("<key-type>CLIENT_ID</key-type><policy name='CONSISTENT_HASH'/>" + STATIC3, TargetState(node_ids=ids))
    ring = sorted((fnv1a32(v), k) for k, v in ids.items())
    for cid in ["FOO1", "a", "b", "zzz", "\U0001F600"]:
        h = fnv1a32(cid)
        below = [name for hv, name in ring if hv <= h]
        expected = below[-1] if below else ring[0][1]
        assert r.route(Connection(client_id=cid)).target.name == expected  # type: ignore[union-attr]
    assert not any("placeholder" in w for w in r.warnings)


def test_consistent_hash_placeholders_are_said_loudly() -> None:
    r = router("<policy name='CONSISTENT_HASH'/>" + STATIC3)
    assert any("placeholder" in w for w in r.warnings)
    res = r.route(Connection(remote_address="/10.0.0.1:5"))
    assert res.target is not None and not res.target.node_id_known


def test_ring_equal_hashes_later_target_wins() -> None:
    a = Target("a", "same-id")
    b = Target("b", "same-id")
    c = Target("c", "other")
    ring = Ring.build([a, b, c])
    assert b in ring.targets and a not in ring.targets


def test_least_connections_threshold_and_round_robin_ties() -> None:
    body = ("<policy name='LEAST_CONNECTIONS'><property key='CONNECTION_COUNT_THRESHOLD' value='10'/></policy>"
            + STATIC3)
    r = router(body, TargetState(connections={"c1": 50, "c2": 5, "c3": 9}), seed=0)
    # c2 and c3 are below the threshold: both count 0, ties go round-robin from position 0
    assert [r.route(Connection()).target.name for _ in range(3)] == ["c2", "c3", "c2"]  # type: ignore[union-attr]
    r2 = router(body, TargetState(connections={"c1": 50, "c2": 40}), seed=0)
    # c3's count is unknown: it counts as Integer.MAX_VALUE
    assert r2.route(Connection()).target.name == "c2"  # type: ignore[union-attr]


def test_quorum_not_met_refuses_unavailable() -> None:
    body = ("<policy name='FIRST_ELEMENT'/><pool><quorum-size>3</quorum-size><static-connectors>"
            "<connector-ref>c1</connector-ref><connector-ref>c2</connector-ref><connector-ref>c3</connector-ref>"
            "</static-connectors></pool>")
    assert router(body).route(Connection()).status == "OK"
    res = router(body, TargetState(down=frozenset({"c3"}))).route(Connection())
    assert res.status == "REFUSED_UNAVAILABLE"


def test_no_pool_or_no_policy_refuses_use_another() -> None:
    assert router("<policy name='FIRST_ELEMENT'/>").route(Connection()).status == "REFUSED_USE_ANOTHER"
    assert router(STATIC3).route(Connection()).status == "REFUSED_USE_ANOTHER"


def test_local_target_first_in_pool_order() -> None:
    body = ("<policy name='FIRST_ELEMENT'/><pool><local-target-enabled>true</local-target-enabled>"
            "<static-connectors><connector-ref>c1</connector-ref></static-connectors></pool>")
    res = router(body).route(Connection())
    assert res.local and res.status == "OK"


def test_unknown_static_connector_is_skipped_with_a_note() -> None:
    body = ("<policy name='FIRST_ELEMENT'/><pool><static-connectors><connector-ref>nope</connector-ref>"
            "<connector-ref>c2</connector-ref></static-connectors></pool>")
    r = router(body)
    assert r.route(Connection()).target.name == "c2"  # type: ignore[union-attr]
    assert any("nope" in w for w in r.warnings)


def test_cache_sticks_until_target_not_ready_and_expires_after_access() -> None:
    now = [0.0]
    body = "<cache><timeout>1000</timeout></cache><policy name='ROUND_ROBIN'/>" + STATIC3
    r = router(body, seed=0, clock=lambda: now[0])
    first = r.route(Connection(remote_address="/10.0.0.1:1"))
    assert first.target.name == "c1"  # type: ignore[union-attr]
    now[0] = 900.0
    again = r.route(Connection(remote_address="/10.0.0.1:2"))
    assert (again.target.name, again.decided_by) == ("c1", "cache")  # type: ignore[union-attr]
    now[0] = 1800.0  # 900 ms since the last access: still there (expire after *access*)
    assert r.route(Connection(remote_address="/10.0.0.1:3")).decided_by == "cache"
    now[0] = 2800.0  # 1000 ms idle: expired, the policy picks again
    res = r.route(Connection(remote_address="/10.0.0.1:4"))
    assert (res.decided_by, res.target.name) == ("policy", "c2")  # type: ignore[union-attr]


def test_cache_zero_timeout_never_expires() -> None:
    cache = RouterCache(0, clock=lambda: 10**12)
    cache.put("k", "n")
    assert cache.get("k") == "n"


def test_management_get_target_uses_key_as_given() -> None:
    r = router("<key-type>CLIENT_ID</key-type><key-filter>^.{3}</key-filter>"
               "<local-target-filter>^FOO.*</local-target-filter>")
    assert r.route_key("FOO1").key_value == "FOO1" and r.route_key("FOO1").local
    assert r.route_key("BARFOO").status == "REFUSED_USE_ANOTHER"


def test_trace_names_the_deciding_step() -> None:
    r = router("<key-type>CLIENT_ID</key-type><key-filter>^.{3}</key-filter>"
               "<local-target-filter>^FOO.*</local-target-filter>")
    steps = [s.step for s in r.route(Connection(client_id="FOO1")).trace]
    assert steps == ["key", "local-target-filter"]


def test_unknown_key_type_is_a_config_error_with_position() -> None:
    import pytest

    from artemis_routing_cli.errors import ConfigError

    with pytest.raises(ConfigError) as err:
        router("<key-type>CLIENTID</key-type>")
    assert "key-type 'CLIENTID'" in err.value.message
    assert (err.value.line, err.value.column) == (9, 62)  # the <key-type> element


def test_the_key_filter_step_says_whose_regex_it_is() -> None:
    """--explain names the regex semantics: Java 17's java.util.regex (its \\X, \\b, UTF-16 walk)."""
    note = resolve_key("CLIENT_ID", "^.{3}", Connection(client_id="FOO1")).note
    assert "Java 17" in note and "java.util.regex" in note
