"""CORE redirects carry node ids (DISCONNECT_V3: this broker's and the target's, as the broker's
``RemotingConnection.disconnect(REDIRECT, target.getNodeID(), connector)``): serve uses the one its
readiness check reads from the target, and says in the log when it only has a stand-in.

The monitored target is a *CORE double* (tests/probe/peers.CoreDouble: the handshake and a
single-node topology from the CoreServer codec): no Artemis broker runs here.
"""

from __future__ import annotations

import socket
import struct

import pytest

from tests.probe.peers import CoreDouble

from .conftest import HANG_GUARD, on_both_loops
from .test_core_openwire import create_session, frame, read_frames, simple

pytestmark = pytest.mark.network

TARGET_NODE = "7a6b5c4d-1111-2222-3333-444455556666"


def pool_xml(port: int) -> str:
    return f"""
      <connectors><connector name="artemis-b">tcp://127.0.0.1:{port}</connector></connectors>
      <connection-routers><connection-router name="r">
        <key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>
        <pool><check-period>100</check-period><quorum-timeout>10000</quorum-timeout>
          <static-connectors><connector-ref>artemis-b</connector-ref></static-connectors>
        </pool>
      </connection-router></connection-routers>"""


def redirect_disconnect(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        sock.sendall(b"ARTEMIS" + frame(10, 0, struct.pack(">q", 60000)) + create_session("C1"))
        _, disconnect, _ = read_frames(sock, 3)
    return disconnect


@pytest.fixture
def core_target():
    double = CoreDouble(TARGET_NODE)
    yield double
    double.close()


@on_both_loops
def test_core_redirect_carries_the_node_id_the_readiness_check_read_from_the_target(serve, core_target):
    running = serve(pool_xml(core_target.port), routers=["r"], monitor=True)
    running.wait_for(lambda r: r["event"] == "node-id" and r.get("node_id") == TARGET_NODE, "node id read")
    disconnect = redirect_disconnect(running.port())
    assert disconnect[4:5] == struct.pack(">b", -19)
    assert simple(TARGET_NODE) in disconnect
    assert not [r for r in running.records if r["event"] == "node-id" and r.get("guess")
                and "artemis-b" in r["message"]]


def test_without_a_known_node_id_the_core_redirect_says_it_sends_a_stand_in(serve, core_target):
    running = serve(pool_xml(core_target.port), routers=["r"])  # no monitor, no --node-id
    disconnect = redirect_disconnect(running.port())
    assert simple("artemis-b") in disconnect
    guesses = [r["message"] for r in running.records if r["event"] == "node-id" and r.get("guess")]
    assert any("node id of target artemis-b is unknown: 'artemis-b' stands in" in g for g in guesses)
    assert any("this broker's own node id is unknown" in g for g in guesses)
    redirect_disconnect(running.port())
    assert len([r for r in running.records if r["event"] == "node-id" and r.get("guess")]) == len(guesses)


def test_a_2_18_client_that_sends_createsession_before_reading_the_topology_is_routed_on_a_null_key(serve):
    """The Artemis client picks CREATESESSION_V2 (with the client id) only once its connection's
    channel version is 2.18+, which the topology answer (CLUSTER_TOPOLOGY_V4) sets; sent before, it
    is the old CREATESESSION and the broker's connection has no client id: key NULL."""
    from artemis_routing_cli.routing.targets import state_from_options

    from .conftest import NODE_IDS, ROUTER_CORE
    from .test_core_openwire import old_create_session

    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(b"ARTEMIS" + frame(10, 0, struct.pack(">q", 60000)) + old_create_session(136))
        _, disconnect, _ = read_frames(sock, 3)
    assert disconnect[4:5] == struct.pack(">b", -19)  # routed (136 supports routing), redirected
    [route] = running.routes()
    assert route["key"] == "NULL"
    assert any(r.get("reason") == "no_client_id" for r in running.records)


LOCAL_NODE = "0c0c0c0c-aaaa-bbbb-cccc-ddddeeeeffff"


@on_both_loops
def test_own_node_id_is_read_from_the_local_target_by_the_readiness_check(serve, core_target):
    """The broker's DISCONNECT_V3 and topology carry its own node id: serve reads it from the local
    broker (--local-target, here a CORE double) instead of sending the stand-in 'local'."""
    local = CoreDouble(LOCAL_NODE)
    try:
        running = serve(pool_xml(core_target.port), routers=["r"], monitor=True,
                        local_target=f"127.0.0.1:{local.port}")
        running.wait_for(lambda r: r["event"] == "node-id" and r.get("node_id") == LOCAL_NODE, "own node id read")
        running.wait_for(lambda r: r["event"] == "node-id" and r.get("node_id") == TARGET_NODE, "target node id read")
        disconnect = redirect_disconnect(running.port())
    finally:
        local.close()
    # DISCONNECT_V3: nullable nodeID (this broker), reason, nullable targetNodeID, then the connector
    assert disconnect[13:14 + len(simple(LOCAL_NODE))] == b"\x01" + simple(LOCAL_NODE)
    assert simple(TARGET_NODE) in disconnect
    assert not [r for r in running.records if r["event"] == "node-id" and r.get("guess")]
