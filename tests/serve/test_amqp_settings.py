"""The acceptor's AMQP settings reach the answers: python-qpid-proton reads the Open's idle-time-out
and max-frame-size; SASL offers and refusals are compared byte for byte with frames written here
from the AMQP spec. The conversions are the broker's commons-beanutils 1.11 ones, as a JVM running
that library printed them."""

from __future__ import annotations

import socket
import struct

import pytest

from artemis_routing_cli.routing.targets import state_from_options
from artemis_routing_cli.serve.amqp_settings import (
    AmqpSettings,
    amqp_settings,
    bean_int,
    bean_long,
    bean_string_array,
)
from tests.peers import free_port
from tests.real_clients import import_peer

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops, recv_until_closed

proton = import_peer("proton", "python-qpid-proton")

from .test_amqp import Recorder  # noqa: E402

pytestmark = pytest.mark.network

AMQP_HEADER = b"AMQP\x00\x01\x00\x00"
SASL_HEADER = b"AMQP\x03\x01\x00\x00"


# --- what beanutils makes of the text (facts from a JVM with commons-beanutils 1.11.0) -------------
@pytest.mark.parametrize(("text", "value"), [
    ("5000", 5000), ("abc", 0), (" 5 ", 5), ("", 0), (None, 0), ("0x10", 0), ("5.5", 0), ("+7", 7),
    ("99999999999", 99999999999),
])
def test_long_wrapper_conversion(text, value):
    assert bean_long(text) == value


@pytest.mark.parametrize(("text", "value"), [("abc", 0), ("", 0), (None, 0), ("-1", -1), ("3000000000", 0)])
def test_int_conversion(text, value):
    assert bean_int(text) == value


@pytest.mark.parametrize(("text", "words"), [
    ("PLAIN", ["PLAIN"]), ("SCRAM-SHA-512,PLAIN", ["SCRAM-SHA-512", "PLAIN"]),
    ("{PLAIN,ANONYMOUS}", ["PLAIN", "ANONYMOUS"]), ('"P,Q",R', ["P,Q", "R"]), ("'A\\tB',C", ["A\tB", "C"]),
    ("X_Y,a/b,c", ["X", "Y", "a"]), ("A;B", ["A", "B"]), (" , ,", []), ("a.b-c,d", ["a.b-c", "d"]),
    ("Ä,é", ["Ä", "é"]), ('"\\101\\1012",x', ["AA2", "x"]), ('PLAIN"ANON', ["PLAIN", "ANON"]), ("/x", []),
    ("{}", []), ("{A", ["A"]), ("a,{b}", ["a", "b"]), ("EXTERNAL PLAIN", ["EXTERNAL", "PLAIN"]),
])
def test_string_array_conversion(text, words):
    assert bean_string_array(text) == words


def test_idle_timeout_precedence():
    assert amqp_settings({}).idle_timeout == 60_000  # ActiveMQClient.DEFAULT_CONNECTION_TTL
    assert amqp_settings({}, ttl_override=20_000).idle_timeout == 20_000
    assert amqp_settings({"amqpIdleTimeout": "8000"}, ttl_override=20_000).idle_timeout == 8000
    assert amqp_settings({"amqpIdleTimeout": "abc"}, ttl_override=20_000).idle_timeout == 0  # Long 0 wins
    assert amqp_settings({"amqpIdleTimeout": "-5"}).idle_timeout == 0  # a negative TTL is 0
    assert amqp_settings({"amqpIdleTimeout": str(2**32 + 1000)}).idle_timeout == 1000  # (int) ttl


def test_sasl_mechanisms_and_their_notes():
    assert amqp_settings({"saslMechanisms": ""}).mechanisms == ("ANONYMOUS",)  # AnonymousServerSASL alone
    scram = amqp_settings({"saslMechanisms": "SCRAM-SHA-256,PLAIN"})
    assert scram.mechanisms == ("SCRAM-SHA-256", "PLAIN") and "JAAS" in scram.notes[0]
    assert amqp_settings({"saslMechanisms": None}).mechanisms == ("PLAIN", "ANONYMOUS")


def test_the_failure_open_follows_the_settings():
    def open_frame(fields: bytes) -> bytes:
        body = b"\x00\x53\x10" + b"\xc0" + bytes([len(fields) + 1, 10]) + fields
        return struct.pack(">IBBH", 8 + len(body), 2, 0, 0) + body

    tail = b"\x40\x40\x40\x40" + b"\xc1\x28\x02\xa3\x24amqp:connection-establishment-failed\x41"
    start = b"\xa1\x00\x40"  # container-id "", hostname null
    assert AmqpSettings(max_frame_size=65536, idle_timeout=10_000).failure_open == open_frame(
        start + b"\x70\x00\x01\x00\x00" + b"\x60\xff\xff" + b"\x70\x00\x00\x13\x88" + tail)
    # no idle timeout: the field stays null; maxFrameSize 0: proton-j leaves the default 2^32-1
    assert AmqpSettings(max_frame_size=0, idle_timeout=0).failure_open == open_frame(
        start + b"\x70\xff\xff\xff\xff" + b"\x60\xff\xff" + b"\x40" + tail)


# --- through the listener ------------------------------------------------------------------------
def acceptor_core(port: int, query: str, extra: str = "") -> str:
    return ROUTER_CORE.replace("<connection-routers>", f"""{extra}<acceptors>
        <acceptor name="amqp">tcp://0.0.0.0:{port}?router=by-client;{query}</acceptor>
      </acceptors><connection-routers>""", 1)


class OpenRecorder(Recorder):
    """Records what the broker's Open said before its Close."""

    def on_connection_remote_open(self, event):
        transport = event.connection.transport
        self.remote_idle_timeout = transport.remote_idle_timeout
        self.remote_max_frame_size = transport.remote_max_frame_size


@on_both_loops
def test_proton_reads_the_acceptors_idle_timeout_and_max_frame_size(serve):
    port = free_port()
    running = serve(acceptor_core(port, "amqpIdleTimeout=10000;maxFrameSize=65536"), listen=[],
                    state=state_from_options(NODE_IDS))
    client = OpenRecorder(f"amqp://127.0.0.1:{running.port('amqp')}", container_id="FOO1", sasl_enabled=False)
    proton.reactor.Container(client).run()
    assert not client.timed_out
    assert client.condition.name == "amqp:connection:redirect"
    assert (client.remote_idle_timeout, client.remote_max_frame_size) == (5.0, 65536)


def test_connection_ttl_override_sets_the_idle_timeout(serve):
    port = free_port()
    core = acceptor_core(port, "protocols=AMQP", "<connection-ttl-override>16000</connection-ttl-override>")
    running = serve(core, listen=[], state=state_from_options(NODE_IDS))
    client = OpenRecorder(f"amqp://127.0.0.1:{running.port('amqp')}", container_id="FOO1", sasl_enabled=False)
    proton.reactor.Container(client).run()
    assert client.remote_idle_timeout == 8.0


def exchange(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)  # like a client that gives up after a failed outcome
        return recv_until_closed(sock)


def test_a_mechanism_the_acceptor_does_not_offer_gets_sys_and_the_amqp_header(serve):
    port = free_port()
    running = serve(acceptor_core(port, "saslMechanisms=PLAIN"), listen=[], state=state_from_options(NODE_IDS))
    init = b"\x00\x53\x41\xc0\x0c\x01\xa3\x09ANONYMOUS"  # sasl-init, mechanism ANONYMOUS
    answer = exchange(running.port("amqp"), SASL_HEADER + struct.pack(">IBBH", 8 + len(init), 2, 1, 0) + init)
    mechanisms = b"\x00\x53\x40\xc0\x0b\x01\xe0\x08\x01\xa3\x05PLAIN"  # [PLAIN] only
    outcome = b"\x00\x53\x44\xc0\x03\x01\x50\x02"  # code sys
    assert answer == (SASL_HEADER + struct.pack(">IBBH", 8 + len(mechanisms), 2, 1, 0) + mechanisms
                      + struct.pack(">IBBH", 8 + len(outcome), 2, 1, 0) + outcome + AMQP_HEADER)
    assert running.routes() == []


def test_proton_logs_in_with_plain_when_only_plain_is_offered(serve, tmp_path):
    users = tmp_path / "users.properties"
    users.write_text("alice=s3cret\n", encoding="latin-1")
    port = free_port()
    running = serve(acceptor_core(port, "saslMechanisms=PLAIN"), listen=[], users_file=str(users),
                    state=state_from_options(NODE_IDS))
    client = Recorder(f"amqp://alice:s3cret@127.0.0.1:{running.port('amqp')}", container_id="FOO1",
                      allowed_mechs="PLAIN ANONYMOUS")
    proton.reactor.Container(client).run()
    assert client.condition.name == "amqp:connection:redirect"
    assert [r["key"] for r in running.routes()] == ["FOO1"]
