"""The management endpoint under hostile requests: always one valid JSON answer, the loop never stalls."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from artemis_routing_cli.errors import UsageError
from artemis_routing_cli.jregex.javaregex import compile_java
from artemis_routing_cli.protocols.mqtt import MqttClient
from artemis_routing_cli.routing.targets import state_from_options
from artemis_routing_cli.serve.management import MAX_BODY_BYTES, check_management_bind, is_loopback
from tests.cli.helpers import arouter

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, recv_until_closed

pytestmark = pytest.mark.network

MBEAN = 'org.apache.activemq.artemis:broker="localhost",component=connection-routers,name="by-client"'


@pytest.fixture
def running(serve):
    return serve(ROUTER_CORE, routers=["by-client"], management="127.0.0.1:0", state=state_from_options(NODE_IDS))


def raw_post(port: int, body: bytes, length: str | None = None) -> tuple[int, str, object]:
    """POST ``body`` as it is; (HTTP status, content type, the parsed JSON answer)."""
    head = (f"POST /console/jolokia HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length if length is not None else len(body)}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        sock.sendall(head)
        try:
            sock.sendall(body)
        except OSError:
            pass  # the server answered (413) without reading the body
        data = recv_until_closed(sock)
    head_text, _, payload = data.partition(b"\r\n\r\n")
    lines = head_text.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    ctype = next(v.strip() for k, _, v in (line.partition(":") for line in lines[1:]) if k.lower() == "content-type")
    return status, ctype, json.loads(payload, parse_constant=lambda name: pytest.fail(f"{name} in the answer"))


@pytest.mark.parametrize(("body", "length"), [
    (b"[" * 100_000 + b"]" * 100_000, None),
    (b'{"type":NaN}', None),
    (b'{"type":Infinity}', None),
    (b'{"type":1e999}', None),
    (b'{"type":' + b"9" * 5000 + b"}", None),
    (b"\xff\xfe", None),
    (b"{}", "9" * 5000),
    (b"{}", "-1"),
    (b"x", str(100 * 1024 * 1024)),
], ids=["deep", "nan", "inf", "1e999", "huge-int", "not-utf8", "huge-length", "negative-length", "100MB"])
def test_every_request_gets_a_jolokia_shaped_json_answer(running, body: bytes, length: str | None) -> None:
    status, ctype, answer = raw_post(running.management_port, body, length)
    assert ctype.startswith("application/json")
    assert isinstance(answer, dict) and "error" in answer and "error_type" in answer
    assert answer["status"] in (400, 413) and status in (200, answer["status"])
    # and the endpoint still answers
    status, _, ok = raw_post(running.management_port, json.dumps(
        {"type": "exec", "mbean": MBEAN, "operation": "getLocalTargetFilter", "arguments": []}).encode())
    assert status == 200 and ok["status"] == 200


def test_body_limit_is_named(running) -> None:
    _, _, answer = raw_post(running.management_port, b"x", str(MAX_BODY_BYTES + 1))
    assert f"{MAX_BODY_BYTES:,}" in answer["error"]


def test_catastrophic_filter_closes_that_connection_and_others_are_served(running) -> None:
    """(a|a)+b on a 5,000-character key takes the broker's engine hours; serve gives it a budget."""
    port = running.management_port
    raw_post(port, json.dumps({"type": "exec", "mbean": MBEAN, "operation": "setLocalTargetFilter",
                               "arguments": ["(a|a)+b"]}).encode())
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as slow:
        slow.sendall(MqttClient().connect("a" * 5000))
        assert recv_until_closed(slow) == b""  # closed without an answer
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as quick:
        quick.sendall(MqttClient().connect("FOO1"))
        assert recv_until_closed(quick) != b""  # answered as the broker answers a key that finishes
    _, _, answer = raw_post(port, json.dumps({"type": "exec", "mbean": MBEAN, "operation": "getTargetAsJSON",
                                               "arguments": ["a" * 5000]}).encode())
    assert answer["status"] == 500 and "TimeoutException" in answer["error_type"]
    closed = running.wait_for(lambda r: r.get("reason") == "regex_budget", "the budget warning")
    assert "(a|a)+b" in closed["message"] and "ms" in closed["message"]
    assert [r["message"] for r in running.routes()][-1].count("FOO1") == 1


def test_a_filter_with_a_bounded_length_keeps_the_budget_on_longer_keys(running) -> None:
    """a*a*a*[^a] backtracks polynomially: on a short key its work is bounded and it is evaluated without
    the regex module's timeout (jregex/_match_bound.py, issue 37); on a 3,000-character key it is not,
    and the budget closes that connection as for (a|a)+b."""
    assert 0 <= compile_java("a*a*a*[^a]").quick_matches < 3000
    port = running.management_port
    raw_post(port, json.dumps({"type": "exec", "mbean": MBEAN, "operation": "setLocalTargetFilter",
                               "arguments": ["a*a*a*[^a]"]}).encode())
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as slow:
        slow.sendall(MqttClient().connect("a" * 3000))
        assert recv_until_closed(slow) == b""  # closed without an answer
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as quick:
        quick.sendall(MqttClient().connect("aab"))
        assert recv_until_closed(quick) != b""  # within the bounded length: answered
    closed = running.wait_for(lambda r: r.get("reason") == "regex_budget", "the budget warning")
    assert "a*a*a*[^a]" in closed["message"]
    assert [r["message"] for r in running.routes()][-1].count("'aab'") == 1


def test_a_huge_filter_set_through_management_does_not_stop_redirects(running) -> None:
    """Compiling a 40,000-character pattern is seconds of Python work; it happens off the event loop, so
    other clients get their redirects while the management request is still being worked on (on the
    loop, none was answered until the compile ended)."""
    port = running.management_port
    body = json.dumps({"type": "exec", "mbean": MBEAN, "operation": "setLocalTargetFilter",
                       "arguments": ["(a|b)" * 8000]}).encode()
    answered = threading.Event()
    answer: list[object] = []

    def manage() -> None:
        answer.append(raw_post(port, body))
        answered.set()

    manager = threading.Thread(target=manage, daemon=True)
    manager.start()
    while_pending = 0
    for _ in range(10_000):  # bounded; ends once the management answer is in
        with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as client:
            client.sendall(MqttClient().connect("FOO1"))
            assert recv_until_closed(client) != b""
        if answered.is_set():
            break
        while_pending += 1
    manager.join(HANG_GUARD)
    status, _, reply = answer[0]
    assert status == 200 and reply["status"] == 200  # the filter was set
    assert while_pending >= 5


@pytest.mark.parametrize(("host", "loopback"), [("127.0.0.1", True), ("::1", True), ("localhost", True),
                                                 ("0.0.0.0", False), ("::", False), ("", False),
                                                 ("10.1.2.3", False), ("example.net", False)])
def test_loopback_is_told_apart(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_non_loopback_management_without_credentials_is_refused_unless_insecure() -> None:
    with pytest.raises(UsageError, match="--management-insecure"):
        check_management_bind("0.0.0.0", None, False)
    assert check_management_bind("0.0.0.0", "admin", False) is None
    assert "without authentication" in (check_management_bind("0.0.0.0", None, True) or "")
    run = arouter("serve", "--management", "0.0.0.0:0", "-c", "samples/broker.xml")
    assert run.code == 2 and "--management-insecure" in run.err and "Traceback" not in run.err


def test_an_answer_before_the_body_is_read_survives_the_unread_body(running) -> None:
    """A 413 is answered without reading the body; the body the client already sent must not turn the
    close into a reset that loses the answer (serve reads and drops it first)."""
    for _ in range(20):
        status, _, answer = raw_post(running.management_port, b"x" * 256 * 1024, str(10 * 1024 * 1024))
        assert status == 413 and answer["status"] == 413
