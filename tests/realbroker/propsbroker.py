"""The fourth broker: configured only through broker properties (an empty broker.xml core), its router
``pr`` (CONSISTENT_HASH by CLIENT_ID with a key filter over the cluster's three brokers) on 127.0.0.4,
one refused line (an enum in the wrong case) and one ``-Dbrokerconfig.`` setting."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.realbroker.brokerxml import MAIN, PASSWORD, PROPS_ROUTER, USER, WEB, Layout, host_of
from tests.realbroker.instances import ACTIVE, WEB_STARTED, Running, create, launch, wait_logged

INDEX = 3
NETTY = "org.apache.activemq.artemis.core.remoting.impl.netty"
#: Given to the JVM as -Dbrokerconfig.<this>; arouter reads it as -D brokerconfig.<this>.
SYSTEM_SETTING = "connectionRouters.pr.localTargetFilter=NULL"
EMPTY_CORE = ('<?xml version="1.0" encoding="UTF-8"?>\n<configuration xmlns="urn:activemq">\n'
              '  <core xmlns="urn:activemq:core"/>\n</configuration>\n')


def properties(layout: Layout) -> str:
    host = host_of(INDEX)
    lines = ["name=b3",
             f"acceptorConfigurations.pr.factoryClassName={NETTY}.NettyAcceptorFactory",
             f"acceptorConfigurations.pr.params.host={host}",
             f"acceptorConfigurations.pr.params.port={layout.port(PROPS_ROUTER)}",
             "acceptorConfigurations.pr.params.router=pr",
             "acceptorConfigurations.pr.params.protocols=CORE,AMQP,MQTT"]
    for n in range(layout.count):
        lines += [f"connectorConfigurations.c{n}.factoryClassName={NETTY}.NettyConnectorFactory",
                  f"connectorConfigurations.c{n}.params.host={host_of(n)}",
                  f"connectorConfigurations.c{n}.params.port={layout.port(MAIN)}"]
    lines += ["connectionRouters.pr.keyType=CLIENT_ID",
              "connectionRouters.pr.keyFilter=^[a-z0-9]+",
              "connectionRouters.pr.policyConfiguration=CONSISTENT_HASH",
              "connectionRouters.pr.poolConfiguration.staticConnectors=" + ",".join(
                  f"c{n}" for n in range(layout.count)),
              f"connectionRouters.pr.poolConfiguration.username={USER}",
              f"connectionRouters.pr.poolConfiguration.password={PASSWORD}",
              "connectionRouters.pr.poolConfiguration.checkPeriod=1000",
              "connectionRouters.px.keyType=client_id"]  # refused: the broker's status lists it
    return "".join(f"{line}\n" for line in lines)


@dataclass
class PropsBroker:
    folder: Path
    running: Running
    layout: Layout

    @property
    def config(self) -> Path:
        return self.folder / "etc" / "broker.xml"

    def jolokia(self) -> str:
        return f"http://{host_of(INDEX)}:{self.layout.port(WEB)}/console/jolokia"


def start_props_broker(folder: Path, layout: Layout) -> PropsBroker:
    instance = create(folder, host_of(INDEX), layout.port(WEB))
    (instance / "etc" / "broker.xml").write_text(EMPTY_CORE, encoding="utf-8")
    (instance / "etc" / "broker.properties").write_text(properties(layout), encoding="utf-8")
    running = launch(instance, java_args=f"-Dbrokerconfig.{SYSTEM_SETTING}")
    if not wait_logged(running, ACTIVE, WEB_STARTED):
        raise RuntimeError(f"the properties broker did not start:\n{running.log_text()[-3000:]}")
    return PropsBroker(instance, running, layout)
