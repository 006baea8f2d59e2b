"""Real clients users have, many connections in a row against ``arouter serve``: every one of
them must get its redirect (none lost to a TCP reset when serve closes).

rhea and MQTT.js (npm, tests/js) run as Node programs, the ActiveMQ Classic OpenWire client (Debian
package activemq) as a Java program (tests/java); python-qpid-proton and paho-mqtt in process.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from artemis_routing_cli.protocols.amqp import AmqpClient, CloseReceived
from artemis_routing_cli.protocols.mqtt import PROTOCOL_LEVEL_311, MqttClient, parse_connack
from artemis_routing_cli.routing.targets import state_from_options
from tests.real_clients import ActiveMQ, import_peer, node_script, openwire_client, run_json_lines, start_activemq

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops

pytestmark = pytest.mark.network

IN_A_ROW = 50
PINGREQ = b"\xc0\x00"
AMQP_EMPTY_FRAME = b"\x00\x00\x00\x08\x02\x00\x00\x00"  # a heartbeat: an AMQP frame without a body
ADDRESSES = {"target1": ("10.0.0.1", 61617), "target2": ("10.0.0.2", 61618)}


def routed_targets(running, count: int) -> dict[str, tuple[str, int]]:
    """Where serve sent each routing key, from its route log lines (each key once)."""
    routes = running.routes()
    assert len(routes) == count
    return {line["key"]: ADDRESSES[line["target"]] for line in routes}


@on_both_loops
def test_rhea_gets_every_redirect_of_50_connections_in_a_row(serve):
    """rhea opens a receiver and a sender at once (its Begin and Attach follow the Open unasked):
    closing with those unread reset the connection and rhea lost the redirect in up to 44 of 50."""
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    outcomes = run_json_lines(node_script("rhea_redirects.js", "rhea") + ["127.0.0.1", str(running.port()),
                                                                            str(IN_A_ROW)])
    assert len(outcomes) == IN_A_ROW
    lost = [o for o in outcomes if o.get("condition") != "amqp:connection:redirect"]
    assert lost == []
    targets = routed_targets(running, IN_A_ROW)
    for outcome in outcomes:
        host, port = targets[f"rhea-{outcome['index']}"]
        assert outcome["info"] == {"network-host": host, "port": port}


def test_rhea_over_tls_gets_every_redirect_of_50_connections_in_a_row(serve, cert):
    """Over TLS there is no half-close: serve waits for rhea's own Close, then closes."""
    crt, key = cert
    running = serve(ROUTER_CORE, listen=["tls://127.0.0.1:0"], routers=["by-client"], tls_cert=crt, tls_key=key,
                    state=state_from_options(NODE_IDS))
    outcomes = run_json_lines(node_script("rhea_redirects.js", "rhea") + ["127.0.0.1", str(running.port()),
                                                                            str(IN_A_ROW), "tls"])
    assert [o for o in outcomes if o.get("condition") != "amqp:connection:redirect"] == []
    assert len(outcomes) == IN_A_ROW and len(running.routes()) == IN_A_ROW


@on_both_loops
@pytest.mark.parametrize("version", [5, 4])
def test_mqtt_js_gets_every_redirect_of_50_connections_in_a_row(serve, version):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    outcomes = run_json_lines(node_script("mqtt_redirects.js", "mqtt") + [
        "127.0.0.1", str(running.port()), str(IN_A_ROW), str(version), f"mqttjs{version}"])
    assert len(outcomes) == IN_A_ROW
    assert [o for o in outcomes if o.get("connack") != 0x9C] == []
    targets = routed_targets(running, IN_A_ROW)
    for outcome in outcomes:
        host, port = targets[f"mqttjs{version}-{outcome['index']}"]
        # MQTT 5 carries the Server Reference; MQTT 3.1.1 has no properties, only 0x9C
        assert outcome["serverReference"] == (f"{host}:{port}" if version == 5 else None)


@on_both_loops
def test_proton_with_links_gets_every_redirect_of_50_connections_in_a_row(serve):
    import_peer("proton", "python-qpid-proton")
    from .test_amqp import connect_with_links

    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    conditions = [connect_with_links(running.port(), f"proton-{i}") for i in range(IN_A_ROW)]
    targets = routed_targets(running, IN_A_ROW)
    for i, condition in enumerate(conditions):
        assert condition is not None and condition.name == "amqp:connection:redirect"
        host, port = targets[f"proton-{i}"]
        assert condition.info == {"network-host": host, "port": port}


@on_both_loops
def test_paho_gets_every_redirect_of_50_connections_in_a_row(serve):
    import_peer("paho.mqtt.client", "paho-mqtt")
    from .test_mqtt import mqtt5_connect, server_reference

    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    answers = [mqtt5_connect(running.port(), f"paho-{i}") for i in range(IN_A_ROW)]
    targets = routed_targets(running, IN_A_ROW)
    for i, (rc, props) in enumerate(answers):
        assert rc.value == 0x9C
        host, port = targets[f"paho-{i}"]
        assert server_reference(props) == f"{host}:{port}"


def _answer_and_end(port: int, first: bytes, behind: bytes) -> tuple[bytes, str]:
    """As rhea does: send ``first`` and at once ``behind`` (bytes the server will not need), all of
    it before reading anything, then end the stream and read until the server ends it: (everything
    read, "eof", or the error that ended the exchange - a reset answers bytes sent to a closed socket
    and destroys what the client had not read yet)."""
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        got = bytearray()
        try:
            sock.sendall(first + behind)
            sock.shutdown(socket.SHUT_WR)
            while data := sock.recv(65536):
                got += data
        except OSError as exc:
            return bytes(got), type(exc).__name__
    return bytes(got), "eof"


#: Bytes a client may send after its handshake before it reads the answer; more than one read takes.
BEHIND = 16 * 1024 * 1024


@on_both_loops
def test_mqtt_connack_ends_in_a_clean_close_not_a_reset_while_the_client_still_sends(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    connect = MqttClient(PROTOCOL_LEVEL_311).connect("pipelined")
    got, end = _answer_and_end(running.port(), connect, PINGREQ * (BEHIND // len(PINGREQ)))
    assert parse_connack(got, PROTOCOL_LEVEL_311).reason_code == 0x9C
    assert end == "eof"


@on_both_loops
def test_amqp_close_ends_in_a_clean_close_not_a_reset_while_the_client_still_sends(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    client = AmqpClient("pipelined", mechanism=None)
    got, end = _answer_and_end(running.port(), client.initiate(), AMQP_EMPTY_FRAME * (BEHIND // 8))
    closes = [e for e in client.receive_data(got) if isinstance(e, CloseReceived)]
    assert closes and closes[0].error.condition == "amqp:connection:redirect"
    assert end == "eof"


@pytest.fixture(scope="module")
def activemq(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ActiveMQ]:
    broker = start_activemq(tmp_path_factory.mktemp("activemq"))
    yield broker
    broker.stop()


@on_both_loops
def test_activemq_openwire_failover_client_follows_every_redirect_of_50_in_a_row(serve, activemq, tmp_path):
    """The ActiveMQ Classic client with a failover: URL follows the ConnectionControl on its own and
    ends up connected to the target, a real ActiveMQ broker (which serve's readiness check finds ready)."""
    command = openwire_client()
    running = serve(f"""
      <connectors><connector name="classic">tcp://127.0.0.1:{activemq.openwire_port}</connector></connectors>
      <connection-routers><connection-router name="r">
        <key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>
        <pool><quorum-timeout>20000</quorum-timeout>
          <static-connectors><connector-ref>classic</connector-ref></static-connectors></pool>
      </connection-router></connection-routers>""", routers=["r"], monitor=True)
    outcomes = run_json_lines(command + ["127.0.0.1", str(running.port()), str(IN_A_ROW), "ow"])
    assert [o["connected"] for o in outcomes] == [f"tcp://127.0.0.1:{activemq.openwire_port}"] * IN_A_ROW
    # the failover transport may pick serve again from its list (randomize) and be redirected once more
    assert {line["key"] for line in running.routes()} == {f"ow-{i}" for i in range(IN_A_ROW)}


@on_both_loops
def test_mqtt_over_websocket_connack_ends_in_a_clean_close_while_the_client_still_sends(serve):
    from artemis_routing_cli.protocols.websocket import BINARY, build_upgrade_request, client_frame, parse_frames

    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    connect = MqttClient(PROTOCOL_LEVEL_311).connect("pipelined")
    first = build_upgrade_request(subprotocols=["mqtt"]) + client_frame(BINARY, connect)
    ping = client_frame(BINARY, PINGREQ)
    got, end = _answer_and_end(running.port(), first, ping * (BEHIND // len(ping)))
    head, _, rest = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 101")
    frames, _ = parse_frames(rest)
    assert parse_connack(frames[0].payload, PROTOCOL_LEVEL_311).reason_code == 0x9C
    assert end == "eof"


@on_both_loops
def test_an_http_refusal_ends_in_a_clean_close_while_the_client_still_sends(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    request = b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: activemq-remoting\r\n\r\n"
    got, end = _answer_and_end(running.port(), request, b"x" * BEHIND)
    assert got == b"HTTP/1.1 403 Forbidden\r\n\r\n"
    assert end == "eof"


@on_both_loops
def test_openwire_connection_control_ends_in_a_clean_close_while_the_client_still_sends(serve):
    from .test_core_openwire import connection_info, wireformat_info

    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    null_command = b"\x00\x00\x00\x01\x00"  # a size-prefixed marshalled null: OpenWire's smallest frame
    got, end = _answer_and_end(running.port(), wireformat_info() + connection_info("FOO1"),
                               null_command * (BEHIND // len(null_command)))
    kinds = []
    while len(got) >= 5:
        size = int.from_bytes(got[:4], "big")
        kinds.append(got[4])
        got = got[4 + size:]
    assert kinds == [1, 2, 18]  # WireFormatInfo, BrokerInfo, ConnectionControl (the redirect)
    assert end == "eof"
