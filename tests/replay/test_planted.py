"""Real broker logs (2.40.0, DEBUG + audit) edited to plant drift, cache hits, down targets and a filter
changed through management: each classified as the edit says, and each verdict gone with its evidence."""

from __future__ import annotations

import re

from tests.cli.helpers import arouter

from .helpers import CONFIG, DATA, reasons, replay_json

REAL = DATA / "2.40.0" / "debug" / "artemis.log"
INFO = DATA / "2.40.0" / "info" / "artemis.log"
SELF_NODE = "d36dffcb-f29b-11f1-ade9-02fc00000001"


def lines(path=REAL) -> list[str]:
    return path.read_text().splitlines(keepends=True)


def numbered(text: list[str], needle: str) -> list[int]:
    """1-based numbers of the lines holding ``needle``."""
    return [i + 1 for i, line in enumerate(text) if needle in line]


def target(name: str, node: str) -> str:
    return (f"ActiveMQTarget [connector=TransportConfiguration(name={name}, factory=org-apache-activemq-artemis-core-"
            f"remoting-impl-netty-NettyConnectorFactory)?port=61799&host=127-0-0-1, nodeID={node}]")


def route_to(line: str, where: str) -> str:
    """A route line (AMQ221085 or AMQ221086) made a route to ``where``."""
    conn = re.search(r"(?:Route|Cannot route) (\S+\[ID=[^\]]*\])", line)
    assert conn, line
    head = line[:line.index("AMQ2210")]
    return f"{head}AMQ221085: Route {conn[1]} to {where}\n"


def write(tmp_path, text: list[str]) -> str:
    path = tmp_path / "artemis.log"
    path.write_text("".join(text))
    return str(path)


def test_the_real_log_as_recorded_has_no_drift():
    assert replay_json(str(REAL), code=0)["counts"]["drift"] == 0


def test_a_planted_route_the_config_never_gives_is_drift_with_its_line_and_minute(tmp_path):
    text = lines()
    [bob] = [n for n in numbered(text, "AMQ221086") if "keyValue for USER_NAME: bob" in text[n - 3]][:1]
    text[bob - 1] = route_to(text[bob - 1], target("self", SELF_NODE))
    doc = replay_json(write(tmp_path, text), code=1)
    assert doc["counts"]["drift"] == 1
    [sample] = doc["samples"]["drift:"]
    assert (sample["line"], sample["router"], sample["key"], sample["actual"], sample["expected"]) == (
        bob, "by-user", "bob", "self", "REFUSED_USE_ANOTHER")
    assert doc["drift_timeline"] == [{"minute": text[bob - 1][:16], "drift": 1}]


def test_a_cache_hit_is_explained_by_the_earlier_decision_and_is_drift_without_it(tmp_path):
    text = lines()
    c1 = [n for n in numbered(text, "AMQ221085") if "CLIENT_ID: c1" in "".join(text[n - 5:n])]
    first, second = numbered(text, "keyValue for CLIENT_ID: c1")
    route_first = next(n for n in numbered(text, "AMQ221085") if n > first)
    route_second = next(n for n in numbered(text, "AMQ221085") if n > second)
    assert route_second in c1
    for n in (route_first, route_second):  # both c1 connections sent to a broker no pool holds
        text[n - 1] = route_to(text[n - 1], target("elsewhere", "0000-elsewhere"))
    # and the second decision's own cache lines gone: only the earlier decision explains it
    text = [t for t in text if "The cache returns target [d" not in t and "is ready for CLIENT_ID[c1]" not in t]
    doc = replay_json(write(tmp_path, text), code=1)
    by_line = {s["line"]: s for v in doc["samples"].values() for s in v}
    explained = [s for s in by_line.values() if s["reason"] == "cache-hit"]
    assert len(explained) == 1 and explained[0]["actual"] == "elsewhere"
    assert explained[0]["detail"].startswith("cached by the decision at ") and explained[0]["key"] == "c1"
    drifted = [s for s in by_line.values() if s["verdict"] == "drift"]
    assert [(s["key"], s["actual"]) for s in drifted] == [("c1", "elsewhere")]
    # without the earlier decision, nothing explains the second
    first_route = [t for t in text if "to ActiveMQTarget [connector=TransportConfiguration(name=elsewhere" in t][0]
    text.remove(first_route)
    doc = replay_json(write(tmp_path, text), code=1)
    assert doc["counts"]["drift"] == 1 and reasons(doc, "by-cid").get(("explained", "cache-hit")) is None


def test_the_brokers_own_cache_line_explains_a_hit(tmp_path):
    text = lines()
    second = numbered(text, "keyValue for CLIENT_ID: c1")[1]
    route_second = next(n for n in numbered(text, "AMQ221085") if n > second)
    text[route_second - 1] = route_to(text[route_second - 1], target("elsewhere", "0000-elsewhere"))
    # the broker's cache line names another node than the one it routed to: that explains nothing
    assert replay_json(write(tmp_path, text), code=1)["counts"]["drift"] == 1
    text[second:route_second - 1] = [t.replace(SELF_NODE, "0000-elsewhere") for t in text[second:route_second - 1]]
    doc = replay_json(write(tmp_path, text), code=0)
    [hit] = doc["samples"]["explained:cache-hit"]
    assert hit["line"] == route_second and hit["detail"] == "the cache returned node 0000-elsewhere (DEBUG)"


def test_a_down_target_is_explained_only_while_a_line_says_it_is_down(tmp_path):
    doc = replay_json(str(INFO), code=0)
    assert reasons(doc, "by-ip") == {("explained", "target-not-ready"): 2}
    text = [t for t in lines(INFO) if "Error monitoring" not in t]
    doc = replay_json(write(tmp_path, text), code=1)
    assert reasons(doc, "by-ip") == {("drift", ""): 2}
    # the user saying it was down is the config's answer itself
    doc = replay_json(write(tmp_path, text), "--down", "dead", code=0)
    assert reasons(doc, "by-ip") == {("agrees", "remote address"): 2}


def test_a_filter_changed_through_management_is_explained_by_the_filter_the_broker_used(tmp_path):
    text = lines()
    bob = [n for n in numbered(text, "AMQ221086") if "keyValue for USER_NAME" in text[n - 2]][0]
    stamp = text[bob - 1][:24]
    live = f"{stamp} DEBUG [org.apache.activemq.artemis.core.server.routing.ConnectionRouter] " \
           f"The USER_NAME[bob] matches the localTargetFilter alice|bob\n"
    local = f"LocalTarget [connector=null, nodeID={SELF_NODE}]"
    text[bob - 1:bob] = [live, route_to(text[bob - 1], local)]
    doc = replay_json(write(tmp_path, text), code=0)
    [changed] = doc["samples"]["explained:filter-changed"]
    assert changed["line"] == bob + 1 and changed["actual"] == "local"
    assert "'alice|bob'" in changed["detail"] and "'alice'" in changed["detail"]


def test_an_unknown_node_id_explains_a_consistent_hash_difference_until_it_is_given(tmp_path):
    # without the pool's lines the dead target counts as ready; its node id is in no line
    text = [t for t in lines() if "Error monitoring" not in t and "Ready targets are" not in t
            and "The policy selects" not in t and "TargetMonitor" not in t]
    doc = replay_json(write(tmp_path, text), code=1)
    assert reasons(doc, "by-ip") == {("drift", ""): 2}  # FIRST_ELEMENT says dead: no line says it was down
    cid = reasons(doc, "by-cid")
    assert ("explained", "node-id-unknown") in cid and ("drift", "") not in cid
    assert all("dead" in s["detail"] for s in doc["samples"]["explained:node-id-unknown"])


def test_hostile_lines_are_counted_and_sampled_never_a_crash(tmp_path):
    text = lines()
    junk = ["x" * 300_000 + "\n", "2026-12-08 00:10:57,000 INFO  [org.apache.activemq.artemis.core.server] "
            "AMQ221085: Route nonsense\n", '{"message": \n', "\x00\x01\x02 binary\n",
            "2026-12-08 00:10:57,000 INFO  [org.apache.activemq.audit] AMQ601715: User\n"]
    path = tmp_path / "artemis.log"
    path.write_bytes("".join(text[:40] + junk + text[40:]).encode() + b"\xff\xfe not utf-8\n")
    run = arouter("replay", "-c", str(CONFIG), "-f", "json", str(path))
    assert run.code == 0 and "Traceback" not in run.err
    import json

    doc = json.loads(run.out)
    bad = doc["bad_lines"]
    assert bad["count"] == 4 and [b["line"] for b in bad["samples"]] == [41, 42, 43, 45]
    assert all(len(b["text"]) <= 200 for b in bad["samples"])
    assert doc["decisions"] == 11


def test_role_name_is_keyed_from_the_audit_roles_in_the_brokers_order(tmp_path):
    # the 2.40 XSD has no ROLE_NAME key type (2.41 added it): the recorded USER_NAME router, read as ROLE_NAME
    config = tmp_path / "roles.xml"
    config.write_text(CONFIG.read_text().replace("<key-type>USER_NAME</key-type>", "<key-type>ROLE_NAME</key-type>")
                      .replace("<key-filter>^[a-z]+</key-filter>", "")
                      .replace("<local-target-filter>alice</local-target-filter>",
                               "<local-target-filter>admins</local-target-filter>"))
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "artemis.log").write_text("".join(t for t in lines() if " DEBUG " not in t))
    (folder / "audit.log").write_text((DATA / "2.40.0" / "debug" / "audit.log").read_text())
    run = arouter("replay", "-c", str(config), "-f", "json", str(folder))
    import json

    doc = json.loads(run.out)
    keyed = {(s["key"], s["actual"], s["expected"], s["reason"])
             for v in doc["samples"].values() for s in v if s["router"] == "by-user"}
    # alice (admins, amq): the broker walks a HashSet of the names, where amq comes first, so the key is
    # amq, not admins: the config says refuse, while the broker (then keyed by USER_NAME) kept her local
    assert ("amq", "local", "REFUSED_USE_ANOTHER", "") in keyed
    assert all(k[3] in ("audit", "") for k in keyed) and run.code == 1


def test_a_truncated_gzip_is_read_up_to_where_it_breaks_and_counted_bad(tmp_path):
    import gzip
    import json

    data = gzip.compress(REAL.read_bytes())
    (tmp_path / "artemis.log.1.gz").write_bytes(data[: len(data) * 2 // 3])
    run = arouter("replay", "-c", str(CONFIG), "-f", "json", str(tmp_path / "artemis.log.1.gz"))
    assert run.code == 0 and "Traceback" not in run.err, run.err
    doc = json.loads(run.out)
    assert doc["bad_lines"]["count"] == 1 and doc["bad_lines"]["samples"][0]["why"].startswith("cannot read on")
    assert 0 < doc["decisions"] < 11 and doc["lines"] > 1
