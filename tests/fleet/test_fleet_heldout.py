"""A held-out check: fleets drawn at random (MODULO, pod count, how each pod's filter is written, the
broker version), never looked at while fleet was written; for each, the proof's homes of every value
are the engine's answers (Router.route on every pod) for random client ids."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from artemis_routing_cli.cli.fleet_options import FleetOptions
from artemis_routing_cli.cli.fleet_pods import replica_specs
from artemis_routing_cli.fleet.pods import load_pods
from artemis_routing_cli.fleet.proof import prove
from artemis_routing_cli.routing.keys import Connection

FILTERS = {
    "ordinal": "NULL|${STATEFUL_SET_ORDINAL}",
    "signed": "NULL|${STATEFUL_SET_ORDINAL}|-${STATEFUL_SET_ORDINAL}",
    "list": "NULL|0|1",
    "typo": "NULL|${STATEFULSET_ORDINAL}",
    "range": "[0-${STATEFUL_SET_ORDINAL}]",
    "class": "-?${STATEFUL_SET_ORDINAL}",
}
XML = """<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">
<connection-routers><connection-router name="r"><key-type>CLIENT_ID</key-type>
<local-target-filter>{ltf}</local-target-filter>
<policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="{modulo}"/></policy>
</connection-router></connection-routers></core></configuration>
"""


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(modulo=st.integers(1, 7), pods=st.integers(1, 5), style=st.sampled_from(sorted(FILTERS)),
       version=st.sampled_from([(2, 21), (2, 22), (2, 23), (2, 41)]),
       keys=st.lists(st.text(max_size=12), min_size=1, max_size=60))
def test_random_fleets_proof_is_the_engine(tmp_path_factory, modulo: int, pods: int, style: str,
                                           version: tuple[int, int], keys: list[str]) -> None:
    folder: Path = tmp_path_factory.mktemp("heldout")
    xml = folder / "broker.xml"
    xml.write_text(XML.format(ltf=FILTERS[style], modulo=modulo), encoding="utf-8")
    fleet = load_pods(replica_specs(FleetOptions(config=str(xml), replicas=str(pods)), pods), version)
    proof = prove(fleet, "r")
    assert proof.proven
    first = fleet[0].routers["r"]
    for k in [*keys, None, "a", "test"]:
        conn = Connection(client_id=k)
        if k is not None and k.startswith("$.artemis.internal.router.client."):
            continue
        value = first.route(conn).key_value
        homes = [p.name for p in fleet if (res := p.routers["r"].route(conn)).status == "OK" and res.local]
        assert homes == proof.homes[value], (k, value, style, version)
