"""The router shapes the serve benches run (issue 37): each policy with and without a cache, a key-filter,
local-target-filters (a literal and a real regex), a SOURCE_IP key and the operator's sharding pattern.

Every shape is the router ``bench`` over the connectors t1-t3 (node ids node-1 to node-3). The benches'
clients send MQTT CONNECTs and AMQP Opens with the client ids ``bench-0`` ... ``bench-999`` from
127.0.0.1 over plain TCP, so SNI_HOST keys (TLS) and USER_NAME keys (no user is sent) are not among them.
"""

from __future__ import annotations

from typing import NamedTuple

CONNECTORS = """
  <connectors>
    <connector name="t1">tcp://10.0.0.1:61616</connector>
    <connector name="t2">tcp://10.0.0.2:61616</connector>
    <connector name="t3">tcp://10.0.0.3:61616</connector>
  </connectors>"""
POOL = """<pool><static-connectors><connector-ref>t1</connector-ref><connector-ref>t2</connector-ref>
      <connector-ref>t3</connector-ref></static-connectors></pool>"""
CACHE = "<cache><persisted>false</persisted><timeout>0</timeout></cache>"
NODE_IDS = ["t1=node-1", "t2=node-2", "t3=node-3"]
#: --local-target of the shapes that send clients to the local target
LOCAL_TARGET = "10.0.0.9:61616"


class Shape(NamedTuple):
    """A router: what it is, in a few words; the inside of its ``<connection-router>``; whether
    ``arouter serve`` gets ``--local-target``."""

    about: str
    body: str
    local_target: bool = False


def _policy(name: str, cache: bool = False, extra: str = "") -> str:
    properties = '<property key="MODULO" value="3"/>' if name == "CONSISTENT_HASH_MODULO" else ""
    return (f"<key-type>CLIENT_ID</key-type>{extra}{CACHE if cache else ''}"
            f'<policy name="{name}">{properties}</policy>{POOL}')


SHAPES: dict[str, Shape] = {
    "hash": Shape("CONSISTENT_HASH, pool of 3", _policy("CONSISTENT_HASH")),
    "hash-cache": Shape("CONSISTENT_HASH, pool of 3, cache", _policy("CONSISTENT_HASH", True)),
    "modulo": Shape("CONSISTENT_HASH_MODULO 3, pool of 3 (refuses: it selects no target)",
                    _policy("CONSISTENT_HASH_MODULO")),
    "modulo-cache": Shape("CONSISTENT_HASH_MODULO 3, pool of 3, cache", _policy("CONSISTENT_HASH_MODULO", True)),
    "first": Shape("FIRST_ELEMENT, pool of 3", _policy("FIRST_ELEMENT")),
    "first-cache": Shape("FIRST_ELEMENT, pool of 3, cache", _policy("FIRST_ELEMENT", True)),
    "least": Shape("LEAST_CONNECTIONS, pool of 3", _policy("LEAST_CONNECTIONS")),
    "least-cache": Shape("LEAST_CONNECTIONS, pool of 3, cache", _policy("LEAST_CONNECTIONS", True)),
    "round-robin": Shape("ROUND_ROBIN, pool of 3", _policy("ROUND_ROBIN")),
    "round-robin-cache": Shape("ROUND_ROBIN, pool of 3, cache", _policy("ROUND_ROBIN", True)),
    "key-filter": Shape(r"key-filter ^[^-]+-\d{2}, CONSISTENT_HASH, pool of 3",
                        _policy("CONSISTENT_HASH", extra=r"<key-filter>^[^-]+-\d{2}</key-filter>")),
    "ltf-literal": Shape("local-target-filter bench-7 (a literal), CONSISTENT_HASH, pool of 3, --local-target",
                         _policy("CONSISTENT_HASH", extra="<local-target-filter>bench-7</local-target-filter>"),
                         True),
    "ltf-regex": Shape("local-target-filter ^bench.* (every key), no pool, --local-target",
                       "<key-type>CLIENT_ID</key-type><local-target-filter>^bench.*</local-target-filter>", True),
    "source-ip": Shape("SOURCE_IP key, CONSISTENT_HASH, pool of 3",
                       _policy("CONSISTENT_HASH").replace("CLIENT_ID", "SOURCE_IP")),
    "sharding": Shape("the operator's sharding: CONSISTENT_HASH_MODULO 3, local-target-filter NULL|0, no pool, "
                      "--local-target",
                      "<key-type>CLIENT_ID</key-type><local-target-filter>NULL|0</local-target-filter>"
                      '<policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="3"/></policy>', True),
}


def broker_xml(shape: str) -> str:
    """A broker.xml whose one router ``bench`` is ``shape``."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">{CONNECTORS}
  <connection-routers><connection-router name="bench">
    {SHAPES[shape].body}
  </connection-router></connection-routers>
</core></configuration>
"""


def local_target(shape: str) -> str | None:
    """``--local-target`` for ``shape`` (None: not given)."""
    return LOCAL_TARGET if SHAPES[shape].local_target else None


def shape_names(given: str) -> list[str]:
    """``all`` or a comma-separated list of shape names, checked."""
    names = list(SHAPES) if given == "all" else given.split(",")
    unknown = [name for name in names if name not in SHAPES]
    if unknown:
        raise SystemExit(f"unknown router shape(s) {', '.join(unknown)}; known: {', '.join(SHAPES)}")
    return names
