"""The Spark SQL twin follows CONSISTENT_HASH_MODULO's version too: before 2.23 Java's ``hash % modulo``
(negative keys such as ``-1``), from 2.23 ``(hash & MAX) % modulo``; key for key equal to the engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from artemis_routing_cli.config import load
from artemis_routing_cli.routing.keys import Connection

XML = """<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><connection-routers>
<connection-router name="shard"><key-type>CLIENT_ID</key-type><local-target-filter>-?[13]</local-target-filter>
<policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="5"/></policy></connection-router>
</connection-routers></core></configuration>
"""


@pytest.mark.parametrize("version", [(2, 21), (2, 41)])
def test_the_sql_twin_equals_the_engine_on_either_side_of_2_23(spark, tmp_path: Path, version) -> None:
    from artemis_routing_cli.pipeline.assign import assign, plan
    from artemis_routing_cli.pipeline.inputs import read_keys
    from artemis_routing_cli.pipeline.run import assignments, build_jobs
    from artemis_routing_cli.routing.selection import select_routers
    from artemis_routing_cli.routing.targets import state_from_options

    cfg = tmp_path / "broker.xml"
    cfg.write_text(XML, encoding="utf-8")
    keys = [f"client-{i}" for i in range(500)] + ["a", "test", "FOO1", "\U0001F600x"]
    path = tmp_path / "keys.txt"
    path.write_text("\n".join(keys) + "\n", encoding="utf-8")
    routers = select_routers(load(str(cfg)), state_from_options([]), None, 1)
    routers[0].broker_version = version
    jobs = build_jobs(routers, [])
    frame = read_keys(spark, str(path))
    assert plan(jobs, frame.columns, True) == ["jvm"]
    got = assignments(assign(frame, jobs, engine="jvm"), jobs).toPandas().sort_values("row", kind="stable")
    want = [routers[0].route(Connection(client_id=k)) for k in keys]
    assert got["key_value"].tolist() == [r.key_value for r in want]
    assert got["status"].tolist() == [r.status for r in want]
    assert any(r.key_value.startswith("-") for r in want) == (version < (2, 23))
