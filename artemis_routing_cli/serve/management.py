"""Management HTTP for ``arouter serve`` (``--management HOST:PORT``, 127.0.0.1 by default):

* ``/console/jolokia`` (also ``/jolokia``): the router MBeans (see :mod:`.jolokia`) - ``GET
  /console/jolokia/exec/<mbean>/<operation>/<arg>`` and ``.../read/<mbean>/<attribute>``
  (Jolokia path escapes ``!/`` and ``!!``), or a POSTed JSON request or list of requests;
* ``/metrics``: Prometheus text; ``/healthz``: ``{"status": "ok", ...}`` (never authenticated).

Basic authentication is opt-in (``--management-user``, the password from an environment
variable). A deliberately small HTTP/1.1 handler on asyncio streams: one request per connection,
bounded head and body, ``Connection: close``.
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import ipaddress
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import UsageError
from ..safeio import JsonError, loads_json
from .jolokia import RouterControl
from .metrics import Metrics

MAX_HEAD_BYTES = 16 * 1024  # request line + headers
MAX_BODY_BYTES = 1024 * 1024
MAX_BULK_REQUESTS = 1_000  # requests in one POSTed list
READ_TIMEOUT = 10.0
JOLOKIA_PREFIXES = ("/console/jolokia", "/jolokia")

_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed",
            408: "Request Timeout", 413: "Payload Too Large", 500: "Internal Server Error"}


def split_jolokia_path(path: str) -> list[str]:
    """Split a Jolokia GET path on ``/``, honouring ``!/`` (a slash) and ``!!`` (a ``!``)."""
    parts: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(path):
        c = path[i]
        if c == "!" and i + 1 < len(path):
            current.append(path[i + 1])
            i += 2
            continue
        if c == "/":
            parts.append("".join(current))
            current = []
        else:
            current.append(c)
        i += 1
    parts.append("".join(current))
    return [unquote(p) for p in parts if p != ""]


def request_from_path(rest: str) -> dict[str, Any]:
    parts = split_jolokia_path(rest)
    if not parts:
        return {"type": "version"}
    kind = parts[0].lower()
    if kind == "exec" and len(parts) >= 3:
        return {"type": "exec", "mbean": parts[1], "operation": parts[2], "arguments": parts[3:]}
    if kind == "read" and len(parts) >= 2:
        request: dict[str, Any] = {"type": "read", "mbean": parts[1]}
        if len(parts) >= 3:
            request["attribute"] = parts[2]
        return request
    if kind == "write" and len(parts) >= 4:
        return {"type": "write", "mbean": parts[1], "attribute": parts[2], "value": parts[3]}
    return {"type": kind}


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (a literal loopback address or ``localhost``)."""
    name = host.strip().strip("[]").lower()
    if name in ("localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(name.split("%", 1)[0]).is_loopback
    except ValueError:
        return False  # another host name: it may resolve to any interface


def check_management_bind(host: str, user: str | None, insecure: bool) -> str | None:
    """Refuse management on a non-loopback address without authentication (anyone who reaches it can
    change the routers' filters); with ``--management-insecure`` the warning to log instead."""
    if user is not None or is_loopback(host):
        return None
    if not insecure:
        raise UsageError(f"--management on {host or 'every interface'} without --management-user: anyone who "
                         "reaches it could change the routers' filters (use --management-user, a loopback "
                         "address, or --management-insecure to allow it anyway)")
    return (f"management on {host or 'every interface'} without authentication (--management-insecure): "
            "anyone who reaches it can change the routers' filters")


Answer = tuple[int, dict[str, str], bytes]  # status, headers, body


@dataclass(frozen=True)
class _Request:
    method: str
    target: str
    fields: dict[str, str]
    body: bytes


class ManagementServer:
    def __init__(self, control: RouterControl, metrics: Metrics, health: Callable[[], dict[str, Any]],
                 user: str | None = None, password: str | None = None) -> None:
        self.control = control
        self.metrics = metrics
        self.health = health
        self.user = user
        self._password = password

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            # Only the reading is bounded in time: once the request is in, the answer is worked out
            # whatever it takes (it is bounded by the body's size), and the client is told its outcome -
            # a filter compiled after a timeout answer would be set while the client was told it was not.
            read = await asyncio.wait_for(self._read(reader), READ_TIMEOUT)
            status, headers, body = read if not isinstance(read, _Request) else await self._serve(read)
        except asyncio.TimeoutError:
            status, headers, body = _error(408, "java.io.IOException", "no complete request in time")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError, UnicodeError):
            status, headers, body = _error(400, "java.lang.IllegalArgumentException", "bad request")
        except (ConnectionError, OSError):
            writer.close()
            return
        except Exception as exc:  # a bug of arouter's: still one JSON answer, and the loop goes on
            status, headers, body = _error(500, "java.lang.IllegalStateException",
                                           f"internal error: {type(exc).__name__}")
        head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}"]
        headers = {**headers, "Content-Length": str(len(body)), "Connection": "close"}
        head += [f"{k}: {v}" for k, v in headers.items()]
        try:
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
            await writer.drain()
            await _linger(reader, writer)
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def _read(self, reader: asyncio.StreamReader) -> _Request | Answer:
        """The request (head and body), or the error answer when it is refused before its body."""
        raw = await reader.readuntil(b"\r\n\r\n")
        if len(raw) > MAX_HEAD_BYTES:
            raise ValueError("request head too large")
        lines = raw.decode("latin-1").split("\r\n")
        method, target, _version = lines[0].split(" ", 2)
        fields: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip()
        declared = fields.get("content-length", "0").strip() or "0"
        if not declared.isascii() or not declared.isdigit():
            return _error(400, "java.lang.IllegalArgumentException", "bad Content-Length")
        if len(declared) > 12 or int(declared) > MAX_BODY_BYTES:
            return _error(413, "java.lang.IllegalArgumentException",
                          f"request body over {MAX_BODY_BYTES:,} bytes")
        length = int(declared)
        body = await reader.readexactly(length) if length else b""
        return _Request(method, target, fields, body)

    async def _serve(self, request: _Request) -> Answer:
        method, target, fields, body = request.method, request.target, request.fields, request.body
        path = urlsplit(target).path
        if path == "/healthz":
            return _json(200, self.health())
        if not self._authorized(fields.get("authorization")):
            status, headers, body = _error(401, "java.lang.SecurityException", "authentication required")
            return status, {"WWW-Authenticate": 'Basic realm="arouter"', **headers}, body
        if path == "/metrics":
            metrics = _scrubbed(self.metrics.render())
            return 200, {"Content-Type": "text/plain; version=0.0.4; charset=utf-8"}, metrics.encode()
        prefix = next((p for p in JOLOKIA_PREFIXES if path == p or path.startswith(p + "/")), None)
        if prefix is None:
            return _error(404, "java.lang.IllegalArgumentException", "not found")
        if method == "GET":
            return _json(200, await self._answer(request_from_path(target.split("?", 1)[0][len(prefix):])))
        if method == "POST":
            try:
                payload = loads_json(body.decode("utf-8"))
            except UnicodeDecodeError:
                return _json(200, _invalid("not UTF-8"))
            except JsonError as exc:
                return _json(200, _invalid(f"{exc.msg} at line {exc.line}, column {exc.column}"))
            if isinstance(payload, list):
                if len(payload) > MAX_BULK_REQUESTS:
                    return _json(200, _invalid(f"more than {MAX_BULK_REQUESTS} requests in one list"))
                return _json(200, await self._answer(*payload, bulk=True))
            return _json(200, await self._answer(payload))
        status, headers, body = _error(405, "java.lang.UnsupportedOperationException", f"method {method[:20]}")
        return status, {"Allow": "GET, POST", **headers}, body

    async def _answer(self, *requests: object, bulk: bool = False) -> Any:
        """The Jolokia answer(s), worked out in a worker thread, not on the event loop: a filter set
        through management is compiled there (Python work that grows with the pattern: a 100 KB one
        takes seconds), and a worker thread leaves the interpreter to the loop every switch interval,
        so the redirects of other connections go on meanwhile."""
        def work() -> Any:
            answers = [self.control.answer(request) for request in requests]
            return answers if bulk else answers[0]

        return await asyncio.to_thread(work)

    def _authorized(self, header: str | None) -> bool:
        if self.user is None:
            return True
        if not header or not header.lower().startswith("basic "):
            return False
        try:
            given = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return False
        user, _, password = given.partition(":")
        expected = f"{self.user}:{self._password or ''}"
        return hmac.compare_digest(f"{user}:{password}".encode(), expected.encode())


# After an answer that did not read the whole request (a 413, a 400), what the client still sends is
# read and dropped - up to LINGER_BYTES, for at most LINGER_SECONDS - before the socket closes: closing
# with unread bytes makes the kernel answer with a reset, and the client may lose the answer.
LINGER_SECONDS = 1.0
LINGER_BYTES = 4 * 1024 * 1024


async def _linger(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Half-close, then discard the client's remaining bytes until it closes (bounded in time and bytes)."""
    if writer.can_write_eof():
        writer.write_eof()

    async def discard() -> None:
        dropped = 0
        while dropped < LINGER_BYTES:
            chunk = await reader.read(65536)
            if not chunk:
                return
            dropped += len(chunk)

    try:
        await asyncio.wait_for(discard(), LINGER_SECONDS)
    except asyncio.TimeoutError:
        pass


def _json(status: int, payload: object) -> tuple[int, dict[str, str], bytes]:
    """Compact UTF-8 JSON, as Jolokia's JSONWriter writes it (a lone surrogate becomes ``?``, as
    Java's UTF-8 encoder writes it). Never anything but JSON: a value JSON cannot hold is an error."""
    try:
        text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (ValueError, RecursionError):
        return _error(500, "java.lang.IllegalStateException", "the answer cannot be written as JSON")
    return status, {"Content-Type": "application/json; charset=utf-8"}, _scrubbed(text).encode("utf-8", "replace")


def _scrubbed(text: str) -> str:
    """An answer without values from the environment, properties or included files, nor passwords
    (unless ``--show-values``; passwords never): see redact_output."""
    from ..redact_output import scrub

    return scrub(text)


def _invalid(why: str) -> dict[str, Any]:
    return {"error_type": "java.lang.IllegalArgumentException", "error": f"Invalid JSON request: {why}",
            "status": 400, "timestamp": int(time.time())}


def _error(status: int, error_type: str, message: str) -> tuple[int, dict[str, str], bytes]:
    """Jolokia's error shape with the HTTP status ``status`` (also in the body)."""
    body = {"error_type": error_type, "error": f"{error_type} : {message}", "status": status,
            "timestamp": int(time.time())}
    return status, {"Content-Type": "application/json; charset=utf-8"}, \
        json.dumps(body, separators=(",", ":")).encode()
