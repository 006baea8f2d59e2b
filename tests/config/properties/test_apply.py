"""The properties pass over the sections arouter models, line by line, as the broker's populateWithProperties.

Each silent case of the broker produces its finding at the properties line; each value keeps its origin.
"""

from __future__ import annotations

from pathlib import Path

from artemis_routing_cli.config import LoadOptions, load
from artemis_routing_cli.config.properties import PropertiesOptions

from .helpers import EMPTY, applied, core, rules

ROUTER = """connectionRouters.autoShard.keyType=CLIENT_ID
connectionRouters.autoShard.localTargetFilter=NULL|${STATEFUL_SET_ORDINAL}
connectionRouters.autoShard.policyConfiguration=CONSISTENT_HASH_MODULO
connectionRouters.autoShard.policyConfiguration.properties.MODULO=2
acceptorConfigurations.tcp.params.router=autoShard
"""


TCP = core('<acceptors><acceptor name="tcp">tcp://0.0.0.0:61616</acceptor></acceptors>')
FACTORY = "org.apache.activemq.artemis.core.remoting.impl.netty.NettyAcceptorFactory"


def test_the_operator_example_builds_the_router_and_routes_the_acceptor(tmp_path: Path) -> None:
    cfg = applied(tmp_path, ROUTER, xml=TCP, env={"STATEFUL_SET_ORDINAL": "1"})
    (r,) = cfg.connection_routers
    assert (r.name, r.key_type, r.local_target_filter) == ("autoShard", "CLIENT_ID", "NULL|1")
    assert r.policy is not None and r.policy.name == "CONSISTENT_HASH_MODULO"
    assert dict(r.policy.properties) == {"MODULO": "2"}
    assert r.pool is None and r.cache is None
    assert [a.router for a in cfg.routed_acceptors()] == ["autoShard"]
    assert r.origins["keyType"].line == 1 and r.origins["policyConfiguration.properties.MODULO"].line == 4
    assert r.policy.property_pos["MODULO"].line == 4
    assert rules(cfg) == []


def test_an_acceptor_made_by_properties_needs_a_factory(tmp_path: Path) -> None:
    cfg = applied(tmp_path, ROUTER, env={"STATEFUL_SET_ORDINAL": "1"})  # no acceptor "tcp" in broker.xml
    assert cfg.acceptors == ()  # RemotingServiceImpl.createAcceptor fails: the broker never creates it
    assert rules(cfg) == [("AR721", 5)]
    cfg = applied(tmp_path, ROUTER + f"acceptorConfigurations.tcp.factoryClassName={FACTORY}\n",
                  env={"STATEFUL_SET_ORDINAL": "1"})
    assert [(a.name, a.router, a.url.port) for a in cfg.acceptors] == [("tcp", "autoShard", 61616)]


def test_backslash_d_in_a_key_filter_loses_its_backslash(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "connectionRouters.r.keyFilter=^\\d+\nconnectionRouters.s.keyFilter=^\\\\d+\n")
    assert [r.key_filter for r in cfg.connection_routers] == ["^d+", "^\\d+"]


def test_int_garbage_is_silently_zero(tmp_path: Path) -> None:
    text = "".join(f"connectionRouters.r{i}.cacheConfiguration.timeout={v}\n"
                   for i, v in enumerate(["5s", "0x10", "4.2", "1_000", "99999999999", " 7 "]))
    cfg = applied(tmp_path, text)
    assert [r.cache.timeout for r in cfg.connection_routers if r.cache] == [0, 0, 0, 0, 0, 7]
    assert rules(cfg) == [("AR712", n) for n in range(1, 6)]


def test_booleans_outside_the_word_list_are_silently_false(tmp_path: Path) -> None:
    text = "".join(f"connectionRouters.r{i}.cacheConfiguration.persisted={v}\n"
                   for i, v in enumerate(["YES", "on", "1", "true ", "si", "Y"]))
    cfg = applied(tmp_path, text)
    assert [r.cache.persisted for r in cfg.connection_routers if r.cache] == [True, True, True, False, False, True]
    assert rules(cfg) == [("AR712", 4), ("AR712", 5)]


def test_enum_must_be_exact_and_keeps_the_old_value(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "connectionRouters.r.keyType=client_id\nconnectionRouters.s.keyType=CLIENT_ID \n")
    assert [r.key_type for r in cfg.connection_routers] == ["SOURCE_IP", "SOURCE_IP"]
    assert rules(cfg) == [("AR713", 1), ("AR713", 2)]
    (status,) = cfg.property_sources
    assert [e.value for e in status.errors] == ["connectionRouters.r.keyType=client_id",
                                                "connectionRouters.s.keyType=CLIENT_ID "]


def test_long_takes_byte_suffixes(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "clusterConfigurations.cc.connectionTTL=1K\nclusterConfigurations.cc.retryInterval=2mb\n"
                            "clusterConfigurations.cc.callTimeout=abc\n")
    (cc,) = cfg.cluster_connections
    assert (cc.connection_ttl, cc.retry_interval, cc.call_timeout) == (1024, 2 * 1024 * 1024, 30000)
    assert rules(cfg) == [("AR713", 3)]


def test_unknown_name_still_creates_the_entry(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "clusterConfigurations.cc.bonkers=1\nconnectionRouters.r.keytype=CLIENT_ID\n")
    assert [c.name for c in cfg.cluster_connections] == ["cc"]
    assert [r.name for r in cfg.connection_routers] == ["r"]
    found = cfg.property_findings
    assert [(f.rule, f.pos.line) for f in found] == [("AR711", 1), ("AR711", 2)]
    assert found[1].hint is not None and "keyType" in found[1].hint


def test_any_key_under_a_map_is_accepted_and_flagged(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "connectionRouters.r.policyConfiguration=CONSISTENT_HASH_MODULO\n"
                            "connectionRouters.r.policyConfiguration.properties.modulo=2\n"
                            "acceptorConfigurations.a.params.routr=r\n"
                            f"acceptorConfigurations.a.factoryClassName={FACTORY}\n")
    (r,) = cfg.connection_routers
    assert dict(r.policy.properties) == {"modulo": "2"}
    assert cfg.acceptors[0].router is None
    assert rules(cfg) == [("AR714", 3)]  # the policy's key is AR303's, over the merged configuration
    assert "router" in (cfg.property_findings[0].hint or "")
    assert r.policy.property_pos["modulo"].line == 2


def test_undefined_substitution_becomes_empty(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "connectionRouters.r.localTargetFilter=NULL|${ORD}\n"
                            "connectionRouters.s.localTargetFilter=NULL|${ORD:3}\n")
    assert [r.local_target_filter for r in cfg.connection_routers] == ["NULL|", "NULL|3"]
    assert rules(cfg) == [("AR715", 1)]


def test_policy_line_after_its_properties_undoes_them(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "connectionRouters.r.policyConfiguration.properties.MODULO=2\n"
                            "connectionRouters.r.policyConfiguration=CONSISTENT_HASH_MODULO\n")
    (r,) = cfg.connection_routers
    assert dict(r.policy.properties) == {}
    assert rules(cfg) == [("AR713", 1), ("AR716", 2)]


def test_a_repeated_key_applies_at_its_first_place(tmp_path: Path) -> None:
    # line 3 repeats line 1's key: the broker applies it at line 1's place, so MODULO survives
    cfg = applied(tmp_path, "connectionRouters.r.policyConfiguration=CONSISTENT_HASH_MODULO\n"
                            "connectionRouters.r.policyConfiguration.properties.MODULO=2\n"
                            "connectionRouters.r.policyConfiguration=CONSISTENT_HASH_MODULO\n")
    assert dict(cfg.connection_routers[0].policy.properties) == {"MODULO": "2"}
    assert rules(cfg) == []


def test_a_later_source_replacing_the_policy_undoes_its_properties(tmp_path: Path) -> None:
    d = tmp_path / "props"
    d.mkdir()
    (d / "01-router.properties").write_text("connectionRouters.r.policyConfiguration=CONSISTENT_HASH_MODULO\n"
                                            "connectionRouters.r.policyConfiguration.properties.MODULO=2\n")
    (d / "02-tweak.properties").write_text("connectionRouters.r.policyConfiguration=CONSISTENT_HASH_MODULO\n")
    (tmp_path / "broker.xml").write_text(EMPTY)
    cfg = load(str(tmp_path / "broker.xml"), LoadOptions({}, {}, PropertiesOptions(paths=(f"{d}/",))))
    assert dict(cfg.connection_routers[0].policy.properties) == {}
    (finding,) = cfg.property_findings
    assert finding.rule == "AR716" and finding.pos.file.endswith("02-tweak.properties")
    assert "01-router.properties:2" in finding.message


def test_whole_map_form(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "connectionRouters.r.policyConfiguration=CONSISTENT_HASH_MODULO\n"
                            "connectionRouters.r.policyConfiguration.properties=MODULO=3,X=y\n"
                            "connectionRouters.s.policyConfiguration=FIRST_ELEMENT\n"
                            "connectionRouters.s.policyConfiguration.properties=MODULO\n")
    assert dict(cfg.connection_routers[0].policy.properties) == {"MODULO": "3", "X": "y"}
    assert ("AR713", 4) in rules(cfg)


def test_pool_line_without_a_target_source(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "connectionRouters.r.poolConfiguration.checkPeriod=1000\n"
                            "connectionRouters.s.poolConfiguration.checkPeriod=1000\n"
                            "connectionRouters.s.poolConfiguration.staticConnectors=a, b\n")
    assert rules(cfg) == [("AR717", 1)]
    assert cfg.connection_routers[1].pool.static_connectors == ("a", " b")  # split on commas, not trimmed


def test_removal_of_an_entry_a_map_key_and_a_collection(tmp_path: Path) -> None:
    cfg = applied(tmp_path, ROUTER + "connectionRouters.other.keyType=USER_NAME\n"
                  "connectionRouters.autoShard.policyConfiguration.properties.MODULO=-\n"
                  "connectionRouters.other=-\nacceptorConfigurations=-\n")
    assert [r.name for r in cfg.connection_routers] == ["autoShard"]
    assert dict(cfg.connection_routers[0].policy.properties) == {}
    assert cfg.acceptors == ()


def test_remove_value_and_key_surround_controls(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "remove.value=DROP\nkey.surround=|\nconnectionRouters.|a.b|.keyType=CLIENT_ID\n"
                            "connectionRouters.c.keyType=CLIENT_ID\nconnectionRouters.c=DROP\n")
    assert [(r.name, r.key_type) for r in cfg.connection_routers] == [("a.b", "CLIENT_ID")]


def test_mapped_step_finds_only(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "connectionRouters.r.keyType=CLIENT_ID\nconnectionRouters(r).keyFilter=^.{3}\n"
                            "connectionRouters(nope).keyFilter=x\n")
    assert [(r.name, r.key_filter) for r in cfg.connection_routers] == [("r", "^.{3}")]
    assert rules(cfg) == [("AR713", 3)]


def test_properties_override_xml_in_place_and_say_both_places(tmp_path: Path) -> None:
    xml = core("""<connection-routers>
  <connection-router name="r">
    <key-type>CLIENT_ID</key-type>
    <local-target-filter>NULL</local-target-filter>
  </connection-router>
</connection-routers>""")
    cfg = applied(tmp_path, "connectionRouters.r.keyType=USER_NAME\nconnectionRouters.n.keyType=SNI_HOST\n", xml=xml)
    assert [(r.name, r.key_type) for r in cfg.connection_routers] == [("r", "USER_NAME"), ("n", "SNI_HOST")]
    r = cfg.connection_routers[0]
    assert r.local_target_filter == "NULL" and r.origins["localTargetFilter"].line == 5
    assert r.origins["keyType"].file.endswith("b.properties")
    (finding,) = cfg.property_findings
    assert finding.rule == "AR718" and "broker.xml:4" in finding.message


def test_untouched_xml_objects_are_kept_as_they_are(tmp_path: Path) -> None:
    xml = core('<acceptors><acceptor name="a">tcp://0.0.0.0:61616?router=r</acceptor></acceptors>')
    cfg = applied(tmp_path, "acceptorConfigurations.b.params.port=5672\n"
                            f"acceptorConfigurations.b.factoryClassName={FACTORY}\n", xml=xml)
    assert cfg.acceptors[0].url.raw == "tcp://0.0.0.0:61616?router=r"
    assert cfg.acceptors[1].url.port == 5672


def test_a_bad_unicode_escape_drops_the_whole_file(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "connectionRouters.r.keyType=CLIENT_ID\nx=\\u12\n")
    assert cfg.connection_routers == ()
    assert rules(cfg) == [("AR710", 2)]
    assert cfg.property_sources[0].load_error == "java.lang.IllegalArgumentException: Malformed \\uxxxx encoding."


def test_json_form_and_its_nested_map_trap(tmp_path: Path) -> None:
    good = applied(tmp_path, '{"connectionRouters": {"r": {"keyType": "CLIENT_ID", "policyConfiguration": '
                   '{"name": "CONSISTENT_HASH_MODULO", "properties": "MODULO=3"}}}}', name="b.json")
    assert dict(good.connection_routers[0].policy.properties) == {"MODULO": "3"}
    bad = applied(tmp_path, '{"connectionRouters": {"r": {"keyType": "CLIENT_ID",\n"policyConfiguration": '
                  '{"name": "CONSISTENT_HASH_MODULO", "properties": {"MODULO": "3"}}}}}', name="c.json")
    assert dict(bad.connection_routers[0].policy.properties) == {}
    assert rules(bad) == [("AR719", 2)]


def test_secrets_stay_out_of_status_and_findings(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "connectionRouters.r.poolConfiguration.password=hunter2\n"
                            "connectionRouters.r.poolConfiguration.passwrd=hunter2\n"
                            "connectionRouters.r.poolConfiguration.username=ENC(abc)\n")
    text = repr(cfg.property_findings) + repr(cfg.property_sources)
    assert "hunter2" not in text


def test_the_brokers_own_router_example(tmp_path: Path) -> None:
    """The lines and expectations of the broker's ConfigurationImplTest router properties test."""
    cfg = applied(tmp_path, """connectionRouters.autoShard.localTargetFilter=NULL|$STATEFUL_SET_ORDINAL
connectionRouters.autoShard.keyType=CLIENT_ID
connectionRouters.autoShard.policyConfiguration=CONSISTENT_HASH_MODULO
connectionRouters.autoShard.policyConfiguration.properties.MODULO=2
connectionRouters.symmetricRedirect.keyType=CLIENT_ID
connectionRouters.symmetricRedirect.keyFilter=^.{3}
connectionRouters.symmetricRedirect.policyConfiguration=CONSISTENT_HASH
connectionRouters.symmetricRedirect.poolConfiguration.username=guest-username
connectionRouters.symmetricRedirect.poolConfiguration.password=guest-password
connectionRouters.symmetricRedirect.poolConfiguration.quorumSize=2
connectionRouters.symmetricRedirect.poolConfiguration.localTargetEnabled=true
connectionRouters.symmetricRedirect.poolConfiguration.discoveryGroupName=discovery-group-1
connectionRouters.symmetricRedirect.cacheConfiguration.persisted=true
connectionRouters.symmetricRedirect.cacheConfiguration.timeout=1234
""")
    auto, sym = cfg.connection_routers
    assert (auto.name, auto.key_type) == ("autoShard", "CLIENT_ID")
    assert auto.local_target_filter == "NULL|$STATEFUL_SET_ORDINAL"  # no braces: not substituted
    assert dict(auto.policy.properties) == {"MODULO": "2"} and auto.cache is None and auto.pool is None
    assert (sym.key_type, sym.key_filter, sym.policy.name) == ("CLIENT_ID", "^.{3}", "CONSISTENT_HASH")
    pool = sym.pool
    assert (pool.username, pool.password, pool.quorum_size, pool.local_target_enabled, pool.discovery_group) == (
        "guest-username", "guest-password", 2, True, "discovery-group-1")
    assert (sym.cache.persisted, sym.cache.timeout) == (True, 1234)
    assert rules(cfg) == []


def test_a_misspelt_section_is_flagged_other_sections_are_kept(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "connectionRouter.r.keyType=CLIENT_ID\naddressSettings.\"a.#\".maxDeliveryAttempts=3\n")
    assert cfg.connection_routers == ()
    (finding,) = cfg.property_findings
    assert (finding.rule, finding.pos.line, finding.hint) == ("AR711", 1, "did you mean connectionRouters?")
    assert [line.key for line in cfg.property_kept] == ["connectionRouter.r.keyType",
                                                        'addressSettings."a.#".maxDeliveryAttempts']


def test_the_xml_rules_judge_the_merged_configuration_at_the_properties_line(tmp_path: Path) -> None:
    from artemis_routing_cli.linting import LintSettings, lint_path

    (tmp_path / "broker.xml").write_text(EMPTY)
    (tmp_path / "broker.properties").write_text("connectionRouters.s.keyType=CLIENT_ID\n"
                                                "connectionRouters.s.policyConfiguration=CONSISTENT_HASH_MODULO\n"
                                                "connectionRouters.s.policyConfiguration.properties.modulo=2\n")
    report = lint_path(str(tmp_path / "broker.xml"), LintSettings(environ={}))
    found = {(d.rule, Path(d.file).name, d.line) for d in report.diagnostics}
    assert ("AR303", "broker.properties", 3) in found


def test_a_refused_line_still_creates_the_objects_on_its_way(tmp_path: Path) -> None:
    xml = core("""<connection-routers>
  <connection-router name="r">
    <key-type>CLIENT_ID</key-type>
    <local-target-filter>NULL</local-target-filter>
  </connection-router>
</connection-routers>""")
    cfg = applied(tmp_path, "connectionRouters.r.poolConfiguration.bonkers=1\n", xml=xml)
    (r,) = cfg.connection_routers
    assert r.pool is not None and r.pool.source == "none"  # initProperty made it before the name failed
    assert rules(cfg) == [("AR711", 1), ("AR717", 1)]


def test_removing_a_list_property_clears_the_list(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "clusterConfigurations.cc.staticConnectors=a,b\nremove.value=DEL\n"
                  "clusterConfigurations.cc.connectorName=x\nclusterConfigurations.cc.staticConnectors=DEL\n"
                  "clusterConfigurations.dd.staticConnectors=DEL\n"  # Collections.emptyList() clears too
                  "broadcastGroupConfigurations.b.connectorInfos=DEL\n")  # null: the broker refuses
    # a repeated key keeps its first place and its last value: the removal is applied at line 1
    assert [c.static_connectors for c in cfg.cluster_connections] == [(), ()]
    (status,) = cfg.property_sources
    assert [e.reason for e in status.errors] == [
        "java.lang.reflect.InvocationTargetException: Can only clear entries from collection or map properties. "
        "property: connectorInfos, on: null"]
    cfg = applied(tmp_path, "clusterConfigurations.cc.staticConnectors=a,b\n"
                  "clusterConfigurations.cc.staticConnectors=-\n")
    assert cfg.cluster_connections[0].static_connectors == () and cfg.property_sources[0].errors == ()
