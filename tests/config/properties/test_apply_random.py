"""Hostile input is normal input: random property lines over the modelled sections never crash the
pass, and every line the broker would refuse is a finding, never an exception."""

from __future__ import annotations

import dataclasses
import random

from artemis_routing_cli.config import load_text
from artemis_routing_cli.config.positions import Pos
from artemis_routing_cli.config.properties.apply import Applier, PropLine
from artemis_routing_cli.config.properties.bridge import from_beans, to_beans
from artemis_routing_cli.config.substitution import Lookup
from artemis_routing_cli.routing.router import build_routers
from artemis_routing_cli.rules import run_rules

from .helpers import EMPTY

STEPS = ["connectionRouters", "acceptorConfigurations", "connectorConfigurations", "clusterConfigurations",
         "divertConfigurations", "discoveryGroupConfigurations", "broadcastGroupConfigurations", "r", "a.b", '"x.y"',
         "keyType", "keyFilter", "policyConfiguration", "properties", "MODULO", "poolConfiguration",
         "staticConnectors", "cacheConfiguration", "timeout", "params", "router", "name", "r(r)", "r[0]", "r[9]",
         "(", ")", "[", "]", "", "addressSettings", "transformerConfiguration", "maxHops", "routingType",
         "connectionTTL", "broadcastEndpointFactory", "connectorInfos", "messageLoadBalancingType"]
VALUES = ["-", "", "CLIENT_ID", "1K", "5s", "true", "maybe", "a=b,c=d", "a=b=c", "x,y,", "${UNSET}", "${A:1}",
          "ENC(abc)", "STRIP", "99999999999999999999", "CONSISTENT_HASH_MODULO"]


def test_random_lines_never_crash() -> None:
    rng = random.Random(1919)
    base = load_text(EMPTY)
    for _ in range(300):
        lines = []
        for n in range(rng.randint(1, 12)):
            key = ".".join(rng.choice(STEPS) for _ in range(rng.randint(1, 6)))
            lines.append(PropLine(key, rng.choice(VALUES), Pos("r.properties", n + 1, 1), json=rng.random() < 0.3))
        root = to_beans(base)
        applier = Applier(root, Lookup({}, {}), xml_file=base.path)
        errors = applier.apply_source(lines)
        applier.finish()
        fields = from_beans(base, root, Pos("r.properties", 1, 1))
        assert set(fields) >= {"connection_routers", "acceptors"}
        merged = dataclasses.replace(base, **fields, property_findings=tuple(applier.findings))
        run_rules(merged)  # every rule family copes with objects made by properties
        build_routers(merged)
        assert len(errors) <= len(lines)
        assert all(f.pos.file == "r.properties" for f in applier.findings)
