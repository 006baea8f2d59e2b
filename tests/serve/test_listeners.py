"""Listener settings read from the acceptor as the broker reads them: protocols=, --bind-host
acceptor, handshake-timeout and connectionsAllowed (ConfigurationHelper: parse, else the default)."""

from __future__ import annotations

import socket

import pytest

from artemis_routing_cli.config import load
from artemis_routing_cli.errors import UsageError
from artemis_routing_cli.serve.listeners import (
    acceptor_connections_allowed,
    acceptor_handshake_timeout,
    plan_listeners,
)
from tests.conftest import broker_xml
from tests.peers import free_port

from .conftest import HANG_GUARD, ROUTER_CORE, recv_until_closed

pytestmark = pytest.mark.network


def with_acceptor(url: str) -> str:
    return ROUTER_CORE.replace("<connection-routers>", f"""<acceptors>
        <acceptor name="a">{url}</acceptor></acceptors><connection-routers>""", 1)


def specs_for(tmp_path, url: str, bind_host: str | None = None):
    path = tmp_path / "broker.xml"
    path.write_text(broker_xml(with_acceptor(url)), encoding="utf-8")
    return plan_listeners(load(str(path)), [], [], bind_host)


@pytest.mark.parametrize(("value", "seconds", "noted"), [
    (None, None, False),  # not written: --handshake-timeout
    ("7", 7, False),
    (" 7", 10, True),  # Integer.parseInt does not trim: not an int, the broker's default 10
    ("abc", 10, True),
    ("0", None, True),  # the broker sets no timeout; serve keeps its own
    ("-3", None, True),
])
def test_handshake_timeout_is_get_int_property(value, seconds, noted):
    timeout, note = acceptor_handshake_timeout(value)
    assert timeout == seconds and (note is not None) == noted


@pytest.mark.parametrize(("value", "allowed", "noted"), [
    (None, None, False), ("-1", None, False), ("5", 5, False),
    ("0", 0, False),  # connections.size() < 0 never holds: every connection is refused
    ("-5", 0, False),
    ("abc", None, True), ("5 ", None, True),  # Long.parseLong, untrimmed: the default -1, no limit
])
def test_connections_allowed_is_get_long_property(value, allowed, noted):
    limit, note = acceptor_connections_allowed(value)
    assert limit == allowed and (note is not None) == noted


def test_unknown_protocols_are_a_start_up_warning_not_an_error(tmp_path):
    [spec] = specs_for(tmp_path, "tcp://0.0.0.0:61616?router=by-client;protocols=AMQP,FOO,mqtt")
    assert spec.protocols == ("AMQP",)
    assert any("'FOO', 'mqtt'" in note for note in spec.notes)
    [everything] = specs_for(tmp_path, "tcp://0.0.0.0:61616?router=by-client;protocols=FOO")
    assert everything.protocols is None and any("every protocol is served" in n for n in everything.notes)


def test_bind_host_acceptor_uses_the_socket_host_without_brackets(serve, tmp_path):
    port = free_port()
    running = serve(with_acceptor(f"tcp://[::1]:{port}?router=by-client"), listen=[], bind_host="acceptor")
    assert running.server.addresses["a"][:2] == ("::1", port)


def test_bind_host_acceptor_refuses_a_host_java_does_not_accept(tmp_path):
    with pytest.raises(UsageError, match="java.net.URI finds no host in 'my_broker:61616'"):
        specs_for(tmp_path, "tcp://my_broker:61616?router=by-client", bind_host="acceptor")


def test_connections_allowed_zero_refuses_every_connection(serve):
    port = free_port()
    running = serve(with_acceptor(f"tcp://0.0.0.0:{port}?router=by-client;connectionsAllowed=0"), listen=[])
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        assert recv_until_closed(sock) == b""
    [limit] = [r for r in running.records if r["event"] == "limit"]
    assert "(limit 0)" in limit["message"]


def test_acceptor_notes_are_said_at_start_up(serve):
    port = free_port()
    running = serve(with_acceptor(f"tcp://0.0.0.0:{port}?router=by-client;handshake-timeout=ten;protocols=XX"),
                    listen=[])
    said = [r["message"] for r in running.records if r["event"] == "startup"]
    assert any(m.startswith("acceptor a: handshake-timeout='ten' is not an int") for m in said)
    assert any(m.startswith("acceptor a: protocols= names 'XX'") for m in said)
