"""A real AMQP client (python-qpid-proton) against ``arouter serve``: redirect and refusal."""

from __future__ import annotations

import pytest

from artemis_routing_cli.routing.targets import state_from_options
from tests.real_clients import import_peer

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops

proton = import_peer("proton", "python-qpid-proton")
from proton.handlers import MessagingHandler  # noqa: E402
from proton.reactor import Container  # noqa: E402

pytestmark = pytest.mark.network


class Recorder(MessagingHandler):
    def __init__(self, url: str, **options: object) -> None:
        super().__init__()
        self.url = url
        self.options = options
        self.condition = None
        self.timed_out = False
        self.guard = None

    def on_start(self, event):
        event.container.connect(self.url, reconnect=False, **self.options)
        self.guard = event.container.schedule(HANG_GUARD, self)

    def _record(self, connection) -> None:
        if self.condition is None and connection is not None:
            self.condition = connection.remote_condition or (connection.transport.condition
                                                             if connection.transport else None)

    def on_connection_error(self, event):
        self._record(event.connection)

    def on_transport_error(self, event):
        if self.condition is None and event.transport is not None:
            self.condition = event.transport.condition

    def on_disconnected(self, event):
        self._finish(event)

    def on_transport_closed(self, event):
        self._finish(event)

    def _finish(self, event) -> None:
        # proton treats amqp:connection:forced like a dropped socket: read the condition here and
        # stop the container, which would otherwise wait for a reconnect that never comes
        self._record(event.connection)
        self.guard.cancel()
        event.container.stop()

    def on_timer_task(self, event):
        self.timed_out = True
        event.container.stop()


class LinkOpener(Recorder):
    """As applications do: a receiver and a sender at once, so Begin and Attach follow the Open."""

    def on_start(self, event):
        connection = event.container.connect(self.url, reconnect=False, **self.options)
        event.container.create_receiver(connection, "orders")
        event.container.create_sender(connection, "orders")
        self.guard = event.container.schedule(HANG_GUARD, self)


def connect_with_links(port: int, container_id: str):
    """One connection that opens links at once; the condition it was closed with."""
    client = LinkOpener(f"amqp://127.0.0.1:{port}", container_id=container_id, sasl_enabled=False)
    Container(client).run()
    assert not client.timed_out
    return client.condition


def connect(port: int, userinfo: str = "", **options: object) -> Recorder:
    client = Recorder(f"amqp://{userinfo}127.0.0.1:{port}", **options)
    Container(client).run()
    assert not client.timed_out
    return client


@on_both_loops
def test_client_id_router_redirects_to_the_consistent_hash_target(serve):
    running = serve(ROUTER_CORE, routers=["by-client"], state=state_from_options(NODE_IDS))
    client = connect(running.port(), container_id="FOO1", sasl_enabled=False)
    assert client.condition.name == "amqp:connection:redirect"
    assert client.condition.description == (
        "Connection router by-client redirected this connection to 10.0.0.2:61618")
    assert client.condition.info == {"network-host": "10.0.0.2", "port": 61618}
    [line] = running.routes()
    assert (line["protocol"], line["key"], line["target"]) == ("AMQP", "FOO1", "target2")
    assert line["message"].startswith("AMQ221085: Route 127.0.0.1:")


def test_router_without_policy_refuses_use_another(serve):
    running = serve(ROUTER_CORE, routers=["refuser"])
    client = connect(running.port(), container_id="anyone", sasl_enabled=False)
    assert (client.condition.name, client.condition.description) == (
        "amqp:connection:forced", "Connection router refuser rejected this connection")


def test_pool_without_ready_target_refuses_unavailable(serve):
    running = serve(ROUTER_CORE, routers=["by-user"], state=state_from_options(NODE_IDS, down=["target2"]))
    client = connect(running.port(), "alice:pw@", allowed_mechs="PLAIN", allow_insecure_mechs=True)
    assert (client.condition.name, client.condition.description) == (
        "amqp:connection:forced", "Connection router by-user is not ready")
    assert running.routes()[0]["key"] == "alice"


@on_both_loops
def test_user_name_router_uses_the_sasl_plain_user(serve, tmp_path):
    users = tmp_path / "users.properties"
    users.write_text("alice = s3cret\nbob=other\n", encoding="latin-1")
    running = serve(ROUTER_CORE, routers=["by-user"], users_file=str(users), state=state_from_options(NODE_IDS))
    client = connect(running.port(), "alice:s3cret@", allowed_mechs="PLAIN", allow_insecure_mechs=True)
    assert client.condition.name == "amqp:connection:redirect"
    assert client.condition.info == {"network-host": "10.0.0.2", "port": 61618}
    assert running.routes()[0]["key"] == "alice"
    assert all("s3cret" not in str(r) for r in running.records)


def test_wrong_password_fails_sasl_and_is_not_routed(serve, tmp_path):
    users = tmp_path / "users.properties"
    users.write_text("alice=s3cret\n", encoding="latin-1")
    running = serve(ROUTER_CORE, routers=["by-user"], users_file=str(users), state=state_from_options(NODE_IDS))
    client = connect(running.port(), "alice:wrong@", allowed_mechs="PLAIN", allow_insecure_mechs=True)
    assert client.condition is not None and client.condition.name == "amqp:unauthorized-access"
    assert running.routes() == []
    assert [r["event"] for r in running.records].count("auth") == 1
    assert all("wrong" not in str(r.get("message")) for r in running.records)
