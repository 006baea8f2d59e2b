"""The broker.xml of each broker of the real cluster (tests/realbroker/cluster.py), written by us.

Broker N listens on its own loopback address ``127.0.0.(N+1)``, all brokers on the same port numbers
(one free block for the run): ``main`` (no router, the pools' targets), one acceptor per router, and
the web console (Jolokia) at ``WEB``. Only broker 0 carries the pooled routers; every broker carries
``chm`` (CONSISTENT_HASH_MODULO sharded by ``local-target-filter`` ``NULL|${ordinal}``, the
operator's pattern: ``-Dordinal=N`` is given to broker N's JVM)."""

from __future__ import annotations

from dataclasses import dataclass

#: Offsets in the port block: the plain acceptor, one per router, the web console; the router acceptor
#: of the broker configured by broker properties only (on host_of(3)).
MAIN, WEB, PROPS_ROUTER = 0, 9, 7
#: The victim broker of the probe tests (stopped by them): its acceptor on 127.0.0.1, connector ``cv``.
VICTIM = 8
#: Each router's acceptor offset; the routers themselves are written below.
ROUTER_PORTS = {"ch": 1, "chm": 2, "fe": 3, "lc": 4, "rr": 5, "chu": 6}
#: The protocols every routed acceptor speaks.
PROTOCOLS = "CORE,AMQP,MQTT,OPENWIRE"
#: The pools' check-period (ms): how soon a stopped target is seen as down.
CHECK_PERIOD_MS = 1000
#: User and password of the brokers (artemis create --user/--password), also the pools' management user.
USER = PASSWORD = "a"


def host_of(index: int) -> str:
    return f"127.0.0.{index + 1}"


@dataclass(frozen=True)
class Layout:
    """Where the cluster listens: ``count`` brokers, one port block starting at ``base``."""

    base: int
    count: int = 3

    def port(self, offset: int) -> int:
        return self.base + offset

    def router_port(self, router: str) -> int:
        return self.base + ROUTER_PORTS[router]


def _pool(connectors: list[str], *, local: bool = False) -> str:
    refs = "".join(f"<connector-ref>{name}</connector-ref>" for name in connectors)
    return (f"<pool><username>{USER}</username><password>{PASSWORD}</password>"
            f"<check-period>{CHECK_PERIOD_MS}</check-period>"
            f"<local-target-enabled>{'true' if local else 'false'}</local-target-enabled>"
            f"<static-connectors>{refs}</static-connectors></pool>")


def routers_xml(index: int) -> str:
    """The connection routers of broker ``index``."""
    sharded = ('<connection-router name="chm"><key-type>CLIENT_ID</key-type>'
               '<local-target-filter>NULL|${ordinal}</local-target-filter>'
               '<policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="3"/></policy>'
               '</connection-router>')
    if index != 0:
        return sharded
    return sharded + (
        '<connection-router name="ch"><key-type>CLIENT_ID</key-type>'
        f'<policy name="CONSISTENT_HASH"/>{_pool(["c0", "c1", "c2"])}</connection-router>'
        '<connection-router name="chu"><key-type>USER_NAME</key-type><key-filter>^[a-z]+</key-filter>'
        f'<policy name="CONSISTENT_HASH"/>{_pool(["c1", "c2"], local=True)}</connection-router>'
        '<connection-router name="fe"><key-type>CLIENT_ID</key-type><key-filter>^[a-z]+</key-filter>'
        '<local-target-filter>admin</local-target-filter>'
        f'<policy name="FIRST_ELEMENT"/>{_pool(["c1", "c2"])}</connection-router>'
        '<connection-router name="lc"><key-type>SOURCE_IP</key-type>'
        '<policy name="LEAST_CONNECTIONS"/>'
        f'{_pool(["c1", "c2"])}</connection-router>'
        '<connection-router name="vq"><key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>'
        f'<pool><username>{USER}</username><password>{PASSWORD}</password>'
        f'<check-period>{CHECK_PERIOD_MS}</check-period><quorum-size>2</quorum-size><quorum-timeout>0</quorum-timeout>'
        '<static-connectors><connector-ref>cv</connector-ref><connector-ref>c1</connector-ref></static-connectors>'
        '</pool></connection-router>'
        '<connection-router name="rr"><key-type>CLIENT_ID</key-type><key-filter>[0-9]+</key-filter>'
        '<cache><persisted>false</persisted><timeout>0</timeout></cache>'
        f'<policy name="ROUND_ROBIN"/>{_pool(["c0", "c1", "c2"])}</connection-router>')


def broker_xml(index: int, layout: Layout, *, victim: bool = False) -> str:
    """Broker ``index``'s broker.xml; ``victim``: the victim broker's (one plain acceptor, no router)."""
    host = host_of(index)
    main = layout.port(VICTIM if victim else MAIN)
    acceptors = [f'<acceptor name="main">tcp://{host}:{main}?protocols={PROTOCOLS}</acceptor>']
    routers = [] if victim else ["chm"] if index != 0 else list(ROUTER_PORTS)
    for name in routers:
        acceptors.append(f'<acceptor name="{name}">tcp://{host}:{layout.router_port(name)}'
                         f'?router={name};protocols={PROTOCOLS}</acceptor>')
    connectors = "".join(f'<connector name="c{n}">tcp://{host_of(n)}:{layout.port(MAIN)}</connector>'
                         for n in range(layout.count))
    connectors += f'<connector name="cv">tcp://{host_of(0)}:{layout.port(VICTIM)}</connector>'
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<configuration xmlns="urn:activemq">
  <core xmlns="urn:activemq:core">
    <name>{"victim" if victim else f"b{index}"}</name>
    <persistence-enabled>true</persistence-enabled>
    <journal-type>NIO</journal-type>
    <paging-directory>data/paging</paging-directory>
    <bindings-directory>data/bindings</bindings-directory>
    <journal-directory>data/journal</journal-directory>
    <large-messages-directory>data/large-messages</large-messages-directory>
    <journal-min-files>2</journal-min-files>
    <journal-pool-files>4</journal-pool-files>
    <journal-file-size>1M</journal-file-size>
    <journal-datasync>false</journal-datasync>
    <critical-analyzer>false</critical-analyzer>
    <connectors>{connectors}</connectors>
    <acceptors>{''.join(acceptors)}</acceptors>
    <connection-routers>{"" if victim else routers_xml(index)}</connection-routers>
    <security-settings>
      <security-setting match="#">
        <permission type="createNonDurableQueue" roles="amq"/>
        <permission type="deleteNonDurableQueue" roles="amq"/>
        <permission type="createDurableQueue" roles="amq"/>
        <permission type="deleteDurableQueue" roles="amq"/>
        <permission type="createAddress" roles="amq"/>
        <permission type="deleteAddress" roles="amq"/>
        <permission type="consume" roles="amq"/>
        <permission type="browse" roles="amq"/>
        <permission type="send" roles="amq"/>
        <permission type="manage" roles="amq"/>
      </security-setting>
    </security-settings>
    <address-settings>
      <address-setting match="#">
        <auto-create-queues>true</auto-create-queues>
        <auto-create-addresses>true</auto-create-addresses>
      </address-setting>
    </address-settings>
  </core>
</configuration>
"""
