"""serve's own files (TLS certificate and key, users and roles) are regular files: a FIFO never blocks it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from artemis_routing_cli.errors import UsageError
from artemis_routing_cli.serve.auth import read_properties
from artemis_routing_cli.serve.tls import server_context


def test_fifo_as_tls_certificate_or_key_is_refused_before_openssl_reads_it(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="--tls-cert: file is a FIFO"):
        server_context(str(fifo), str(fifo))


def test_fifo_or_device_as_users_file_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="FIFO"):
        read_properties(str(fifo), "--users-file")
    with pytest.raises(UsageError, match="character device"):
        read_properties("/dev/zero", "--users-file")
