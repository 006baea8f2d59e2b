"""The same routers written in broker.xml, in broker.properties, in the JSON form and in an operator
CR (samples/properties/) give the same simulate answers on the same keys, through the same engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from artemis_routing_cli.config import LoadOptions, load
from artemis_routing_cli.config.model import BrokerConfig
from artemis_routing_cli.config.properties import PropertiesOptions
from artemis_routing_cli.config.properties.sources import empty_broker_xml
from artemis_routing_cli.routing.keys import Connection
from artemis_routing_cli.routing.router import build_routers

SAMPLES = Path(__file__).resolve().parents[3] / "samples" / "properties"
ORDINAL = {"STATEFUL_SET_ORDINAL": "1"}
KEYS = ["abc", "abc.def", "client-7", "", "x" * 40, "é.ü", "0", "1", "2", "shard.3.x"]
USERS = ["bob", "alice", "", "svc-1"]


def _xml() -> BrokerConfig:
    return load(str(SAMPLES / "broker.xml"), LoadOptions({}, {}, PropertiesOptions(beside=False)))


def _props(name: str) -> BrokerConfig:
    return load(empty_broker_xml(), LoadOptions({}, ORDINAL, PropertiesOptions(paths=(str(SAMPLES / name),),
                                                                                beside=False)))


def _cr() -> BrokerConfig:
    return load(empty_broker_xml(), LoadOptions({}, {}, PropertiesOptions(cr=str(SAMPLES / "cr.yaml"), ordinal=1,
                                                                          beside=False)))


def _answers(config: BrokerConfig) -> list[object]:
    out: list[object] = []
    for router in build_routers(config, seed=7):
        for key in KEYS:
            out.append(router.route(Connection(client_id=key)).to_json())
        for user in USERS:
            out.append(router.route(Connection(username=user)).to_json())
    return out


def _shape(config: BrokerConfig) -> list[object]:
    return [(r.name, r.key_type, r.key_filter, r.local_target_filter, r.policy and r.policy.name,
             r.policy and dict(r.policy.properties), r.pool and (r.pool.check_period, r.pool.local_target_enabled,
                                                                 r.pool.static_connectors),
             r.cache and (r.cache.persisted, r.cache.timeout)) for r in config.connection_routers] + [
        (a.name, a.router, a.protocols, a.url.port) for a in config.acceptors] + [
        (c.name, c.host, c.port) for c in config.connector_list]


@pytest.mark.parametrize("make", [lambda: _props("routers.properties"), lambda: _props("routers.json"), _cr],
                         ids=["properties", "json", "cr"])
def test_same_routers_same_answers(make) -> None:
    xml, other = _xml(), make()
    assert other.property_findings == ()
    assert _shape(other) == _shape(xml)
    assert _answers(other) == _answers(xml)


def test_the_cr_view_depends_on_the_ordinal() -> None:
    zero = load(empty_broker_xml(), LoadOptions({}, {}, PropertiesOptions(cr=str(SAMPLES / "cr.yaml"), ordinal=0)))
    shard = next(r for r in zero.connection_routers if r.name == "autoShard")
    spread = next(r for r in zero.connection_routers if r.name == "spread")
    assert shard.local_target_filter == "NULL|0"
    assert spread.cache is not None and spread.cache.timeout == 30000  # no broker-0 line: the shared value
    assert spread.origins["cacheConfiguration.timeout"].file.endswith("cr.yaml")


def test_a_cr_over_broker_xml_applies_in_place() -> None:
    both = load(str(SAMPLES / "broker.xml"), LoadOptions({}, {}, PropertiesOptions(cr=str(SAMPLES / "cr.yaml"),
                                                                                   ordinal=1)))
    assert _shape(both) == _shape(_xml())  # same values written twice: nothing changes
    assert [f.rule for f in both.property_findings] == []  # and nothing is overridden
    shard = next(r for r in both.connection_routers if r.name == "autoShard")
    assert shard.origins["localTargetFilter"].file.endswith("cr.yaml")
    assert shard.fields["key-type"].pos.file.endswith("broker.xml")  # broker.xml's own reading is kept
