"""Acceptor and connector URLs as the broker holds them: params and extraProps in HashMap order,
host/port as the broker uses them, protocols, ?name=, and the first-child-node reading."""

from __future__ import annotations

from pathlib import Path

import pytest

from artemis_routing_cli.config import LoadOptions, load_text
from artemis_routing_cli.config.transport_keys import ACCEPTOR_KEYS, CONNECTOR_KEYS
from artemis_routing_cli.config.urls import DECODE, SCHEME, SYNTAX, UrlError, parse_transport_url
from tests.conftest import broker_xml

DATA = Path(__file__).parent / "data"
MIRROR = Path("/work/.mirror/apache+activemq-artemis/repo")


def _recorded() -> list[list[str]]:
    lines = (DATA / "java_transport_params.tsv").read_text(encoding="utf-8").split("\n")
    return [line.split("\t") for line in lines if line and not line.startswith("#")]


RECORDED = _recorded()


def _show(mapping: object) -> str:
    return "".join(f"{k}={'null' if v is None else v}\x01" for k, v in mapping.items())  # type: ignore[attr-defined]


@pytest.mark.parametrize("row", RECORDED, ids=[f"{r[0]}:{r[1][:60]}" for r in RECORDED])
def test_params_and_extra_props_in_the_brokers_order(row: list[str]) -> None:
    kind, url, *expected = row
    try:
        got = parse_transport_url(url, kind)
    except UrlError as err:
        assert expected == [{SYNTAX: "SYNTAX", DECODE: "DECODE", SCHEME: "SCHEME"}[err.kind]]
        return
    assert ["OK", got.host, str(got.port), _show(got.params), _show(got.extra_props)] == expected


def test_unknown_keys_go_to_extra_props() -> None:
    url = parse_transport_url("tcp://b1:61616?sslEnable=true;sslEnabled=false;amqpCredits=10", "connector")
    assert "sslEnabled" in url.params and "sslEnable" not in url.params
    assert dict(url.extra_props) == {"sslEnable": "true", "amqpCredits": "10"}
    acceptor = parse_transport_url("tcp://0.0.0.0:61616?router=r", "acceptor")
    assert acceptor.params["scheme"] == "tcp" and acceptor.params["router"] == "r"
    assert "router" not in parse_transport_url("tcp://b1:61616?router=r").params  # connectors have no router key


@pytest.mark.skipif(not MIRROR.is_dir(), reason="the broker's source mirror is absent")
def test_allowable_keys_match_transport_constants() -> None:
    import re
    import subprocess

    path = ("artemis-core-client/src/main/java/org/apache/activemq/artemis/core/remoting/impl/netty/"
            "TransportConstants.java")
    src = subprocess.run(["git", "-C", str(MIRROR), "show", f"HEAD:{path}"], capture_output=True, text=True,
                         check=True).stdout
    constants = dict(re.findall(r'public static final String (\w+)\s*=\s*"([^"]*)"', src))
    block = src[src.index("static {"):]
    masks = {"activemq.usemaskedpassword", "activemq.passwordcodec"}
    for kind, keys in (("Acceptor", ACCEPTOR_KEYS), ("Connector", CONNECTOR_KEYS)):
        names = re.findall(rf"allowable{kind}Keys\.add\(TransportConstants\.(\w+)\)", block)
        assert {constants[n] for n in names} | masks == keys


@pytest.mark.parametrize(("url", "host", "port", "port_is_number"), [
    ("tcp://h:1?port=abc", "h", 61616, False),  # getIntProperty: not an int -> the default, with a log line
    ("tcp://h:1?port", "h", 61616, True),  # a value-less port: null -> the default
    ("tcp://h?port=\u0663", "h", 3, True),  # Integer.parseInt takes Arabic-Indic digits
    ("tcp://h", "h", -1, True),
    ("tcp://my_broker:61616", "null", -1, True),
    ("tcp://[fe80::1]:61618", "[fe80::1]", 61618, True),
    ("tcp://h:1?host=", "", 1, True),
])
def test_host_and_port_as_the_broker_uses_them(url: str, host: str, port: int, port_is_number: bool) -> None:
    got = parse_transport_url(url)
    assert (got.host, got.port, got.port_is_number) == (host, port, port_is_number)


def test_ipv6_redirect_forms() -> None:
    url = parse_transport_url("tcp://[fe80::1]:61618")
    assert url.host_port == "[fe80::1]:61618" and f"tcp://{url.host_port}" == "tcp://[fe80::1]:61618"
    assert url.socket_host == "fe80::1"


@pytest.mark.parametrize(("url", "kind"), [
    ("TCP://h:1", SCHEME),  # the schema map is looked up exactly
    ("udp://h:1", SCHEME),
    ("h:1", SCHEME),
    ("", SCHEME),  # new URI("") parses; its scheme is null
    ("tcp://h:1?filter=a|b", SYNTAX),
    ("tcp://h:1?x=%zz", SYNTAX),
    ("tcp://h\u00a0x:1", SYNTAX),  # a no-break space is not whitespace to Java's \\s
    ("tcp://[fe80:::1]:1", SYNTAX),
    ("tcp://h:1?x=%25zz", DECODE),
    ("tcp://h:1#tcp://b|c:2", SYNTAX),  # the fragment's URLs are parsed too
])
def test_urls_the_broker_cannot_read(url: str, kind: str) -> None:
    with pytest.raises(UrlError) as info:
        parse_transport_url(url)
    assert info.value.kind == kind


def _acceptor(query: str):
    return parse_transport_url("tcp://0.0.0.0:61616?" + query, "acceptor")


@pytest.mark.parametrize(("query", "protocols", "unknown"), [
    ("protocols=CORE,AMQP", ("CORE", "AMQP"), ()),
    ("protocols=amqp", None, ("amqp",)),  # case-sensitive; nothing matched: every protocol
    ("protocols=AMQP,mqtt", ("AMQP",), ("mqtt",)),
    ("protocols=", None, ("",)),  # empty: every protocol
    ("protocol=MQTT", ("MQTT",), ()),  # the deprecated key is still read
    ("protocol=MQTT;protocols=AMQP", ("MQTT", "AMQP"), ()),
    ("protocols=AMQP,", ("AMQP",), ()),  # String.split drops the trailing empty part
    ("", None, ()),
])
def test_acceptor_protocols(query: str, protocols: tuple[str, ...] | None, unknown: tuple[str, ...]) -> None:
    from artemis_routing_cli.config.model import Acceptor
    from artemis_routing_cli.config.positions import Pos

    acceptor = Acceptor("a", _acceptor(query), Pos("b.xml", 1, 1))
    assert acceptor.protocols == protocols and acceptor.unknown_protocols == unknown


def test_name_from_the_query() -> None:
    cfg = load_text(broker_xml("""<connectors>
  <connector>tcp://b1:61616?name=from-query</connector>
  <connector name="same">tcp://b2:61616?name=same</connector>
  <connector name="differs">tcp://b3:61616?name=other</connector>
  <connector>tcp://b4:61616</connector>
</connectors>"""), LoadOptions(environ={}))
    assert set(cfg.connectors) == {"from-query", "same"}  # 'differs' stops the broker; no name: skipped


def test_urls_are_the_first_child_node() -> None:
    cfg = load_text(broker_xml("""<connectors>
  <connector name="cut">tcp://b1:61616?<![CDATA[sslEnabled=true]]></connector>
  <connector name="whole"><![CDATA[tcp://b2:61616?sslEnabled=true&trustAll=true]]></connector>
  <connector name="comment-after">tcp://b3:61616<!-- main --></connector>
  <connector name="comment-first"><!-- main -->tcp://b4:61616</connector>
  <connector name="empty"/>
</connectors>"""), LoadOptions(environ={}))
    assert cfg.connectors["cut"].url.raw == "tcp://b1:61616?" and not cfg.connectors["cut"].ssl_enabled
    assert cfg.connectors["whole"].ssl_enabled
    assert cfg.connectors["comment-after"].host == "b3"
    assert "comment-first" not in cfg.connectors and "empty" not in cfg.connectors  # ' main ' is no URL


def test_static_connector_refs_are_untrimmed_first_child_nodes() -> None:
    cfg = load_text(broker_xml("""<connectors><connector name="b1">tcp://b1:61616</connector></connectors>
<connection-routers><connection-router name="r"><policy name="FIRST_ELEMENT"/><pool><static-connectors>
  <connector-ref> b1 </connector-ref><connector-ref><!--x-->b1</connector-ref><connector-ref/>
  <connector-ref>b1</connector-ref>
</static-connectors></pool></connection-router></connection-routers>"""), LoadOptions(environ={}))
    pool = cfg.connection_routers[0].pool
    assert pool is not None and pool.static_connectors == (" b1 ", "x", "", "b1")


def test_broadcast_group_reads_its_first_ref_for_each_child() -> None:
    cfg = load_text(broker_xml("""<broadcast-groups><broadcast-group name="bg">
  <group-address>231.7.7.7</group-address><group-port>9876</group-port>
  <connector-ref> b1 </connector-ref><connector-ref>b2</connector-ref><connector-ref>b3</connector-ref>
</broadcast-group></broadcast-groups>"""), LoadOptions(environ={}))
    bg = cfg.broadcast_groups[0]
    assert bg.connector_refs == ("b1", "b1", "b1")  # getString: trimmed, always the first
    assert bg.written_refs == ("b1", "b2", "b3")


def test_allow_direct_connections_only_is_not_trimmed() -> None:
    cc = """<connectors><connector name="c">tcp://c:61616</connector></connectors>
<cluster-connections><cluster-connection name="cc"><connector-ref>c</connector-ref>
  <static-connectors allow-direct-connections-only="{}"><connector-ref>c</connector-ref></static-connectors>
</cluster-connection></cluster-connections>"""
    for value, expected in (("TRUE", True), (" true", False), ("true ", False), ("1", False)):
        cfg = load_text(broker_xml(cc.format(value)), LoadOptions(environ={}))
        assert cfg.cluster_connections[0].allow_direct_connections_only is expected, value


def test_java_trim_keeps_a_no_break_space() -> None:
    cfg = load_text(broker_xml("""<connection-routers><connection-router name="r">
  <key-filter>\u00a0</key-filter><local-target-filter>\u00a0^FOO</local-target-filter>
</connection-router></connection-routers>"""), LoadOptions(environ={}))
    router = cfg.connection_routers[0]
    assert router.key_filter == "\u00a0" and router.local_target_filter == "\u00a0^FOO"


def test_mask_password_adds_params_in_hashmap_order() -> None:
    """FileConfigurationParser puts activemq.usemaskedpassword (a Boolean) and, when true, the codec
    into every acceptor's and connector's params after the URL's; order checked on OpenJDK 17."""
    cfg = load_text(broker_xml("""<mask-password>true</mask-password>
<connectors><connector name="b1">tcp://b1:61616?sslEnabled=true</connector></connectors>"""),
                    LoadOptions(environ={}))
    params = cfg.connectors["b1"].params
    assert list(params) == ["port", "sslEnabled", "host", "activemq.passwordcodec", "activemq.usemaskedpassword"]
    assert params["activemq.usemaskedpassword"] is True
    assert params["activemq.passwordcodec"] == "org.apache.activemq.artemis.utils.DefaultSensitiveStringCodec"
    plain = load_text(broker_xml("""<connectors><connector name="b1">tcp://b1:61616</connector></connectors>"""),
                      LoadOptions(environ={}))
    assert dict(plain.connectors["b1"].params) == {"port": "61616", "host": "b1"}
    off = load_text(broker_xml("""<mask-password>false</mask-password>
<connectors><connector name="b1">tcp://b1:61616</connector></connectors>"""), LoadOptions(environ={}))
    assert off.connectors["b1"].params["activemq.usemaskedpassword"] is False
    assert "activemq.passwordcodec" not in off.connectors["b1"].params
