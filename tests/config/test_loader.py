"""Loading broker.xml as the broker does: substitution, XInclude, safety, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from artemis_routing_cli.config import LoadOptions, load, load_text
from artemis_routing_cli.config.substitution import Lookup, substitute
from artemis_routing_cli.errors import ConfigError
from tests.conftest import SAMPLE, broker_xml

ROUTER = """
<connection-routers>
  <connection-router name="${router.name:r1}">
    <key-type>${key.type:CLIENT_ID}</key-type>
  </connection-router>
</connection-routers>
"""


def test_substitution_order_property_then_env_then_default_then_empty() -> None:
    lookup = Lookup(properties={"a": "prop"}, environ={"a": "env", "b": "env-b"})
    text, reps = substitute("${a} ${b} ${c:dflt} ${d}", lookup)
    assert text == "prop env-b dflt "
    assert [(r.name, r.source) for r in reps] == [("a", "property"), ("b", "env"), ("c", "default"), ("d", "empty")]


def test_substitution_splits_at_first_colon_and_trims() -> None:
    text, reps = substitute("${ host : tcp://x:1 }", Lookup({}, {}))
    assert text == "tcp://x:1"
    assert reps[0].name == "host" and reps[0].default == "tcp://x:1"


def test_substitution_replaces_every_occurrence_and_ends_at_first_brace() -> None:
    text, _ = substitute("${x:1}-${x:1}-${y:a}b}", Lookup({}, {}))
    assert text == "1-1-ab}"


def test_unterminated_token_is_left_alone() -> None:
    text, reps = substitute("abc ${never", Lookup({}, {}))
    assert text == "abc ${never" and reps == []


def test_self_referencing_value_is_an_error_not_a_hang() -> None:
    with pytest.raises(ConfigError, match="loop forever"):
        substitute("${a}", Lookup({"a": "x${a}"}, {}))


def test_properties_inside_comments_and_attributes_are_substituted(tmp_path: Path) -> None:
    p = tmp_path / "b.xml"
    p.write_text(broker_xml("<!-- ${in.comment} -->" + ROUTER), encoding="utf-8")
    cfg = load(str(p), LoadOptions({"router.name": "from-prop"}, environ={"key.type": "USER_NAME"}))
    r = cfg.connection_routers[0]
    assert r.name == "from-prop"
    assert r.key_type == "USER_NAME"
    sources = {u.name: u.source for u in cfg.properties}
    assert sources == {"in.comment": "empty", "router.name": "property", "key.type": "env"}
    empty = [u for u in cfg.properties if u.source == "empty"][0]
    assert (empty.line, empty.file) == (4, str(p))


def test_xinclude_relative_to_including_file_with_property_in_href(tmp_path: Path) -> None:
    sub = tmp_path / "conf"
    sub.mkdir()
    (sub / "routers.xml").write_text(
        '<connection-routers xmlns="urn:activemq:core">\n'
        '  <connection-router name="${inc.name:included}"><key-type>CLIENT_ID</key-type></connection-router>\n'
        "</connection-routers>\n",
        encoding="utf-8",
    )
    main = sub / "broker.xml"
    main.write_text(
        broker_xml('<xi:include href="${part:routers}.xml"/>', extra_ns=' xmlns:xi="http://www.w3.org/2001/XInclude"'),
        encoding="utf-8",
    )
    cfg = load(str(main), LoadOptions(environ={}))
    assert [r.name for r in cfg.connection_routers] == ["included"]
    pos = cfg.connection_routers[0].pos
    assert pos.line == 2 and pos.file.endswith("routers.xml")
    assert any(f.endswith("routers.xml") for f in cfg.included_files)


def test_xinclude_to_the_network_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "b.xml"
    p.write_text(broker_xml('<xi:include href="http://127.0.0.1:1/x.xml"/>',
                            extra_ns=' xmlns:xi="http://www.w3.org/2001/XInclude"'), encoding="utf-8")
    with pytest.raises(ConfigError, match="network"):
        load(str(p))


def test_xinclude_missing_file_names_the_include(tmp_path: Path) -> None:
    p = tmp_path / "b.xml"
    p.write_text(broker_xml('<xi:include href="nope.xml"/>', extra_ns=' xmlns:xi="http://www.w3.org/2001/XInclude"'),
                 encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load(str(p))
    assert err.value.line == 4 and "nope.xml" in err.value.message


def test_xxe_is_refused_without_reading_the_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET", encoding="utf-8")
    doc = (f'<?xml version="1.0"?>\n<!DOCTYPE c [<!ENTITY xxe SYSTEM "file://{secret}">]>\n'
           '<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><name>&xxe;</name></core>'
           "</configuration>")
    p = tmp_path / "b.xml"
    p.write_text(doc, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load(str(p))
    assert "entities" in err.value.message and err.value.line == 2
    assert "TOPSECRET" not in str(err.value)


def test_billion_laughs_is_refused(tmp_path: Path) -> None:
    ents = '<!ENTITY lol "lol">' + "".join(
        f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i > 1 else "&lol;" * 10}">' for i in range(1, 10))
    doc = (f'<?xml version="1.0"?>\n<!DOCTYPE lolz [{ents}]>\n'
           '<configuration><core xmlns="urn:activemq:core">&lol9;</core></configuration>')
    p = tmp_path / "b.xml"
    p.write_text(doc, encoding="utf-8")
    with pytest.raises(ConfigError, match="entities"):
        load(str(p))


def test_malformed_xml_reports_line_and_column(tmp_path: Path) -> None:
    p = tmp_path / "b.xml"
    p.write_text('<configuration xmlns="urn:activemq">\n  <core xmlns="urn:activemq:core">\n    <name>x</nam>\n',
                 encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load(str(p))
    assert err.value.line == 3 and err.value.column > 1
    assert str(err.value).startswith(f"{p}:3:")


def test_empty_file(tmp_path: Path) -> None:
    p = tmp_path / "b.xml"
    p.write_text("   \n", encoding="utf-8")
    with pytest.raises(ConfigError, match="empty"):
        load(str(p))


def test_non_broker_xml(tmp_path: Path) -> None:
    p = tmp_path / "pom.xml"
    p.write_text("<project><modelVersion>4.0.0</modelVersion></project>", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a broker.xml"):
        load(str(p))


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load(str(tmp_path / "nope.xml"))
    with pytest.raises(ConfigError, match="directory"):
        load(str(tmp_path))


def test_stdin_document() -> None:
    cfg = load("-", stdin_bytes=broker_xml(ROUTER).encode())
    assert cfg.path == "<stdin>" and cfg.connection_routers[0].name == "r1"


def test_latin1_declared_encoding(tmp_path: Path) -> None:
    text = broker_xml("<name>caf\u00e9</name>").replace('encoding="UTF-8"', 'encoding="ISO-8859-1"')
    p = tmp_path / "b.xml"
    p.write_bytes(text.encode("latin-1"))
    assert load(str(p)).name == "caf\u00e9"


def test_model_defaults_and_broker_reading_rules() -> None:
    cfg = load_text(broker_xml("""
<connectors><connector name="c1">tcp://h1</connector><connector name="c1">tcp://dup:1</connector></connectors>
<acceptors><acceptor name="a">tcp://0.0.0.0:61616?router=r&amp;protocols=CORE,AMQP;sslEnabled=TRUE</acceptor></acceptors>
<connection-routers>
  <connection-router name="r">
    <policy name="ROUND_ROBIN"/>
    <pool><local-target-enabled>yes</local-target-enabled>
      <static-connectors><connector-ref>c1</connector-ref></static-connectors></pool>
    <policy name="FIRST_ELEMENT"/>
    <cache/>
  </connection-router>
</connection-routers>"""))
    c1 = cfg.connectors["c1"]
    # the first wins; no port in the URL is Java URI's -1 (the broker copies it as is)
    assert (c1.host, c1.port) == ("h1", -1)
    a = cfg.acceptors[0]
    assert a.router == "r" and a.protocols == ("CORE", "AMQP") and a.ssl_enabled
    r = cfg.connection_routers[0]
    assert r.key_type == "SOURCE_IP"
    assert r.policy is not None and r.policy.name == "FIRST_ELEMENT"  # the last <policy> wins
    assert len(r.policies) == 2
    assert r.pool is not None and r.pool.local_target_enabled is False  # parseBoolean("yes") is false
    assert (r.pool.check_period, r.pool.quorum_size, r.pool.quorum_timeout) == (5000, 1, 3000)
    assert r.cache is not None and r.cache.timeout == 0 and r.cache.persisted is False


def test_sample_loads_with_every_section() -> None:
    cfg = load(str(SAMPLE))
    names = {r.name for r in cfg.connection_routers}
    assert {"local-partition", "simple-router", "consistent-hash-router", "evenly-balance", "shard-router"} <= names
    assert cfg.diverts and cfg.cluster_connections and cfg.discovery_groups and cfg.broadcast_groups
    assert any(d.exclusive and d.filter for d in cfg.diverts)
    assert any(len(d.forwarding_addresses) > 1 for d in cfg.diverts)


def test_bundled_sample_equals_samples_broker_xml() -> None:
    from artemis_routing_cli.cli.common import bundled_sample

    assert Path(bundled_sample()).read_bytes() == SAMPLE.read_bytes()


def test_transport_urls_read_like_the_broker() -> None:
    from artemis_routing_cli.config.urls import parse_transport_url

    spaced = parse_transport_url("tcp://0.0.0.0:61616?router=r;\n      protocols=CORE,AMQP&sslEnabled=true", "acceptor")
    assert (spaced.host, spaced.port) == ("0.0.0.0", 61616)  # whitespace removed, ; and & both split
    # the transport parameters: scheme (acceptors only), host and port as text, then the query
    assert dict(spaced.params) == {"scheme": "tcp", "host": "0.0.0.0", "port": "61616", "router": "r",
                                   "protocols": "CORE,AMQP", "sslEnabled": "true"}
    assert parse_transport_url("tcp://[::1]:5672").host == "[::1]"  # java.net.URI keeps the brackets
    assert parse_transport_url("tcp://[::1]:5672").socket_host == "::1"
    assert parse_transport_url("tcp://h?port=61617&host=other").host_port == "other:61617"
    assert parse_transport_url("tcp://h").port == -1
