"""The fast path asks ``Router.pick`` for the policy's choice and keeps what follows from it per target
(``serve/fast.py``, ``said.QuickSide.picked``); for anything else it asks ``Router.route_value``. Either
way a server must say what the session says: two servers of the same router and seed, one with the
fast path off, get the same sequence of hellos (MQTT 5, MQTT 3.1.1, AMQP; random client ids and users,
a router's own client ids, missing users) and must give the same answers, route lines and counters -
for every policy, with a local target in the pool, targets down, with a cache, with a key-filter and a
local-target-filter (the sharding pattern among them), and SOURCE_IP and SNI_HOST keys. Real sockets on
127.0.0.1, real servers."""

from __future__ import annotations

import io
import random
import re
import socket

import pytest

from artemis_routing_cli.protocols.amqp import AMQP_HEADER, Open, encode_open
from artemis_routing_cli.protocols.mqtt import PROTOCOL_LEVEL_5, MqttClient
from artemis_routing_cli.routing.keys import INTERNAL_CLIENT_ID_PREFIX
from artemis_routing_cli.routing.targets import state_from_options
from artemis_routing_cli.serve.log import BackgroundWriter, ServeLog

from .conftest import HANG_GUARD, on_both_loops, recv_until_closed

pytestmark = pytest.mark.network

CONNECTORS = """
  <connectors>
    <connector name="t1">tcp://10.0.0.1:61617</connector>
    <connector name="t2">tcp://10.0.0.2:61618</connector>
    <connector name="t3">tcp://10.0.0.3:61619</connector>
  </connectors>"""
NODE_IDS = ["t1=node-one", "t2=node-two", "t3=node-three"]


def core(key_type: str, policy: str, *, local: bool = False, cache: bool = False, filters: str = "") -> str:
    cached = "<cache><persisted>false</persisted><timeout>0</timeout></cache>" if cache else ""
    return (CONNECTORS + f"""
  <connection-routers><connection-router name="r">
    <key-type>{key_type}</key-type>{filters}{cached}{policy}
    <pool><local-target-enabled>{str(local).lower()}</local-target-enabled><static-connectors>
      <connector-ref>t1</connector-ref><connector-ref>t2</connector-ref><connector-ref>t3</connector-ref>
    </static-connectors></pool>
  </connection-router></connection-routers>""")


CH = '<policy name="CONSISTENT_HASH"/>'
#: a router without a pool: the local target, or a refusal
NO_POOL = """
  <connection-routers><connection-router name="r"><key-type>CLIENT_ID</key-type>{}
  </connection-router></connection-routers>"""
LOCAL = "--local-target=10.0.0.9:61620"
CASES = {
    "consistent-hash": (core("CLIENT_ID", CH), NODE_IDS),
    "consistent-hash-one-down": (core("CLIENT_ID", CH), NODE_IDS + ["--down=t2"]),
    "consistent-hash-all-down": (core("CLIENT_ID", CH), NODE_IDS + ["--down=t1", "--down=t2", "--down=t3"]),
    "consistent-hash-user": (core("USER_NAME", CH), NODE_IDS),
    "consistent-hash-cache": (core("CLIENT_ID", CH, cache=True), NODE_IDS),
    "modulo": (core("CLIENT_ID", '<policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="2"/></policy>'),
               NODE_IDS),
    "first-element-local": (core("CLIENT_ID", '<policy name="FIRST_ELEMENT"/>', local=True), NODE_IDS),
    "round-robin": (core("CLIENT_ID", '<policy name="ROUND_ROBIN"/>'), NODE_IDS),
    "least-connections-user": (core("USER_NAME", '<policy name="LEAST_CONNECTIONS"/>'),
                               NODE_IDS + ["--connections=t1=4", "--connections=t3=4"]),
    # filters (under the regex budget) and the key types read from where a connection comes from (issue 37)
    "key-filter": (core("CLIENT_ID", CH, filters="<key-filter>^.{2}</key-filter>"), NODE_IDS),
    "key-filter-unmatched": (core("USER_NAME", CH, filters="<key-filter>[0-9]{2}</key-filter>", cache=True),
                             NODE_IDS),
    "local-target-filter": (core("CLIENT_ID", CH, filters="<local-target-filter>[a-c].*</local-target-filter>"),
                            NODE_IDS + [LOCAL]),
    "local-target-filter-no-pool": (CONNECTORS + NO_POOL.format("<local-target-filter>^[aX].*</local-target-filter>"),
                                    NODE_IDS + [LOCAL]),
    "sharding": (CONNECTORS + NO_POOL.format(
        '<local-target-filter>NULL|0</local-target-filter>'
        '<policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="3"/></policy>'), NODE_IDS + [LOCAL]),
    "source-ip": (core("SOURCE_IP", CH), NODE_IDS),
    "source-ip-key-filter": (core("SOURCE_IP", '<policy name="ROUND_ROBIN"/>',
                                  filters="<key-filter>^[0-9]+</key-filter>"), NODE_IDS),
    "sni-host": (core("SNI_HOST", CH, filters="<local-target-filter>NULL</local-target-filter>"),
                 NODE_IDS + [LOCAL]),
}


def state(given: list[str]):  # noqa: ANN201
    down = frozenset(g.split("=", 1)[1] for g in given if g.startswith("--down="))  # a refusal: no target
    counts = {k: int(v) for k, _, v in (g.split("=", 1)[1].partition("=") for g in given
                                         if g.startswith("--connections="))}
    base = state_from_options([g for g in given if not g.startswith("--")])
    return type(base)(node_ids=base.node_ids, down=down, connections=counts)


def hellos(seed: int) -> list[bytes]:
    rng = random.Random(seed)
    alphabet = "abcXYZ019-_.$\u00e9\u4e2d\U0001F600"
    made = []
    for i in range(36):
        client_id = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 20)))
        if i % 9 == 4:
            client_id = INTERNAL_CLIENT_ID_PREFIX + client_id
        user = None if i % 5 == 0 else "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 12)))
        kind = i % 3
        if kind == 0:
            made.append(MqttClient(PROTOCOL_LEVEL_5).connect(client_id, username=user))
        elif kind == 1:
            made.append(MqttClient(4).connect(client_id, username=user))
        else:
            made.append(AMQP_HEADER + encode_open(Open(container_id=client_id)))
    return made


def exchange(port: int, hello: bytes) -> tuple[bytes, int]:
    with socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD) as sock:
        own = sock.getsockname()[1]
        sock.sendall(hello)
        return recv_until_closed(sock), own


def counters(running) -> list[str]:  # noqa: ANN001
    text = running.call(running.server.metrics.render)
    return [line for line in text.splitlines() if "_total" in line and not line.startswith("#")]


def run(serve, body: str, given: list[str], fast: bool, structured: bool, sequence: list[bytes]):  # noqa: ANN001, ANN201
    writer = None if structured else BackgroundWriter(io.StringIO(), interval=HANG_GUARD * 100)
    running = serve(body, log=None if structured else ServeLog("text", writer=writer), routers=["r"],
                    state=state(given), seed=5, local_target=LOCAL.split("=", 1)[1] if LOCAL in given else None)

    def switch() -> None:
        running.server._listeners["listen-1"].fast = fast
    running.call(switch)
    answers = []
    for hello in sequence:
        answer, own = exchange(running.port(), hello)
        answers.append((answer, own))
    if writer is not None:
        lines = [line for line in running.call(lambda: list(writer.pending)) if "AMQ22108" in line]
    else:
        lines = [{k: v for k, v in r.items() if k != "ts"} for r in running.routes()]
    # each connection's own port out of its line (the two servers' clients had different ones)
    shown = []
    for line, (_, own) in zip(lines, answers, strict=True):
        text = str(line)
        text = re.sub(rf"\b127\.0\.0\.1:{own}\b", "PEER", text)
        shown.append(re.sub(r"^\S+ \S+ ", "", text) if writer is not None else text)
    at_once = running.call(lambda: running.server._listeners["listen-1"].answered_at_once)
    return [a for a, _ in answers], shown, counters(running), at_once


@on_both_loops
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("structured", [False, True], ids=["text", "json"])
def test_the_fast_path_says_what_the_session_says(serve, case: str, structured: bool) -> None:
    body, given = CASES[case]
    sequence = hellos(sum(map(ord, case)))
    fast = run(serve, body, given, True, structured, sequence)
    slow = run(serve, body, given, False, structured, sequence)
    assert fast[0] == slow[0]  # the answers, byte for byte
    assert fast[1] == slow[1] and len(fast[1]) == len(sequence)  # the route lines
    assert fast[2] == slow[2]  # the counters
    assert fast[3] > 0 and slow[3] == 0  # the fast path answered (some), the other server's session did
