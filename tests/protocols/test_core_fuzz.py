"""Hypothesis fuzzing of the CORE codec: random and mutated input may only raise ProtocolError."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.core import CoreClient, CoreServer, CreateSessionReceived

VALID = (
    CoreClient.handshake_bytes()
    + CoreClient.subscribe_topology_bytes()
    + CoreClient.create_session_bytes("sess", username="u", password="p", client_id="client-id-123456789")
)


def _feed_server(chunks: list[bytes]) -> None:
    server = CoreServer(node_id="n", router="r")
    try:
        for chunk in chunks:
            for event in server.receive_data(chunk):
                server.reply(event, unique_event_id=1)
                if isinstance(event, CreateSessionReceived):
                    server.redirect("t", "c", "h", 1)
    except ProtocolError:
        pass


def _feed_client(data: bytes) -> None:
    try:
        CoreClient().receive_data(data)
    except ProtocolError:
        pass


@given(st.lists(st.binary(max_size=64), max_size=8))
def test_random_bytes_server(chunks: list[bytes]) -> None:
    _feed_server([b"ARTEMIS", *chunks])
    _feed_server(chunks)


@given(st.binary(max_size=256))
def test_random_bytes_client(data: bytes) -> None:
    _feed_client(data)


@settings(max_examples=300)
@given(st.data())
def test_mutated_valid_opening(data: st.DataObject) -> None:
    raw = bytearray(VALID)
    for _ in range(data.draw(st.integers(1, 6))):
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    _feed_server([bytes(raw[:cut]), bytes(raw[cut:])])


@settings(max_examples=200)
@given(st.data())
def test_mutated_server_answers_for_the_client(data: st.DataObject) -> None:
    server = CoreServer(node_id="node", router="r")
    events = server.receive_data(VALID)
    out = b"".join(server.reply(e) for e in events[:-1])
    out += server.redirect("t", "conn", "host", 61616, {"host": "h", "port": "1", "x": True, "y": 5})
    raw = bytearray(out)
    for _ in range(data.draw(st.integers(1, 6))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    _feed_client(bytes(raw))
