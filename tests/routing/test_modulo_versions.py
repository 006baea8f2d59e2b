"""CONSISTENT_HASH_MODULO before and after Artemis 2.23 (ARTEMIS-3823): ``hash % modulo`` (Java's remainder, the
sign of the hash) up to 2.22, ``(hash & MAX) % modulo`` from 2.23 — in the engine and its vectorised twin
alike. Found by ``arouter selftest`` against the real 2.21.0 distribution."""

from __future__ import annotations

from pathlib import Path

import pytest

from artemis_routing_cli.routing.batch import fnv1a32_batch, modulo_values, route_batch
from artemis_routing_cli.routing.fnv import fnv1a32
from artemis_routing_cli.routing.keys import Connection
from artemis_routing_cli.routing.policies import java_remainder
from artemis_routing_cli.routing.router import build_routers
from artemis_routing_cli.verdict import load_checked

XML = """<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><connection-routers>
<connection-router name="r"><key-type>CLIENT_ID</key-type><local-target-filter>-?[13]</local-target-filter>
<policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="5"/></policy></connection-router>
</connection-routers></core></configuration>
"""
KEYS = ["a", "test", "FOO1", "h\u00e9llo", "\U0001F600x", "", "x" * 40, *(f"k{i}" for i in range(200))]


def test_java_remainder_takes_the_sign_of_the_value() -> None:
    assert [java_remainder(v, 5) for v in (-7, 7, -5, 0, -1)] == [-2, 2, 0, 0, -1]
    assert java_remainder(fnv1a32("test"), 5) == -1  # fnv("test") = -1345293851


@pytest.mark.parametrize(("version", "signed"), [((2, 21), True), ((2, 22), True), ((2, 23), False), ((2, 41), False)])
def test_the_engine_and_its_twin_follow_the_version(tmp_path: Path, version: tuple[int, int], signed: bool) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(XML, encoding="utf-8")
    router = build_routers(load_checked(str(path)).config)[0]
    router.broker_version = version
    want = [str(java_remainder(fnv1a32(k), 5) if signed else (fnv1a32(k) & 0x7FFFFFFF) % 5) for k in KEYS]
    scalar = [router.route(Connection(client_id=k)).key_value for k in KEYS]
    assert scalar == want
    assert any(v.startswith("-") for v in want) == signed
    batch = route_batch(router, [Connection(client_id=k) for k in KEYS])
    assert batch.key_value.tolist() == want and batch.vectorised
    scalar_status = [router.route(Connection(client_id=k)).status for k in KEYS]
    assert batch.status.tolist() == scalar_status
    assert modulo_values(fnv1a32_batch(KEYS), 5, signed).tolist() == [int(v) for v in want]
