"""(2) Real clients follow real redirects from the real broker, and each lands where ``arouter simulate``
(with the targets ``arouter probe --save`` read from the running brokers) said: the Artemis CORE/JMS
client of the distribution (follows DISCONNECT_V3 itself and sends a message there), python-qpid-proton
and rhea (AMQP redirect Close), paho-mqtt MQTT 5 (CONNACK 0x9C + Server Reference), the ActiveMQ
Classic OpenWire failover client (follows ConnectionControl itself)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.real_clients import import_peer
from tests.realbroker.brokerxml import ROUTER_PORTS
from tests.realbroker.clients import (
    broker_keys,
    core_redirects,
    landed,
    openwire_redirects,
    paho_mqtt5,
    rhea_redirects,
)
from tests.realbroker.cluster import Cluster
from tests.realbroker.simulate import simulate_keys

ROUTER = "ch"  # CONSISTENT_HASH by CLIENT_ID over c0, c1, c2
COUNT = 20


def addresses(targets: Path) -> dict[str, str]:
    saved = json.loads(targets.read_text(encoding="utf-8"))
    return {t["name"]: f"{t['host']}:{t['port']}" for t in saved["targets"] if t.get("host")}


def where_simulate_sends(cluster: Cluster, targets: Path, work: Path, client_ids: list[str]) -> list[str]:
    """``host:port`` simulate sends each client id to (as a connection's CLIENT_ID, not --management)."""
    where = addresses(targets)
    records = simulate_keys(cluster.config(0), ROUTER, client_ids, work, "--targets", str(targets), "-D", "ordinal=0",
                            management=False)
    assert all(r["status"] == "OK" for r in records), records
    return [where[r["target"]] for r in records]


def port(cluster: Cluster) -> int:
    return cluster.layout.port(ROUTER_PORTS[ROUTER])


def test_core_jms_client_follows_the_broker_redirect_where_simulate_said(cluster: Cluster, targets: Path,
                                                                           tmp_path: Path) -> None:
    """The CORE client lands on the target of the key the broker resolved, and sends and receives a message
    there. That key is the client id or, for some connections, NULL: the broker's KeyResolver logs
    ``keyValue for CLIENT_ID: null`` for a share of the 2.40.0 client's connections (reported to the lead:
    the client sets the id on every session it creates)."""
    mark = cluster.brokers[0].log_size()
    outcomes = core_redirects(cluster.host(0), port(cluster), "m2core-", COUNT, send=True)
    assert [o["client_id"] for o in outcomes] == [f"m2core-{i}" for i in range(COUNT)]
    keys = broker_keys(cluster.brokers[0].log_since(mark))
    assert len(keys) == COUNT
    assert all(k in ("NULL", o["client_id"]) for k, o in zip(keys, outcomes, strict=True)), keys
    expected = where_simulate_sends(cluster, targets, tmp_path, keys)
    assert [landed(o["remote"]) for o in outcomes] == expected
    assert [o["received"] for o in outcomes] == [f"hello m2core-{i}" for i in range(COUNT)]


def test_proton_is_redirected_where_simulate_said(cluster: Cluster, targets: Path, tmp_path: Path) -> None:
    import_peer("proton", "python-qpid-proton")
    from tests.serve.test_amqp import connect_with_links

    ids = [f"m2proton-{i}" for i in range(COUNT)]
    conditions = [connect_with_links(port(cluster), client_id) for client_id in ids]
    assert all(c is not None and c.name == "amqp:connection:redirect" for c in conditions)
    told = [f"{c.info['network-host']}:{int(c.info['port'])}" for c in conditions]
    assert told == where_simulate_sends(cluster, targets, tmp_path, ids)


def test_rhea_is_redirected_where_simulate_said(cluster: Cluster, targets: Path, tmp_path: Path) -> None:
    outcomes = rhea_redirects(cluster.host(0), port(cluster), COUNT)
    assert [o.get("condition") for o in outcomes] == ["amqp:connection:redirect"] * COUNT
    told = [f"{o['info']['network-host']}:{o['info']['port']}" for o in outcomes]
    assert told == where_simulate_sends(cluster, targets, tmp_path, [f"rhea-{i}" for i in range(COUNT)])


def test_paho_mqtt5_is_redirected_where_simulate_said(cluster: Cluster, targets: Path, tmp_path: Path) -> None:
    import_peer("paho.mqtt.client", "paho-mqtt")
    from tests.serve.test_mqtt import mqtt5_connect, server_reference

    ids = [f"m2paho-{i}" for i in range(COUNT)]
    answers = [mqtt5_connect(port(cluster), client_id) for client_id in ids]
    assert [rc.value for rc, _ in answers] == [0x9C] * COUNT
    assert [server_reference(props) for _, props in answers] == where_simulate_sends(cluster, targets, tmp_path, ids)


def test_openwire_failover_client_lands_where_simulate_said(cluster: Cluster, targets: Path, tmp_path: Path) -> None:
    connected = openwire_redirects(cluster.host(0), port(cluster), "m2ow", COUNT)
    assert connected == where_simulate_sends(cluster, targets, tmp_path, [f"m2ow-{i}" for i in range(COUNT)])


def test_paho_mqtt5_on_the_sharded_acceptor_is_kept_or_refused_as_simulate_said(cluster: Cluster,
                                                                                   tmp_path: Path) -> None:
    """CONSISTENT_HASH_MODULO without a pool: a key of broker 0's shard (``NULL|0``) is kept (CONNACK 0), any
    other is refused with 0x9C and no Server Reference (REFUSED_USE_ANOTHER; the broker logs AMQ221086)."""
    import_peer("paho.mqtt.client", "paho-mqtt")
    ids = [f"m2chm-{i}" for i in range(COUNT)]
    answers = [paho_mqtt5(cluster.host(0), cluster.layout.port(ROUTER_PORTS["chm"]), client_id) for client_id in ids]
    records = simulate_keys(cluster.config(0), "chm", ids, tmp_path, "-D", "ordinal=0", management=False)
    expected = [(0x00, None) if r["status"] == "OK" and r["local"] else (0x9C, None) for r in records]
    assert answers == expected
    assert {a[0] for a in answers} == {0x00, 0x9C}
