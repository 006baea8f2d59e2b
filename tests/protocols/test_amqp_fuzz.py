"""Fuzzing the AMQP codec: random and mutated input raises ProtocolError or nothing, and always ends."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.amqp import (
    AMQP_HEADER,
    SASL_HEADER,
    AmqpClient,
    AmqpServer,
    OpenReceived,
    SaslInit,
    broker_failure_open,
    encode_close,
    encode_open,
    encode_sasl_init,
    encode_sasl_mechanisms,
    encode_sasl_outcome,
    plain_response,
    redirect_error,
)
from artemis_routing_cli.protocols.amqp_types import decode
from tests.protocols.mutation import mutated

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

CLIENT_STREAM = (
    SASL_HEADER
    + encode_sasl_init("PLAIN", plain_response("user", "pw"), "host")
    + AMQP_HEADER
    + encode_open(broker_failure_open())
    + encode_close(None)
)
SERVER_STREAM = (
    SASL_HEADER
    + encode_sasl_mechanisms(("PLAIN", "ANONYMOUS"))
    + encode_sasl_outcome(0)
    + AMQP_HEADER
    + encode_open(broker_failure_open())
    + encode_close(redirect_error("r", "h", 1))
)


def chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(points, points[1:], strict=False)]


def run_server(data: bytes, cuts: list[int]) -> list:
    server = AmqpServer()
    seen: list = []
    for chunk in chunks(data, cuts):
        pending = server.receive_data(chunk)
        while pending:
            event = pending.pop(0)
            seen.append(event)
            if isinstance(event, SaslInit):
                server.sasl_outcome(True)
                pending += server.receive_data(b"")
            elif isinstance(event, OpenReceived):
                server.redirect("r", "h", 1)
        server.data_to_send()
    return seen


def drive_server(data: bytes, cuts: list[int]) -> None:
    try:
        run_server(data, cuts)
    except ProtocolError:
        pass


def drive_client(data: bytes, cuts: list[int]) -> None:
    client = AmqpClient("c", mechanism="PLAIN", username="u", password="p")
    client.initiate()
    try:
        for chunk in chunks(data, cuts):
            client.receive_data(chunk)
            client.data_to_send()
    except ProtocolError:
        pass


@FUZZ
@given(st.binary(max_size=300), st.lists(st.integers(0, 400), max_size=5))
def test_server_random_bytes(data, cuts):
    drive_server(data, cuts)
    drive_server(AMQP_HEADER + data, cuts)
    drive_server(SASL_HEADER + data, cuts)


@FUZZ
@given(mutated([CLIENT_STREAM]), st.lists(st.integers(0, 400), max_size=5))
def test_server_mutated_client_stream(data, cuts):
    drive_server(data, cuts)


@FUZZ
@given(st.binary(max_size=300), st.lists(st.integers(0, 400), max_size=5))
def test_client_random_bytes(data, cuts):
    drive_client(data, cuts)
    drive_client(SASL_HEADER + data, cuts)


@FUZZ
@given(mutated([SERVER_STREAM]), st.lists(st.integers(0, 400), max_size=5))
def test_client_mutated_server_stream(data, cuts):
    drive_client(data, cuts)


@FUZZ
@given(st.binary(max_size=200))
def test_type_decoder_random_bytes(data):
    try:
        decode(data)
    except ProtocolError:
        pass


def test_unmutated_streams_run_clean():
    # the fuzz baselines themselves must be valid, or the mutations prove little
    events = run_server(CLIENT_STREAM, [])
    assert [type(e).__name__ for e in events] == [
        "ProtocolHeaderReceived",
        "SaslInit",
        "ProtocolHeaderReceived",
        "OpenReceived",
        "CloseReceived",
    ]
    client = AmqpClient("c", mechanism="PLAIN", username="u", password="p")
    client.initiate()
    events = client.receive_data(SERVER_STREAM)
    assert events[-1].error.condition == "amqp:connection:redirect"
