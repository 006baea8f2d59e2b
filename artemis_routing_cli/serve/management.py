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
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlsplit

from .jolokia import RouterControl
from .metrics import Metrics

MAX_HEAD_BYTES = 16 * 1024  # request line + headers
MAX_BODY_BYTES = 1024 * 1024
READ_TIMEOUT = 10.0
JOLOKIA_PREFIXES = ("/console/jolokia", "/jolokia")

_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed",
            413: "Payload Too Large"}


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
            status, headers, body = await asyncio.wait_for(self._serve(reader), READ_TIMEOUT)
        except (asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            status, headers, body = 400, {"Content-Type": "text/plain; charset=utf-8"}, b"bad request\n"
        except (ConnectionError, OSError):
            writer.close()
            return
        head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}"]
        headers = {**headers, "Content-Length": str(len(body)), "Connection": "close"}
        head += [f"{k}: {v}" for k, v in headers.items()]
        try:
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
            await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
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
        length = int(fields.get("content-length", "0") or "0")
        if length < 0 or length > MAX_BODY_BYTES:
            return 413, {"Content-Type": "text/plain; charset=utf-8"}, b"request body too large\n"
        body = await reader.readexactly(length) if length else b""
        path = urlsplit(target).path
        if path == "/healthz":
            return _json(200, self.health())
        if not self._authorized(fields.get("authorization")):
            return 401, {"WWW-Authenticate": 'Basic realm="arouter"', "Content-Type": "text/plain; charset=utf-8"}, \
                b"authentication required\n"
        if path == "/metrics":
            return 200, {"Content-Type": "text/plain; version=0.0.4; charset=utf-8"}, self.metrics.render().encode()
        prefix = next((p for p in JOLOKIA_PREFIXES if path == p or path.startswith(p + "/")), None)
        if prefix is None:
            return 404, {"Content-Type": "text/plain; charset=utf-8"}, b"not found\n"
        if method == "GET":
            return _json(200, self.control.answer(request_from_path(target.split("?", 1)[0][len(prefix):])))
        if method == "POST":
            try:
                payload = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                return _json(200, {"error_type": "java.lang.IllegalArgumentException",
                                   "error": f"Invalid JSON request: {exc}", "status": 400})
            if isinstance(payload, list):
                return _json(200, [self.control.answer(item) for item in payload])
            return _json(200, self.control.answer(payload))
        return 405, {"Allow": "GET, POST", "Content-Type": "text/plain; charset=utf-8"}, b"method not allowed\n"

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


def _json(status: int, payload: object) -> tuple[int, dict[str, str], bytes]:
    """Compact UTF-8 JSON, as Jolokia's JSONWriter writes it (a lone surrogate becomes ``?``, as
    Java's UTF-8 encoder writes it)."""
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "replace")
    return status, {"Content-Type": "application/json; charset=utf-8"}, body
