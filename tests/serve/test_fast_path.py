"""A plain hello that comes whole is answered within the read that delivered it, without a session
coroutine (``serve/fast.py``), and everything else goes to the session as before. Both ways must give
the same bytes on the wire, the same route lines and the same counters: each hello is sent whole
with the fast path on and then with it switched off on the same listener (``Listener.fast``), and
the two are compared. Real sockets on 127.0.0.1, real server."""

from __future__ import annotations

import io
import re
import socket
import struct

import pytest

from artemis_routing_cli.protocols.amqp import AMQP_HEADER, SASL_HEADER, Open, encode_open
from artemis_routing_cli.protocols.amqp_quick import quick_open
from artemis_routing_cli.protocols.mqtt import PROTOCOL_LEVEL_5, USER_PROPERTY, MqttClient, parse_connack
from artemis_routing_cli.protocols.mqtt_quick import quick_connect
from artemis_routing_cli.routing.targets import state_from_options
from artemis_routing_cli.serve.log import BackgroundWriter, ServeLog
from tests.peers import ipv6_loopback

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops, recv_until_closed
from .test_core_openwire import connection_info, create_session, frame, read_frames, wireformat_info

pytestmark = pytest.mark.network

MQTT_311 = 4


def listener_of(running):
    return running.server._listeners["listen-1"]


def answered_at_once(running) -> int:
    return running.call(lambda: listener_of(running).answered_at_once)


def set_fast(running, on: bool) -> None:
    def switch() -> None:
        listener_of(running).fast = on
    running.call(switch)


def exchange(running, hello: bytes) -> bytes:
    """Send ``hello`` in one write and read until the server closes."""
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(hello)
        return recv_until_closed(sock)


def counters(running) -> str:
    """The listener's and router's counters as /metrics renders them, without the gauges."""
    text = running.call(running.server.metrics.render)
    return "\n".join(line for line in text.splitlines() if "_total" in line and not line.startswith("#"))


def comparable(record: dict) -> dict:
    """A log record without what differs between two connections (time, client port)."""
    address = str(record.get("remote", "")).lstrip("/")
    return {k: v for k, v in record.items() if k not in ("ts", "remote", "message")} | {
        "message": record["message"].replace(address, "ADDRESS")}


def both_ways(running, hello: bytes) -> tuple[bytes, bytes]:
    """(answer, log records, counters added) with the fast path on, then the same with it off."""
    results = []
    for fast in (True, False):
        set_fast(running, fast)
        before_records = len(running.records)
        before_counters = counters(running)
        answer = exchange(running, hello)
        records = [comparable(r) for r in list(running.records)[before_records:]]
        results.append((answer, records, before_counters))
    set_fast(running, True)
    return results  # type: ignore[return-value]


def amqp_hello(container_id: str) -> bytes:
    return AMQP_HEADER + encode_open(Open(container_id=container_id))


@on_both_loops
@pytest.mark.parametrize("level", [MQTT_311, PROTOCOL_LEVEL_5], ids=["mqtt-3.1.1", "mqtt-5"])
@pytest.mark.parametrize("client_id", ["FOO1", "LOCAL-1"], ids=["redirect", "local-refused"])
def test_mqtt_answers_are_the_same_either_way(serve, level, client_id):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    hello = MqttClient(level).connect(client_id)
    (fast, fast_logs, counters_0), (session, session_logs, counters_1) = both_ways(running, hello)
    assert fast == session and fast_logs == session_logs and len(fast_logs) == 1
    assert fast_logs[0]["key"] == client_id and "ADDRESS" in fast_logs[0]["message"]
    assert parse_connack(fast, level).reason_code == 0x9C  # use another server: redirect, or the local refusal
    assert answered_at_once(running) == 1  # the first one only: the second went to the session
    # each way added the same counts: after the first the counters moved by what the second added again
    after = counters(running)
    assert counters_0 != counters_1 != after
    assert _added(counters_0, counters_1) == _added(counters_1, after)


def _added(before: str, after: str) -> dict[str, float]:
    def parse(text: str) -> dict[str, float]:
        return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line}
    old, new = parse(before), parse(after)
    return {name: value - old.get(name, 0) for name, value in new.items() if value != old.get(name, 0)}


@on_both_loops
@pytest.mark.parametrize("container_id", ["FOO1", "LOCAL-1"], ids=["redirect", "local-refused"])
def test_amqp_answers_are_the_same_either_way(serve, container_id):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    (fast, fast_logs, c0), (session, session_logs, c1) = both_ways(running, amqp_hello(container_id))
    assert fast == session and fast.startswith(AMQP_HEADER) and fast_logs == session_logs
    assert fast_logs[0]["key"] == container_id
    assert answered_at_once(running) == 1
    assert _added(c0, c1) == _added(c1, counters(running))


@on_both_loops
@pytest.mark.parametrize("hello", [MqttClient().connect("FOO1"), MqttClient(MQTT_311).connect("LOCAL-1", username="u"),
                                   amqp_hello("FOO1"), amqp_hello("LOCAL-1")],
                         ids=["mqtt5-redirect", "mqtt311-user-refused", "amqp-redirect", "amqp-refused"])
def test_text_route_lines_are_the_same_either_way(serve, hello):
    """As ``arouter serve`` logs by default: text lines through the background writer (its thread never
    drains here: the lines stay on its queue, where the test reads them)."""
    writer = BackgroundWriter(io.StringIO(), interval=HANG_GUARD * 100)
    running = serve(ROUTER_CORE, log=ServeLog("text", writer=writer), routers=["by-client"],
                    state=state_from_options(NODE_IDS))
    lines = []
    for fast in (True, False):
        set_fast(running, fast)
        before = len(writer.pending)
        exchange(running, hello)
        added = running.call(lambda: list(writer.pending)[before:])  # noqa: B023 - called at once
        [line] = [line for line in added if "AMQ22108" in line]
        _stamp, _, message = line.partition(" INFO  ")
        lines.append(re.sub(r"127\.0\.0\.1:\d+ ", "127.0.0.1:PORT ", message, count=1))  # the client's port
    assert answered_at_once(running) == 1
    assert lines[0] == lines[1] and lines[0].startswith(("AMQ221085: Route 127.0.0.1:PORT to ",
                                                         "AMQ221086: Cannot route 127.0.0.1:PORT "))
    assert ("AMQ221086" in lines[0]) == (b"LOCAL-1" in hello)  # the local target, without --local-target


@on_both_loops
@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback here")
@pytest.mark.parametrize("hello", [MqttClient().connect("FOO1"), amqp_hello("LOCAL-1")], ids=["mqtt5", "amqp"])
def test_an_ipv6_peer_gets_the_same_text_route_line_either_way(serve, hello):
    """The fast path writes an IPv4 peer's (host, port) into the line itself; any other peername goes
    through the address the session uses (as Java prints it)."""
    writer = BackgroundWriter(io.StringIO(), interval=HANG_GUARD * 100)
    running = serve(ROUTER_CORE, log=ServeLog("text", writer=writer), listen=["[::1]:0"], routers=["by-client"],
                    state=state_from_options(NODE_IDS))
    lines = []
    for fast in (True, False):
        set_fast(running, fast)
        before = len(writer.pending)
        with socket.create_connection(("::1", running.port()), timeout=HANG_GUARD) as sock:
            own_port = sock.getsockname()[1]
            sock.sendall(hello)
            recv_until_closed(sock)
        added = running.call(lambda: list(writer.pending)[before:])  # noqa: B023 - called at once
        [line] = [line for line in added if "AMQ22108" in line]
        lines.append(line.partition(" INFO  ")[2].replace(f"[0:0:0:0:0:0:0:1]:{own_port} ", "PEER "))
    assert answered_at_once(running) == 1
    assert lines[0] == lines[1] and lines[0].startswith(("AMQ221085: Route PEER to ", "AMQ221086: Cannot route PEER "))


# hellos the one-pass readers (protocols/mqtt_quick.py, amqp_quick.py) take, and ones they leave to the codec
QUICK_AND_CODEC_HELLOS = {
    "mqtt5-user-password": (MqttClient().connect("FOO1", username="alice", password="pw"), True),
    "mqtt311-user": (MqttClient(MQTT_311).connect("LOCAL-1", username="bob"), True),
    "mqtt5-properties": (MqttClient().connect("FOO1", username="alice", properties={USER_PROPERTY: [("k", "v")]}),
                         False),
    "mqtt31": (MqttClient(3).connect("FOO1"), False),
    "amqp-hostname": (AMQP_HEADER + encode_open(Open("FOO1", hostname="broker.example")), True),
    "amqp-full-open": (AMQP_HEADER + encode_open(Open("FOO1", hostname="h", max_frame_size=4096, channel_max=9,
                                                      properties={"product": "x"})), False),
}


@on_both_loops
@pytest.mark.parametrize("name", list(QUICK_AND_CODEC_HELLOS))
def test_hellos_read_in_one_pass_or_by_the_codec_get_the_same_answers_either_way(serve, name):
    hello, quick = QUICK_AND_CODEC_HELLOS[name]
    reader = quick_open(hello, 0) if hello[:1] == b"A" else quick_connect(hello, 1 << 20)
    assert (reader is not None) == quick  # which way this hello takes through serve/fast.py
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    (fast, fast_logs, c0), (session, session_logs, c1) = both_ways(running, hello)
    assert fast == session and fast_logs == session_logs and len(fast_logs) == 1
    assert answered_at_once(running) == 1
    assert _added(c0, c1) == _added(c1, counters(running))


@on_both_loops
def test_core_and_openwire_and_amqp_with_sasl_always_go_to_the_session(serve):
    """Their clients wait for an answer before they ask for a session: the first read never holds
    the whole hello, so the fast path declines and the answers are the session's."""
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    openwire = wireformat_info() + connection_info("FOO1")
    assert exchange(running, openwire) != b""
    core = (b"ARTEMIS" + frame(10, 0, struct.pack(">q", 60000))
            + frame(113, 0, b"\x00" + struct.pack(">i", 136)) + create_session("FOO1"))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(core)
        ping, _topology, disconnect, exception = read_frames(sock, 4)
    assert ping == frame(10, 0, struct.pack(">q", 60000)) and disconnect[4:5] == struct.pack(">b", -19)
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(SASL_HEADER)
        got = b""
        while len(got) < len(SASL_HEADER):
            data = sock.recv(65536)
            assert data
            got += data
        assert got.startswith(SASL_HEADER)  # then sasl-mechanisms: the session's round trip
    assert answered_at_once(running) == 0
    assert [r["key"] for r in running.routes()] == ["FOO1", "FOO1"]


@on_both_loops
def test_a_split_connect_goes_to_the_session_and_gets_the_same_answer(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    hello = MqttClient().connect("FOO1")
    whole = exchange(running, hello)
    assert answered_at_once(running) == 1
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(hello[:-1])
        _until_read(running, len(hello) - 1)  # the server has read the first part on its own
        sock.sendall(hello[-1:])
        split = recv_until_closed(sock)
    assert split == whole
    assert answered_at_once(running) == 1  # unchanged: the split hello went to the session
    assert len(running.routes()) == 2


def _until_read(running, count: int) -> None:
    """Until the listener's one open connection has read ``count`` bytes (asked on the server's loop,
    a bounded number of times: each ask is one round trip to the loop, no sleeping)."""
    def received() -> int:
        return sum(conn.received for conn in listener_of(running).handshake_deadlines._due)
    for _ in range(100_000):
        if running.call(received) >= count:
            return
    raise AssertionError(f"the server never read {count} bytes")


@on_both_loops
def test_after_an_answer_at_once_pipelined_bytes_are_discarded_and_the_socket_closes_with_the_client(serve):
    """The session's discipline after its answer, kept: FIN, then whatever the client still sends is
    read and dropped until it closes (no reset that could destroy the answer), then the socket goes."""
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    subscribe = bytes([0x82, 0x08, 0x00, 0x01, 0x00, 0x03]) + b"a/b" + b"\x00"
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(MqttClient().connect("FOO1") + subscribe)
        sock.settimeout(HANG_GUARD)
        answer = b""
        while True:
            data = sock.recv(65536)
            if not data:
                break  # the server's FIN: it half-closed after the answer
            answer += data
        assert parse_connack(answer).server_reference == "10.0.0.2:61618"
        assert running.call(lambda: running.server.metrics.get("arouter_connections_open",
                                                               listener="listen-1")) == 1  # lingering
        sock.sendall(subscribe)  # read and dropped
        sock.shutdown(socket.SHUT_WR)
        assert recv_until_closed(sock) == b""
    assert answered_at_once(running) == 1
    for _ in range(100_000):  # the close reaches the server's loop
        if running.call(lambda: running.server.metrics.get("arouter_connections_open", listener="listen-1")) == 0:
            break
    assert running.call(lambda: running.server.metrics.get("arouter_connections_open", listener="listen-1")) == 0


@on_both_loops
def test_an_oversized_or_unauthenticated_hello_goes_to_the_session(serve, tmp_path):
    users = tmp_path / "users.properties"
    users.write_text("alice=secret\n", encoding="utf-8")
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS),
                    users_file=str(users))
    answer = exchange(running, MqttClient().connect("FOO1", username="alice", password="wrong"))
    assert parse_connack(answer).reason_code == 0x86
    assert answered_at_once(running) == 0
    limited = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS), max_frame_size=64)
    assert exchange(limited, MqttClient().connect("F" * 100)) == b""
    assert answered_at_once(limited) == 0
    assert limited.wait_for(lambda r: r.get("reason") == "oversize", "the oversize drop")["protocol"] == "unknown"


@on_both_loops
def test_a_hello_exactly_at_the_read_budget_is_answered_at_once_as_the_session_answers_it(serve):
    hello = MqttClient().connect("FOO1")
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS),
                    max_frame_size=len(hello))
    (fast_answer, fast_records, _), (slow_answer, slow_records, _) = both_ways(running, hello)
    assert answered_at_once(running) == 1
    assert fast_answer == slow_answer and parse_connack(fast_answer).reason_code == 0x9C
    assert fast_records == slow_records
    below = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS),
                  max_frame_size=len(hello) - 1)
    assert exchange(below, hello) == b""
    assert answered_at_once(below) == 0
