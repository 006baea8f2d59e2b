"""Step 1 of a probe: resolve the host, open TCP, and do TLS (with SNI) when the connector asks.

TLS follows the broker's Netty connector defaults: the chain is verified (against ``--cafile``
or the system store) unless ``trustAll=true`` or ``--insecure``; the host name is checked only
when the connector says ``verifyHost=true`` (Artemis' default is false). SNI carries the
connector's ``sniHost`` when set, else its host (no SNI for an IP address, as in Java).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from dataclasses import dataclass

from ..config.model import socket_host
from .model import Endpoint


class ConnectFailure(Exception):
    """One line saying why the connection could not be made."""


@dataclass
class Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    latency_ms: float
    tls: str | None = None
    sni: str | None = None

    async def close(self) -> None:
        self.writer.close()
        try:
            await asyncio.wait_for(self.writer.wait_closed(), 1.0)
        except (OSError, asyncio.TimeoutError, ssl.SSLError):
            pass


def tls_context(endpoint: Endpoint, cafile: str | None, insecure: bool) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=cafile) if cafile else ssl.create_default_context()
    ctx.check_hostname = endpoint.verify_host and not (insecure or endpoint.trust_all)
    if insecure or endpoint.trust_all:
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


def _is_ip(host: str) -> bool:
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            socket.inet_pton(family, host)
            return True
        except OSError:
            continue
    return False


async def open_connection(
    endpoint: Endpoint, timeout: float, *, cafile: str | None = None, insecure: bool = False
) -> Connection:
    """Connect (DNS, TCP, TLS) within ``timeout`` seconds, or raise :class:`ConnectFailure`."""
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    deadline = started + timeout
    try:
        infos = await asyncio.wait_for(  # the broker's host keeps an IPv6 address's brackets; sockets do not
            loop.getaddrinfo(socket_host(endpoint.host), endpoint.port, type=socket.SOCK_STREAM), timeout
        )
    except asyncio.TimeoutError:
        raise ConnectFailure(f"DNS: resolving {endpoint.host} timed out after {timeout:g}s") from None
    except socket.gaierror as exc:
        raise ConnectFailure(f"DNS: cannot resolve {endpoint.host} ({exc.strerror})") from None
    family, _, _, _, address = infos[0]
    ctx = tls_context(endpoint, cafile, insecure) if endpoint.tls else None
    sni = socket_host(endpoint.sni_host or endpoint.host)
    # Python, like Java, sends no SNI for an IP address but still checks it when asked to.
    server_hostname = sni if ctx is not None else None
    remaining = max(deadline - time.perf_counter(), 0.001)
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(
                address[0], address[1], family=family, ssl=ctx, server_hostname=server_hostname,
                ssl_handshake_timeout=remaining if ctx is not None else None,
            ),
            remaining,
        )
    except asyncio.TimeoutError:
        what = "TCP connect or TLS handshake" if ctx is not None else "TCP connect"
        raise ConnectFailure(f"{what} to {endpoint.host}:{endpoint.port} timed out after {timeout:g}s") from None
    except ssl.SSLCertVerificationError as exc:
        raise ConnectFailure(f"TLS: certificate not trusted ({exc.verify_message or exc.reason})") from None
    except ssl.SSLError as exc:
        raise ConnectFailure(f"TLS handshake failed ({exc.reason or exc})") from None
    except ConnectionRefusedError:
        raise ConnectFailure(f"connection refused by {endpoint.host}:{endpoint.port}") from None
    except OSError as exc:
        raise ConnectFailure(f"cannot connect to {endpoint.host}:{endpoint.port} ({exc.strerror or exc})") from None
    latency = (time.perf_counter() - started) * 1000.0
    tls_version = None
    if ctx is not None:
        ssl_object = writer.get_extra_info("ssl_object")
        tls_version = ssl_object.version() if ssl_object is not None else "TLS"
    sent_sni = server_hostname if server_hostname and not _is_ip(server_hostname) else None
    return Connection(reader, writer, latency, tls_version, sent_sni)
