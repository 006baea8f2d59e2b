"""Run ``arouter serve`` in-process on a background event loop, on ephemeral 127.0.0.1 ports."""

from __future__ import annotations

import asyncio
import io
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from artemis_routing_cli.config import load
from artemis_routing_cli.serve.log import ServeLog
from artemis_routing_cli.serve.loops import choose_loop, uvloop_version
from artemis_routing_cli.serve.server import ServeOptions, Server
from tests.conftest import broker_xml

#: Guard against a hung peer, not a synchronisation device: a passing test never waits for it.
HANG_GUARD = 20.0


class Running:
    """A started Server on its own loop thread; ``port(name)`` gives a listener's bound port."""

    def __init__(self, server: Server, loop: asyncio.AbstractEventLoop, thread: threading.Thread,
                 records: list[dict], logged: threading.Condition) -> None:
        self.server = server
        self.loop = loop
        self.thread = thread
        self.records = records
        self.logged = logged

    def port(self, name: str = "listen-1") -> int:
        return self.server.addresses[name][1]

    @property
    def management_port(self) -> int:
        assert self.server.management_address is not None
        return self.server.management_address[1]

    def call(self, fn, *args):
        """Run ``fn(*args)`` on the server's loop and return its result (engine state is loop-owned)."""
        async def wrapper():
            return fn(*args)
        return asyncio.run_coroutine_threadsafe(wrapper(), self.loop).result(HANG_GUARD)

    def wait_for(self, predicate, what: str) -> dict:
        """The first log record matching ``predicate``, waiting (on the log's condition) if needed."""
        with self.logged:
            found = self.logged.wait_for(lambda: next((r for r in self.records if predicate(r)), None), HANG_GUARD)
        assert found is not None, f"no log record: {what}"
        return found

    def routes(self) -> list[dict]:
        return [r for r in list(self.records) if r["event"] == "route"]

    def stop(self) -> None:
        if self.loop.is_closed():
            return
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(HANG_GUARD)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(HANG_GUARD)


def start_server(config_path: Path, options: ServeOptions, loop_name: str = "asyncio",
                 log: ServeLog | None = None) -> Running:
    """``log``: the serving log to use instead of the records sink (``Running.records`` stays empty)."""
    cfg = load(str(config_path))
    records: list[dict] = []
    logged = threading.Condition()

    def sink(record: dict) -> None:
        with logged:
            records.append(record)
            logged.notify_all()

    if log is None:
        log = ServeLog("json", stream=io.StringIO(), sink=sink)
    server = Server(cfg, options, log)
    loop = choose_loop(loop_name).new_event_loop()
    started = threading.Event()
    failure: list[BaseException] = []

    def run() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(server.start())
        except BaseException as exc:  # reported to the test below
            failure.append(exc)
            started.set()
            return
        started.set()
        loop.run_forever()
        loop.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(HANG_GUARD)
    if failure:
        raise failure[0]
    return Running(server, loop, thread, records, logged)


#: The event loops a test marked ``@on_both_loops`` runs on: asyncio's, and uvloop when installed
#: (``arouter serve --loop auto`` takes it then).
EVENT_LOOPS = ["asyncio", pytest.param("uvloop", marks=pytest.mark.skipif(
    uvloop_version() is None, reason="uvloop is not installed"))]
on_both_loops = pytest.mark.parametrize("loop_name", EVENT_LOOPS, indirect=True)


@pytest.fixture
def loop_name(request: pytest.FixtureRequest) -> str:
    """The event loop ``serve`` starts the server on: asyncio's unless a test asks for both."""
    return getattr(request, "param", "asyncio")


@pytest.fixture
def serve(tmp_path: Path, loop_name: str) -> Iterator:
    running: list[Running] = []

    def make(core: str, log: ServeLog | None = None, **options) -> Running:
        path = tmp_path / "broker.xml"
        path.write_text(broker_xml(core), encoding="utf-8")
        options.setdefault("listen", ["127.0.0.1:0"])
        options.setdefault("monitor", False)
        r = start_server(path, ServeOptions(**options), loop_name, log)
        running.append(r)
        return r

    yield make
    for r in running:
        r.stop()


@pytest.fixture
def cert(tmp_path: Path) -> tuple[str, str]:
    """A self-signed certificate and its key (PEM files) for TLS listeners."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    key, crt = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(key), "-out", str(crt), "-days", "1", "-subj", "/CN=arouter-test"],
                   check=True, capture_output=True)
    return str(crt), str(key)


def tls_connect(port: int, sni: str | None) -> ssl.SSLSocket:
    """A TLS client socket (no certificate check) that sent ``sni`` in its ClientHello."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    raw = socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD)
    return ctx.wrap_socket(raw, server_hostname=sni)


def recv_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    sock.settimeout(HANG_GUARD)
    chunks = []
    while True:
        data = sock.recv(65536)
        if not data:
            return b"".join(chunks)
        chunks.append(data)


ROUTER_CORE = """
  <connectors>
    <connector name="target1">tcp://10.0.0.1:61617</connector>
    <connector name="target2">tcp://10.0.0.2:61618</connector>
  </connectors>
  <connection-routers>
    <connection-router name="by-client">
      <key-type>CLIENT_ID</key-type>
      <local-target-filter>LOCAL.*</local-target-filter>
      <policy name="CONSISTENT_HASH"/>
      <pool><static-connectors><connector-ref>target1</connector-ref><connector-ref>target2</connector-ref>
      </static-connectors></pool>
    </connection-router>
    <connection-router name="by-user">
      <key-type>USER_NAME</key-type>
      <policy name="FIRST_ELEMENT"/>
      <pool><static-connectors><connector-ref>target2</connector-ref></static-connectors></pool>
    </connection-router>
    <connection-router name="by-role">
      <key-type>ROLE_NAME</key-type>
      <key-filter>^shard-[0-9]+</key-filter>
      <local-target-filter>shard-1</local-target-filter>
      <policy name="FIRST_ELEMENT"/>
      <pool><static-connectors><connector-ref>target1</connector-ref></static-connectors></pool>
    </connection-router>
    <connection-router name="by-sni">
      <key-type>SNI_HOST</key-type>
      <local-target-filter>tenant-a\\..*</local-target-filter>
      <policy name="FIRST_ELEMENT"/>
      <pool><static-connectors><connector-ref>target2</connector-ref></static-connectors></pool>
    </connection-router>
    <connection-router name="refuser">
      <key-type>CLIENT_ID</key-type>
    </connection-router>
  </connection-routers>
"""

NODE_IDS = ["target1=11111111-1111-1111-1111-111111111111", "target2=22222222-2222-2222-2222-222222222222",
            "local=00000000-0000-0000-0000-000000000000"]


