"""arouter diff reads broker properties as every command does (--properties on both sides,
--old-properties / --new-properties on one), and says that a router changed in properties keeps
its old settings until the broker restarts (a reload does not rebuild it)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import arouter

XML = """<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">
<connectors><connector name="a">tcp://a:61616</connector><connector name="b">tcp://b:61616</connector></connectors>
</core></configuration>
"""
ROUTER = """connectionRouters.shard.keyType=CLIENT_ID
connectionRouters.shard.localTargetFilter=NULL|1
connectionRouters.shard.policyConfiguration=CONSISTENT_HASH_MODULO
connectionRouters.shard.policyConfiguration.properties.MODULO={modulo}
"""


def test_a_modulo_changed_in_properties_is_a_change_and_moves_keys(tmp_path: Path) -> None:
    xml = tmp_path / "broker.xml"
    xml.write_text(XML, encoding="utf-8")
    old, new = tmp_path / "old.properties", tmp_path / "new.properties"
    old.write_text(ROUTER.format(modulo=2), encoding="utf-8")
    new.write_text(ROUTER.format(modulo=3), encoding="utf-8")
    run = arouter("diff", str(xml), str(xml), "--old-properties", str(old), "--new-properties", str(new),
                  "--sample", "600", "-f", "json", cwd=tmp_path)
    assert run.code == 0, run.err
    doc = json.loads(run.out)
    (r,) = [r for r in doc["routers"] if r["name"] == "shard"]
    assert r["status"] == "changed"
    assert any("MODULO" in c["setting"] and c["old"] == "2" and c["new"] == "3" for c in r["changes"]), r["changes"]
    assert 0 < r["moved"] < r["keys"] == 600
    assert "keeps its old settings until the broker restarts" in json.dumps(doc)


def test_the_same_properties_on_both_sides_are_no_change(tmp_path: Path) -> None:
    xml = tmp_path / "broker.xml"
    xml.write_text(XML, encoding="utf-8")
    props = tmp_path / "routers.properties"
    props.write_text(ROUTER.format(modulo=2), encoding="utf-8")
    run = arouter("diff", str(xml), str(xml), "--properties", str(props), "-f", "json", cwd=tmp_path)
    assert run.code == 0, run.err
    (r,) = [r for r in json.loads(run.out)["routers"] if r["name"] == "shard"]
    assert r["status"] == "unchanged"
