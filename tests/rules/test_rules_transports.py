"""AR702-AR704, AR708, AR709: acceptor and connector URLs as the broker reads them."""

from __future__ import annotations

import pytest

from artemis_routing_cli.diagnostics import Severity

from .helpers import lint_fragment, only


def connector(url: str, name: str = "b1") -> str:
    return f'<connectors>\n  <connector name="{name}">{url}</connector>\n</connectors>'


def acceptor(url: str, name: str = "a") -> str:
    return f'<acceptors>\n  <acceptor name="{name}">{url}</acceptor>\n</acceptors>'


@pytest.mark.parametrize(("fragment", "words"), [
    (connector("tcp://my_broker:61616"), "'_' is not allowed in a host name"),
    (connector("tcp://node-1.10:61616"), "starts with a digit"),
    (connector("tcp://-bad:61616"), "begins or ends with '-'"),
    (connector("tcp://10.0.0.300:61616"), "not an IPv4 address"),
    (connector("tcp://broker1:6161x"), "not a number"),
    (acceptor("tcp://my_broker:61616"), "the acceptor cannot listen"),
])
def test_ar702_host_java_refuses_is_an_error(tmp_path, fragment: str, words: str) -> None:
    [d] = only(lint_fragment(tmp_path, fragment), "AR702")
    assert d.severity is Severity.ERROR and words in d.message and "host 'null' and port -1" in d.message
    assert d.line == 3


@pytest.mark.parametrize(("url", "words"), [
    ("TCP://broker1:61616", "scheme 'TCP'"),
    ("tcp://broker1:61616?filter=a|b", "Illegal character in query"),
    ("tcp://broker1:61616?x=%zz", "Malformed escape pair"),
    ("tcp://broker1:61616?x=%25zz", "URLDecoder"),
    ("tcp://broker\u00a01:61616", "Illegal character in authority"),
    ("tcp://[fe80:::1]:61616", "IPv4 address"),
    ("", "no URL text"),
])
def test_ar702_urls_that_stop_the_broker(tmp_path, url: str, words: str) -> None:
    diags = only(lint_fragment(tmp_path, connector(url)), "AR702")
    assert diags and all(d.severity is Severity.ERROR for d in diags)
    assert words in diags[0].message and "does not start" in diags[0].message


def test_ar702_name_must_match_the_query(tmp_path) -> None:
    [d] = only(lint_fragment(tmp_path, connector("tcp://b1:61616?name=b2")), "AR702")
    assert "doesn't match" in d.message and d.severity is Severity.ERROR
    assert only(lint_fragment(tmp_path, connector("tcp://b1:61616?name=b1")), "AR702") == []


def test_ar702_port_parameter_not_a_number_is_a_warning(tmp_path) -> None:
    [d] = only(lint_fragment(tmp_path, connector("tcp://b1:1234?port=abc")), "AR702")
    assert d.severity is Severity.WARNING and "uses port 61616" in d.message


def test_ar702_fragment_is_a_warning(tmp_path) -> None:
    [d] = only(lint_fragment(tmp_path, connector("tcp://b1:61616?trustStorePassword=a#b")), "AR702")
    assert d.severity is Severity.WARNING and "what follows it is not part of the query" in d.message
    assert "a#b" not in d.message and "=a" not in d.message  # never a password


def test_ar702_never_shows_a_password(tmp_path) -> None:
    [d] = only(lint_fragment(tmp_path, connector("tcp://b1:61616?keyStorePassword=s3cr|t;sslEnabled=true")), "AR702")
    assert "s3cr" not in d.message and "keyStorePassword=****" in d.message


@pytest.mark.parametrize("url", [
    "tcp://broker1:61616", "tcp://broker-1.example.com:61616?sslEnabled=true", "tcp://[::1]:61616",
    "tcp://[fe80::1%25eth0]:61616", "vm://0", "(tcp://a:1,tcp://b:2)?ha=true", "tcp://b1:61616?amqpCredits=5",
])
def test_ar702_quiet_on_urls_the_broker_reads(tmp_path, url: str) -> None:
    assert only(lint_fragment(tmp_path, connector(url)), "AR702", "AR703") == []


def test_ar703_no_port(tmp_path) -> None:
    [d] = only(lint_fragment(tmp_path, connector("tcp://broker1")), "AR703")
    assert "port -1" in d.message
    assert only(lint_fragment(tmp_path, connector("tcp://my_broker")), "AR703") == []  # AR702 says it


@pytest.mark.parametrize(("query", "words"), [
    ("protocols=amqp", "serves every protocol"),
    ("protocols=AMQP,mqtt", "serves AMQP only"),
    ("protocols=", "an empty protocol name"),
    ("protocol=Core", "case-sensitive: CORE"),
])
def test_ar704_unknown_protocols(tmp_path, query: str, words: str) -> None:
    [d] = only(lint_fragment(tmp_path, acceptor(f"tcp://0.0.0.0:61616?{query}")), "AR704")
    assert words in d.message and d.severity is Severity.WARNING


def test_ar704_quiet(tmp_path) -> None:
    frag = acceptor("tcp://0.0.0.0:61616?protocols=CORE,AMQP,STOMP,HORNETQ,MQTT,OPENWIRE")
    assert only(lint_fragment(tmp_path, frag), "AR704") == []


@pytest.mark.parametrize(("inside", "reads"), [
    ("tcp://b1:61616?<![CDATA[sslEnabled=true&trustAll=true]]>", "'tcp://b1:61616?'"),
    ("<!-- main -->tcp://b1:61616", "a comment, 'main'"),
])
def test_ar708_mixed_content(tmp_path, inside: str, reads: str) -> None:
    diags = lint_fragment(tmp_path, connector(inside))
    [d] = only(diags, "AR708")
    assert reads in d.message
    if "comment" in reads:  # ' main ' is the URL the broker gets: no scheme
        assert only(diags, "AR702")


@pytest.mark.parametrize("inside", [
    "<![CDATA[tcp://b1:61616?sslEnabled=true&trustAll=true]]>",
    "tcp://b1:61616<!-- main -->",
    "\n    tcp://b1:61616\n  ",
])
def test_ar708_quiet(tmp_path, inside: str) -> None:
    assert only(lint_fragment(tmp_path, connector(inside)), "AR708", "AR702") == []


def pools(*refs: tuple[str, str]) -> str:
    routers = "".join(
        f'<connection-router name="{router}"><key-type>CLIENT_ID</key-type><policy name="FIRST_ELEMENT"/>'
        f"<pool><static-connectors><connector-ref>{ref}</connector-ref></static-connectors></pool>"
        "</connection-router>" for router, ref in refs)
    return f"<connection-routers>{routers}</connection-routers>"


def test_ar709_valueless_parameter_on_a_pool_connector(tmp_path) -> None:
    fragment = connector("tcp://broker1:61616?sslEnabled=true;verifyHost;fooBar") + pools(("r1", "b1"), ("r2", "b1"))
    [d] = only(lint_fragment(tmp_path, fragment), "AR709")  # once, though two pools use it
    assert d.severity is Severity.WARNING and d.line == 3
    assert "'verifyHost', 'fooBar' without a value" in d.message and "CORE clients" in d.message


def test_ar709_silent_for_connectors_no_pool_redirects_to(tmp_path) -> None:
    fragment = (connector("tcp://broker1:61616?verifyHost") + pools(("r1", "b2"))).replace(
        "</connectors>", '  <connector name="b2">tcp://broker2:61616?verifyHost=true</connector>\n</connectors>')
    assert only(lint_fragment(tmp_path, fragment), "AR709") == []
