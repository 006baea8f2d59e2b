"""Pool monitoring with ``--jolokia``: each target judged as ``arouter probe --jolokia`` judges it
(CORE handshake + Jolokia read of Active, NodeID, ConnectionCount), against the probe tests' CORE
and Jolokia doubles; node ids and connection counts feed the router."""

from __future__ import annotations

import socket

import pytest

from artemis_routing_cli.protocols.mqtt import MqttClient
from tests.probe.peers import CoreDouble, JolokiaDouble

from .conftest import HANG_GUARD, recv_until_closed

pytestmark = pytest.mark.network

NODE_A = "aaaaaaaa-0000-0000-0000-000000000001"
NODE_B = "bbbbbbbb-0000-0000-0000-000000000002"
# Each target has its own Jolokia double; the template reaches it through the connector name,
# which these tests set to the double's port.
TEMPLATE = "http://127.0.0.1:{name}/console/jolokia"


@pytest.fixture
def doubles():
    made: list = []

    def make(node_id: str, count: int, active: bool = True) -> tuple[CoreDouble, JolokiaDouble]:
        core = CoreDouble(node_id)
        jolokia = JolokiaDouble(attributes={"Active": active, "NodeID": node_id, "ConnectionCount": count}).start()
        made.extend([core, jolokia])
        return core, jolokia

    yield make
    for d in made:
        d.stop() if isinstance(d, JolokiaDouble) else d.close()


def pool_xml(policy: str, members: list[tuple[CoreDouble, JolokiaDouble]], quorum_timeout: int = 10_000) -> str:
    connectors = "".join(f'<connector name="{j.port}">tcp://127.0.0.1:{c.port}</connector>' for c, j in members)
    refs = "".join(f"<connector-ref>{j.port}</connector-ref>" for _, j in members)
    return f"""
      <connectors>{connectors}</connectors>
      <connection-routers><connection-router name="r">
        <key-type>CLIENT_ID</key-type><policy name="{policy}"/>
        <pool><username>router</username><password>secret</password><check-period>50</check-period>
          <quorum-timeout>{quorum_timeout}</quorum-timeout>
          <static-connectors>{refs}</static-connectors></pool>
      </connection-router></connection-routers>"""


def mqtt_connect(port: int, client_id: str) -> tuple[int, str | None]:
    client = MqttClient()
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        sock.sendall(client.connect(client_id))
        [connack] = client.receive_data(recv_until_closed(sock))
    return connack.reason_code, connack.server_reference


def test_node_id_is_read_over_jolokia_and_used_for_the_redirect(serve, doubles):
    core, jolokia = doubles(NODE_A, 7)
    running = serve(pool_xml("CONSISTENT_HASH", [(core, jolokia)]), routers=["r"], monitor=True, jolokia=TEMPLATE)
    ready = running.wait_for(lambda r: r["event"] == "readiness" and r["ready"], "target ready")
    assert ready["reason"] == "Active=true over the management API"
    learned = running.wait_for(lambda r: r["event"] == "node-id", "node id learned")
    assert learned["node_id"] == NODE_A
    assert mqtt_connect(running.port(), "c1") == (0x9C, f"127.0.0.1:{core.port}")
    assert running.routes()[0]["node_id"] == NODE_A
    # the probe's request: the broker MBean pattern, with the pool's credentials and an Origin
    request = jolokia.requests[0]
    assert request["path"] == "/console/jolokia" and request["headers"]["Origin"] == f"http://127.0.0.1:{jolokia.port}"


def test_inactive_broker_is_not_ready(serve, doubles):
    core, jolokia = doubles(NODE_A, 7, active=False)
    running = serve(pool_xml("FIRST_ELEMENT", [(core, jolokia)], quorum_timeout=0), routers=["r"], monitor=True,
                    jolokia=TEMPLATE)
    verdict = running.wait_for(lambda r: r["event"] == "readiness", "first verdict")
    assert (verdict["ready"], verdict["reason"]) == (False, "broker attribute Active is false")
    assert mqtt_connect(running.port(), "c1") == (0x88, None)


def test_least_connections_follows_the_counts_read_over_jolokia(serve, doubles):
    busy = doubles(NODE_A, 50)
    idle = doubles(NODE_B, 3)
    running = serve(pool_xml("LEAST_CONNECTIONS", [busy, idle]), routers=["r"], monitor=True, jolokia=TEMPLATE)
    for double in (busy, idle):
        name = str(double[1].port)
        running.wait_for(lambda r, n=name: r["event"] == "readiness" and r["target"] == n and r["ready"], name)
    metrics = running.server.metrics

    def count_of(double: tuple[CoreDouble, JolokiaDouble]) -> float:
        name = str(double[1].port)
        return running.call(lambda: metrics.get("arouter_pool_target_connections", router="r", target=name))

    while count_of(busy) != 50 or count_of(idle) != 3:
        pass  # poll: both first checks have reported their counts
    assert mqtt_connect(running.port(), "c1") == (0x9C, f"127.0.0.1:{idle[0].port}")
    busy[1].attributes["ConnectionCount"] = 1  # the busy broker empties
    while count_of(busy) != 1:
        pass  # poll until a check has read the new count
    assert mqtt_connect(running.port(), "c2") == (0x9C, f"127.0.0.1:{busy[0].port}")
