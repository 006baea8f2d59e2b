"""Listener settings read from the acceptor as the broker reads them: protocols=, --bind-host
acceptor, handshake-timeout and connectionsAllowed (ConfigurationHelper: parse, else the default)."""

from __future__ import annotations

import socket

import pytest

from artemis_routing_cli.config import load
from artemis_routing_cli.errors import UsageError
from artemis_routing_cli.serve.listeners import (
    DEFAULT_WEBSOCKET,
    acceptor_connections_allowed,
    acceptor_handshake_timeout,
    acceptor_proxy_protocol,
    plan_listeners,
    websocket_settings,
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


@pytest.mark.parametrize(("value", "enabled", "noted"), [
    (None, False, False), ("true", True, False), ("TRUE", True, False), ("false", False, False),
    (" true", False, True), ("yes", False, True),  # Boolean.parseBoolean, untrimmed: false
])
def test_proxy_protocol_enabled_is_parse_boolean(value, enabled, noted):
    params = {} if value is None else {"proxyProtocolEnabled": value}
    got, note = acceptor_proxy_protocol(params)
    assert got is enabled and (note is not None) == noted


def test_websocket_settings_default_to_the_brokers():
    settings, notes = websocket_settings({}, {}, None)
    assert settings == DEFAULT_WEBSOCKET and notes == []
    assert (settings.max_frame_payload_length, settings.encoder_type) == (65536, "binary")


@pytest.mark.parametrize(("params", "length", "noted"), [
    ({"webSocketMaxFramePayloadLength": "1024"}, 1024, False),
    ({"stompMaxFramePayloadLength": "2048"}, 2048, True),  # deprecated, read when the new one is absent
    ({"webSocketMaxFramePayloadLength": "1024", "stompMaxFramePayloadLength": "2048"}, 1024, True),
    ({"webSocketMaxFramePayloadLength": "1k"}, 65536, True),  # not an int: logged, the default
    ({"webSocketMaxFramePayloadLength": "0"}, 0, True),  # every frame with a payload is refused
])
def test_websocket_max_frame_payload_length_is_read_as_the_broker_reads_it(params, length, noted):
    settings, notes = websocket_settings(params, {}, None)
    assert settings.max_frame_payload_length == length and bool(notes) == noted


def test_websocket_encoder_type_and_compression_only_count_as_transport_params():
    text, notes = websocket_settings({"webSocketEncoderType": "text"}, {}, None)
    assert text.encoder_type == "text" and notes == []
    bad, notes = websocket_settings({"webSocketEncoderType": "TEXT"}, {}, None)
    assert bad.encoder_type is None and any("AMQ229248" in n for n in notes)
    # written in an acceptor URL they are extraProps, which NettyAcceptor never reads
    ignored, notes = websocket_settings({}, {"webSocketEncoderType": "text"}, None)
    assert ignored.encoder_type == "binary" and any("extraProps" in n for n in notes)


def test_websocket_subprotocols_are_those_of_the_acceptors_protocols():
    settings, _ = websocket_settings({}, {}, ("MQTT",))
    assert settings.subprotocols and all(p.startswith("mqtt") for p in settings.subprotocols)


def test_acceptor_url_sets_proxy_and_websocket_on_the_listener(tmp_path):
    [spec] = specs_for(tmp_path, "tcp://0.0.0.0:61616?router=by-client;proxyProtocolEnabled=true;"
                                 "webSocketMaxFramePayloadLength=100")
    assert spec.proxy_protocol and spec.websocket.max_frame_payload_length == 100
