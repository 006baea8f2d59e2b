"""``arouter replay`` on logs real Artemis brokers wrote (tests/data/replay/record.py: 2.40.0 and 2.31.2,
INFO only, and DEBUG on the routing package with the audit log on), real MQTT and AMQP clients; 2.21.0
(JBoss logging, AMQ601715 without the connection id: joined by address) was recorded after replay was
written and passed these tests unchanged: the held-out check."""

from __future__ import annotations

import pytest

from .helpers import DATA, VERSIONS, broker_node_id, reasons, replay_json


@pytest.mark.parametrize("version", VERSIONS)
def test_info_only_keys_source_ip_and_says_what_it_cannot_key(version):
    doc = replay_json(str(DATA / version / "info"), code=0)
    assert doc["counts"] == {"agrees": 0, "explained": 2, "drift": 0, "unkeyed": 9}
    # by-ip is FIRST_ELEMENT over [dead, self]: the config says dead; the broker logged dead's failed
    # checks at WARN (visible at INFO) and sent both clients to self
    assert reasons(doc, "by-ip") == {("explained", "target-not-ready"): 2}
    assert all("dead (line" in s["detail"] for s in doc["samples"]["explained:target-not-ready"])
    assert reasons(doc, "by-cid") == {("unkeyed", "INFO only"): 5}
    assert reasons(doc, "by-user") == {("unkeyed", "INFO only"): 4}
    assert {c["router"]: c["key_type"] for c in doc["cannot_say"]} == {"by-cid": "CLIENT_ID", "by-user": "USER_NAME"}
    lines = doc["log4j2_lines"]
    if version == "2.21.0":  # JBoss logging: test_the_lines_to_add_follow_the_logging_the_brokers_version_reads
        assert doc["logging_file"] == "etc/logging.properties"
        return
    assert "logger.arouter_key.name=org.apache.activemq.artemis.core.server.routing.KeyResolver" in lines
    assert "logger.arouter_key.level=DEBUG" in lines
    assert "logger.audit_resource.level = INFO" in lines  # USER_NAME: the audit log would do as well


@pytest.mark.parametrize("version", VERSIONS)
def test_debug_and_audit_key_every_connection_and_nothing_drifts(version):
    folder = DATA / version / "debug"
    doc = replay_json(str(folder), code=0)
    assert doc["decisions"] == 11 and doc["counts"]["drift"] == 0 and doc["counts"]["unkeyed"] == 0
    assert doc["bad_lines"]["count"] == 0
    # alice matches the local-target-filter; bob and the anonymous client are refused (no policy)
    assert reasons(doc, "by-user") == {("agrees", "debug"): 4}
    targets = {(t["actual"], t["expected"]): t["count"] for t in doc["routers"]["by-user"]["targets"]}
    assert targets == {("local", "local"): 1, ("REFUSED", "REFUSED_USE_ANOTHER"): 3}
    # the node ids came from the logs: the self connector is this very broker
    node = broker_node_id(folder / "artemis.log")
    assert doc["node_ids_from_logs"]["self"] == node and doc["node_ids_from_logs"]["local"] == node
    cid = reasons(doc, "by-cid")
    assert sum(cid.values()) == 5 and set(cid) <= {("agrees", "debug"), ("explained", "cache-hit"),
                                                   ("explained", "target-not-ready")}
    # c1 connected twice: the second decision is the cache's, whatever the hash said
    c1 = [s for k, v in doc["samples"].items() for s in v if s["router"] == "by-cid" and s["key"] == "c1"]
    assert len(c1) == 2 and c1[1]["reason"] in ("debug", "cache-hit")


@pytest.mark.parametrize("version", VERSIONS)
def test_audit_lines_key_user_name_when_the_debug_lines_are_gone(version, tmp_path):
    folder = DATA / version / "debug"
    info = [line for line in (folder / "artemis.log").read_text().splitlines(keepends=True) if " DEBUG " not in line]
    (tmp_path / "artemis.log").write_text("".join(info))
    (tmp_path / "audit.log").write_text((folder / "audit.log").read_text())
    doc = replay_json(str(tmp_path), code=0)
    # the anonymous MQTT client authenticated as the guest user 'a': its key filter match 'a' is refused too
    assert reasons(doc, "by-user") == {("agrees", "audit"): 4}
    assert reasons(doc, "by-cid") == {("unkeyed", "INFO only"): 5}
    assert [c["router"] for c in doc["cannot_say"]] == ["by-cid"]


def test_the_readmes_sample_is_the_2_40_recording():
    samples = DATA.parents[2] / "samples" / "replay"
    assert (samples / "broker.xml").read_bytes() == (DATA / "broker.xml").read_bytes()
    for part in ("debug/artemis.log", "debug/audit.log", "info/artemis.log"):
        assert (samples / part).read_bytes() == (DATA / "2.40.0" / part).read_bytes()


def test_the_lines_to_add_follow_the_logging_the_brokers_version_reads():
    # 2.21 reads JBoss LogManager's etc/logging.properties: the same loggers in its syntax
    old = replay_json(str(DATA / "2.21.0" / "info"), code=0)
    assert (old["broker_version"], old["logging_file"]) == ("2.21", "etc/logging.properties")
    assert "logger.org.apache.activemq.artemis.core.server.routing.level=DEBUG" in old["log4j2_lines"]
    assert "logger.org.apache.activemq.audit.resource.level=INFO" in old["log4j2_lines"]
    new = replay_json(str(DATA / "2.31.2" / "info"), code=0)
    assert (new["broker_version"], new["logging_file"]) == ("2.31", "etc/log4j2.properties")
