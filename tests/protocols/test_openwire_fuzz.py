"""Hypothesis fuzzing of the OpenWire codec: random and mutated input may only raise ProtocolError."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from artemis_routing_cli.errors import ProtocolError
from artemis_routing_cli.protocols.openwire import ConnectionInfoReceived, OpenWireServer
from tests.protocols.test_openwire_codec import (
    client_connection_info_loose,
    client_connection_info_tight,
    client_wireformat,
)

VALID_TIGHT = client_wireformat() + client_connection_info_tight()
VALID_LOOSE = client_wireformat(tight=False) + client_connection_info_loose()


def _feed(chunks: list[bytes]) -> None:
    server = OpenWireServer(broker_id="b", broker_name="n")
    try:
        for chunk in chunks:
            for event in server.receive_data(chunk):
                server.reply(event)
                if isinstance(event, ConnectionInfoReceived):
                    server.redirect("h", 1)
    except ProtocolError:
        pass


@given(st.lists(st.binary(max_size=64), max_size=8))
def test_random_bytes(chunks: list[bytes]) -> None:
    _feed(chunks)


@settings(max_examples=300)
@given(st.data(), st.sampled_from([VALID_TIGHT, VALID_LOOSE]))
def test_mutated_valid_opening(data: st.DataObject, valid: bytes) -> None:
    raw = bytearray(valid)
    for _ in range(data.draw(st.integers(1, 6))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    _feed([bytes(raw[:cut]), bytes(raw[cut:])])
