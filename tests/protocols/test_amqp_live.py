"""The AMQP codec against real AMQP stacks (python-qpid-proton) over real sockets on 127.0.0.1."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

import pytest

from artemis_routing_cli.protocols.amqp import (
    AmqpClient,
    AmqpServer,
    CloseReceived,
    OpenReceived,
    SaslInit,
    SaslMechanisms,
    SaslOutcome,
)
from tests.peers import free_port
from tests.real_clients import import_peer

proton = import_peer("proton", "python-qpid-proton")
from proton import Condition  # noqa: E402
from proton.handlers import MessagingHandler  # noqa: E402
from proton.reactor import Container  # noqa: E402

pytestmark = pytest.mark.network

#: Guard against a hung peer, not a synchronisation device: a passing test never waits for it.
HANG_GUARD_SECONDS = 20


class OneShotListener:
    """Serves one AMQP connection with AmqpServer in a thread, answering Open with ``decide``."""

    def __init__(self, decide: Callable[[AmqpServer], bytes]) -> None:
        self.decide = decide
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.sock.settimeout(HANG_GUARD_SECONDS)
        self.port = self.sock.getsockname()[1]
        self.events: list = []
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            conn, _ = self.sock.accept()
            with conn:
                conn.settimeout(HANG_GUARD_SECONDS)
                self._serve(conn)
        except BaseException as exc:  # reported by the test through self.error
            self.error = exc
        finally:
            self.sock.close()

    def _serve(self, conn: socket.socket) -> None:
        server = AmqpServer()
        while True:
            data = conn.recv(65536)
            if not data:
                return
            pending = server.receive_data(data)
            while pending:
                event = pending.pop(0)
                self.events.append(event)
                conn.sendall(server.data_to_send())
                if isinstance(event, SaslInit):
                    conn.sendall(server.sasl_outcome(True))
                    pending += server.receive_data(b"")
                elif isinstance(event, OpenReceived):
                    conn.sendall(self.decide(server))
                    return  # the broker closes the socket after its Close, and so must a shell
            conn.sendall(server.data_to_send())

    def join(self) -> None:
        self.thread.join(HANG_GUARD_SECONDS)
        assert not self.thread.is_alive()
        if self.error is not None:
            raise self.error


class RecordingClient(MessagingHandler):
    """A proton client that connects once and records what the server said."""

    def __init__(self, url: str, **options: object) -> None:
        super().__init__()
        self.url = url
        self.options = options
        self.condition: Condition | None = None
        self.remote_properties: dict | None = None
        self.remote_container: str | None = None
        self.timed_out = False
        self.guard = None

    def on_start(self, event):
        event.container.connect(self.url, reconnect=False, **self.options)
        self.guard = event.container.schedule(HANG_GUARD_SECONDS, self)

    def _record(self, connection) -> None:
        if self.condition is None and connection is not None and connection.remote_condition is not None:
            self.condition = connection.remote_condition
            self.remote_properties = connection.remote_properties
            self.remote_container = connection.remote_container

    def on_connection_error(self, event):
        self._record(event.connection)

    def on_disconnected(self, event):
        # proton treats amqp:connection:forced like a dropped socket (no on_connection_error),
        # so the condition is read here, once the socket has closed
        self._finish(event)

    def on_transport_closed(self, event):
        self._finish(event)

    def _finish(self, event) -> None:
        # the socket is gone: record, then stop at once (proton would otherwise linger on its
        # own close timers, which only makes the test slow)
        self._record(event.connection)
        self.guard.cancel()
        event.container.stop()

    def on_timer_task(self, event):
        self.timed_out = True
        event.container.stop()


def run_proton_client(listener: OneShotListener, userinfo: str = "", **options: object) -> RecordingClient:
    client = RecordingClient(f"amqp://{userinfo}127.0.0.1:{listener.port}", **options)
    Container(client).run()
    listener.join()
    assert not client.timed_out
    return client


def test_proton_client_sees_the_redirect_condition_and_info_map():
    listener = OneShotListener(lambda server: server.redirect("simple-router", "broker2.example", 61617))
    client = run_proton_client(
        listener, "alice:secret@", allowed_mechs="PLAIN", allow_insecure_mechs=True, container_id="probe-7"
    )
    assert client.condition is not None
    assert client.condition.name == "amqp:connection:redirect"
    assert client.condition.description == (
        "Connection router simple-router redirected this connection to broker2.example:61617"
    )
    info = client.condition.info
    assert info == {"network-host": "broker2.example", "port": 61617}
    assert type(info[proton.symbol("port")]) is proton.int32
    assert all(type(key) is proton.symbol for key in info)
    assert client.remote_properties == {proton.symbol("amqp:connection-establishment-failed"): True}
    assert client.remote_container == ""
    [sasl] = [e for e in listener.events if isinstance(e, SaslInit)]
    assert (sasl.mechanism, sasl.username, sasl.password) == ("PLAIN", "alice", b"secret")
    [opened] = [e for e in listener.events if isinstance(e, OpenReceived)]
    assert opened.container_id == "probe-7"
    assert opened.hostname == "127.0.0.1"


@pytest.mark.parametrize(
    ("status", "description"),
    [
        ("REFUSED_USE_ANOTHER", "Connection router r1 rejected this connection"),
        ("REFUSED_UNAVAILABLE", "Connection router r1 is not ready"),
    ],
)
def test_proton_client_sees_the_refusal_condition(status, description):
    listener = OneShotListener(lambda server: server.refuse("r1", status))
    client = run_proton_client(listener)  # no user: proton picks ANONYMOUS
    assert client.condition is not None
    assert (client.condition.name, client.condition.description) == ("amqp:connection:forced", description)
    assert client.condition.info is None
    [sasl] = [e for e in listener.events if isinstance(e, SaslInit)]
    assert (sasl.mechanism, sasl.username) == ("ANONYMOUS", None)


def test_proton_client_without_sasl_is_redirected_too():
    listener = OneShotListener(lambda server: server.redirect("r", "10.0.0.2", 5672))
    client = run_proton_client(listener, sasl_enabled=False)
    assert client.condition is not None
    assert client.condition.name == "amqp:connection:redirect"
    assert client.condition.info == {"network-host": "10.0.0.2", "port": 5672}
    assert not [e for e in listener.events if isinstance(e, SaslInit)]


class ClosingServer(MessagingHandler):
    """A real proton AMQP server that closes every connection with a redirect condition."""

    def __init__(self, port: int, ready: threading.Event) -> None:
        super().__init__()
        self.port = port
        self.ready = ready
        self.acceptor = None

    def on_start(self, event):
        self.acceptor = event.container.listen(f"127.0.0.1:{self.port}")
        self.ready.set()

    def on_connection_init(self, event):
        event.connection.container = "proton-server-1"

    def on_connection_opened(self, event):
        event.connection.condition = Condition(
            "amqp:connection:redirect",
            "go away",
            {proton.symbol("network-host"): "b3", proton.symbol("port"): 99},
        )
        event.connection.close()
        self.acceptor.close()


def test_amqp_client_reports_what_a_real_proton_server_says():
    port = free_port()
    ready = threading.Event()
    container = Container(ClosingServer(port, ready))
    container.sasl_enabled = True
    thread = threading.Thread(target=container.run, daemon=True)
    thread.start()
    assert ready.wait(HANG_GUARD_SECONDS)

    client = AmqpClient("probe-1", hostname="localhost", mechanism="ANONYMOUS")
    events: list = []
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD_SECONDS) as sock:
        sock.sendall(client.initiate())
        while not any(isinstance(e, CloseReceived) for e in events):
            data = sock.recv(65536)
            assert data, f"server closed early; events so far: {events}"
            events += client.receive_data(data)
            sock.sendall(client.data_to_send())
        sock.sendall(client.close())
    thread.join(HANG_GUARD_SECONDS)

    [mechs] = [e for e in events if isinstance(e, SaslMechanisms)]
    assert "ANONYMOUS" in mechs.mechanisms
    [outcome] = [e for e in events if isinstance(e, SaslOutcome)]
    assert outcome.ok
    [opened] = [e for e in events if isinstance(e, OpenReceived)]
    assert opened.container_id == "proton-server-1"
    [closed] = [e for e in events if isinstance(e, CloseReceived)]
    assert closed.error is not None
    assert (closed.error.condition, closed.error.description) == ("amqp:connection:redirect", "go away")
    assert closed.error.info == {"network-host": "b3", "port": 99}
