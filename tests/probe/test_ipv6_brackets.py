"""The broker's host keeps an IPv6 address's brackets (``[::1]``); only socket calls drop them."""

from __future__ import annotations

import asyncio

import pytest

from artemis_routing_cli.config.urls import parse_transport_url
from artemis_routing_cli.probe import jolokia
from artemis_routing_cli.probe.connect import open_connection
from artemis_routing_cli.probe.model import Endpoint
from artemis_routing_cli.probe.resolve import endpoint_for_url
from tests.peers import ipv6_loopback


def test_endpoint_keeps_the_brokers_host() -> None:
    endpoint = endpoint_for_url("b1", parse_transport_url("tcp://[::1]:61616"), "static")
    assert endpoint.host == "[::1]"


@pytest.mark.parametrize(("host", "url"), [
    ("[fe80::1]", "http://[fe80::1]:8161/j"), ("fe80::1", "http://[fe80::1]:8161/j"), ("b1", "http://b1:8161/j"),
])
def test_jolokia_url_has_one_pair_of_brackets(host: str, url: str) -> None:
    assert jolokia.url_for("http://{host}:8161/j", Endpoint("b", host, 61616)) == url


@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback here")
def test_connects_to_a_bracketed_ipv6_host() -> None:
    async def run() -> None:
        server = await asyncio.start_server(lambda r, w: w.close(), "::1", 0)
        port = server.sockets[0].getsockname()[1]
        try:
            conn = await open_connection(Endpoint("b", "[::1]", port), 5.0)
            await conn.close()
        finally:
            server.close()
            await server.wait_closed()

    asyncio.run(run())
