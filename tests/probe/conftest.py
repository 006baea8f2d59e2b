"""Fixtures for probe tests: real peers on 127.0.0.1, stopped after each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .peers import JolokiaDouble, SilentListener, TlsServer, make_self_signed


@pytest.fixture
def silent() -> Iterator[SilentListener]:
    listener = SilentListener()
    yield listener
    listener.close()


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[TlsServer, Path]]:
    pytest.importorskip("cryptography")
    cert, key = make_self_signed(tmp_path)
    server = TlsServer(cert, key)
    yield server, cert
    server.close()


@pytest.fixture
def jolokia() -> Iterator[JolokiaDouble]:
    double = JolokiaDouble().start()
    yield double
    double.stop()
