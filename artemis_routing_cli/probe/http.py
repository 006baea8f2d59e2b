"""A tiny HTTP/1.1 client on asyncio streams (one request per connection), for Jolokia reads.

Only what a Jolokia read needs: one request with ``Connection: close``, a status line, headers,
and a body framed by Content-Length, chunked transfer coding, or the end of the stream.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

#: A Jolokia read of three attributes is a few hundred bytes; anything past this is not Jolokia.
MAX_RESPONSE_BYTES = 1 << 20
MAX_HEADER_LINES = 100


class HttpError(Exception):
    """One line saying why the request failed (no answer, not HTTP, too big)."""


@dataclass(frozen=True)
class Response:
    status: int
    reason: str
    headers: dict[str, str]
    body: bytes


def _target(url: str) -> tuple[str, str, int, str, bool]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HttpError(f"not an http(s) URL: {url}")
    tls = parts.scheme == "https"
    port = parts.port or (443 if tls else 80)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    host_header = parts.netloc.rsplit("@", 1)[-1]
    return parts.hostname, host_header, port, path, tls


async def request(
    method: str, url: str, *, body: bytes = b"", headers: dict[str, str] | None = None,
    timeout: float, ssl_context: ssl.SSLContext | None = None,
) -> Response:
    """Send one request and read the whole response within ``timeout`` seconds."""
    try:
        return await asyncio.wait_for(_request(method, url, body, headers or {}, ssl_context), timeout)
    except asyncio.TimeoutError:
        raise HttpError(f"no HTTP answer from {_safe(url)} within {timeout:g}s") from None
    except ssl.SSLError as exc:
        raise HttpError(f"TLS to {_safe(url)} failed ({exc.reason or exc})") from None
    except asyncio.IncompleteReadError:
        raise HttpError(f"{_safe(url)} closed the connection in the middle of its answer") from None
    except ConnectionRefusedError:
        raise HttpError(f"connection refused by {_safe(url)}") from None
    except OSError as exc:
        raise HttpError(f"cannot reach {_safe(url)} ({exc.strerror or exc})") from None


def _safe(url: str) -> str:
    """The URL without any user:password part."""
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return parts._replace(netloc=netloc).geturl()


async def _request(method: str, url: str, body: bytes, headers: dict[str, str],
                   ssl_context: ssl.SSLContext | None) -> Response:
    host, host_header, port, path, tls = _target(url)
    if tls and ssl_context is None:
        ssl_context = ssl.create_default_context()
    reader, writer = await asyncio.open_connection(host, port, ssl=ssl_context if tls else None)
    try:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {host_header}", "Connection: close",
                 f"Content-Length: {len(body)}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        await writer.drain()
        return await _read_response(reader)
    finally:
        writer.close()


async def _read_response(reader: asyncio.StreamReader) -> Response:
    status_line = (await reader.readline()).decode("latin-1").rstrip("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise HttpError(f"not an HTTP response: {status_line[:60]!r}")
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADER_LINES):
        line = (await reader.readline()).decode("latin-1").rstrip("\r\n")
        if not line:
            break
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    else:
        raise HttpError("too many HTTP header lines")
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = await _read_chunked(reader)
    elif "content-length" in headers:
        try:
            size = int(headers["content-length"])
        except ValueError:
            raise HttpError(f"bad Content-Length {headers['content-length'][:20]!r}") from None
        if size > MAX_RESPONSE_BYTES:
            raise HttpError(f"HTTP body of {size} bytes is too big")
        body = await reader.readexactly(size)
    else:
        body = await reader.read(MAX_RESPONSE_BYTES + 1)
        if len(body) > MAX_RESPONSE_BYTES:
            raise HttpError("HTTP body is too big")
    return Response(int(parts[1]), parts[2] if len(parts) > 2 else "", headers, body)


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    out = bytearray()
    while True:
        size_line = (await reader.readline()).decode("latin-1").strip()
        try:
            size = int(size_line.split(";", 1)[0], 16)
        except ValueError:
            raise HttpError(f"bad HTTP chunk size {size_line[:20]!r}") from None
        if size == 0:
            return bytes(out)
        if len(out) + size > MAX_RESPONSE_BYTES:
            raise HttpError("HTTP body is too big")
        out += await reader.readexactly(size)
        await reader.readline()
