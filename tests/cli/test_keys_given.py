"""Issue 14, keys: role names are taken as given and walked in the broker's order; SNI names and
source addresses as the broker sees them; lone surrogates in a batch. The real CLI, in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from artemis_routing_cli.javacollections import given_role_order
from tests.cli.helpers import arouter
from tests.conftest import broker_xml

ROLE_ROUTER = """
<connectors><connector name="c2">tcp://h2:61616</connector><connector name="c3">tcp://h3:61616</connector></connectors>
<connection-routers>
  <connection-router name="roles">
    <key-type>ROLE_NAME</key-type>
    <policy name="FIRST_ELEMENT"/>
    <pool><static-connectors><connector-ref>c2</connector-ref><connector-ref>c3</connector-ref></static-connectors>
    </pool>
  </connection-router>
</connection-routers>"""


@pytest.fixture
def roles_xml(tmp_path: Path) -> Path:
    path = tmp_path / "broker.xml"
    path.write_text(broker_xml(ROLE_ROUTER), encoding="utf-8")
    return path


def _json(run_out: str) -> dict:
    return json.loads(run_out)


def test_repeated_role_keeps_commas_and_spaces(roles_xml: Path) -> None:
    run = arouter("simulate", "-c", str(roles_xml), "--role", "a,b", "--role", " c", "-f", "json")
    assert run.code == 0, run.err
    data = _json(run.out)
    assert data["connection"]["roles"] == ["a,b", " c"]
    assert data["connection"]["roles_in_broker_order"] == list(given_role_order(["a,b", " c"]).roles)
    assert data["results"][0]["key"] == given_role_order(["a,b", " c"]).roles[0]
    assert "--role" in arouter("simulate", "--help").out


def test_roles_list_is_split_at_commas_without_trimming(roles_xml: Path) -> None:
    run = arouter("simulate", "-c", str(roles_xml), "--roles", "x, y,,z", "-f", "json")
    assert run.code == 0, run.err
    assert _json(run.out)["connection"]["roles"] == ["x", " y", "", "z"]


def test_first_role_is_the_broker_s_not_the_first_listed(roles_xml: Path) -> None:
    # HashSet order of these three names is admin-eu, admin-us, guest (tests/routing/test_role_order_java.py)
    run = arouter("simulate", "-c", str(roles_xml), "--roles", "guest,admin-us,admin-eu", "-f", "json")
    assert _json(run.out)["results"][0]["key"] == "admin-eu"


def test_jsonl_roles_array_is_one_role_per_item(roles_xml: Path, tmp_path: Path) -> None:
    keys = tmp_path / "k.jsonl"
    keys.write_text('{"roles": ["a,b"]}\n{"roles": "a,b"}\n{"roles": [" c "]}\n{"roles": []}\n', encoding="utf-8")
    run = arouter("simulate", "-c", str(roles_xml), "--keys-file", str(keys))
    assert run.code == 0, run.err
    got = [json.loads(line)["key_value"] for line in run.out.splitlines()]
    assert got == ["a,b", given_role_order(["a", "b"]).roles[0], " c ", "NULL"]
    csv_run = arouter("simulate", "-c", str(roles_xml), "--keys-file", str(keys), "-f", "csv")
    assert csv_run.out.splitlines()[1].startswith('"[""a,b""]","a,b",OK,c2')


def test_jsonl_list_in_another_column_is_refused(roles_xml: Path, tmp_path: Path) -> None:
    keys = tmp_path / "k.jsonl"
    keys.write_text('{"user_name": ["a"]}\n', encoding="utf-8")
    run = arouter("simulate", "-c", str(roles_xml), "--keys-file", str(keys))
    assert run.code == 2 and f"{keys}:1:1" in run.err


SNI_IP_ROUTERS = """
<acceptors><acceptor name="a">tcp://0.0.0.0:61616?router=sni</acceptor>
  <acceptor name="b">tcp://0.0.0.0:61617?router=ip</acceptor></acceptors>
<connectors><connector name="c2">tcp://h2:61616</connector></connectors>
<connection-routers>
  <connection-router name="sni"><key-type>SNI_HOST</key-type><policy name="FIRST_ELEMENT"/>
    <pool><static-connectors><connector-ref>c2</connector-ref></static-connectors></pool></connection-router>
  <connection-router name="ip"><key-type>SOURCE_IP</key-type><policy name="FIRST_ELEMENT"/>
    <pool><static-connectors><connector-ref>c2</connector-ref></static-connectors></pool></connection-router>
</connection-routers>"""


@pytest.fixture
def sni_xml(tmp_path: Path) -> Path:
    path = tmp_path / "broker.xml"
    path.write_text(broker_xml(SNI_IP_ROUTERS), encoding="utf-8")
    return path


def _key(run_out: str) -> str:
    return json.loads(run_out)["results"][0]["key"]


def test_sni_host_is_sent_as_a_java_client_sends_it(sni_xml: Path) -> None:
    run = arouter("simulate", "-c", str(sni_xml), "-r", "sni", "-k", "SNI_HOST=CAF\u00c9.Example", "-f", "json")
    assert run.code == 0, run.err
    assert _key(run.out) == "xn--caf-dma.example"
    assert json.loads(run.out)["assumed"] == {"broker_version": "2.41", "sni_encoding": "java"}
    explain = arouter("simulate", "-c", str(sni_xml), "-r", "sni", "-k", "SNI_HOST=Stra\u00dfe.DE", "-e")
    assert "b'strasse.DE'" in explain.out and "sni-client" in explain.out


def test_a_name_java_cannot_send_is_exit_2(sni_xml: Path, tmp_path: Path) -> None:
    run = arouter("simulate", "-c", str(sni_xml), "-r", "sni", "-k", "SNI_HOST=my_host.example")
    assert run.code == 2 and "cannot send" in run.err
    assert "--sni-client raw" in run.err


@pytest.mark.parametrize("suffix", [".txt", ".csv"])
def test_a_name_java_cannot_send_is_a_bad_row_in_a_batch(sni_xml: Path, tmp_path: Path, suffix: str) -> None:
    """One SNI host a Java client cannot send does not refuse the batch: that row is named with its line,
    counted, left out, and the run ends 1 (as analyze's bad rows); the other rows are routed."""
    keys = tmp_path / f"k{suffix}"
    head = "sni_host\n" if suffix == ".csv" else ""
    keys.write_text(head + "ok.example\nemoji\U0001F600.example\nb.example\n", encoding="utf-8")
    batch = arouter("simulate", "-c", str(sni_xml), "-r", "sni", "--keys-file", str(keys))
    assert batch.code == 1, batch.err
    line = 3 if suffix == ".csv" else 2
    assert f"{keys}:{line}:1: sni: SNI_HOST='emoji\U0001F600.example'" in batch.err
    assert "1 bad row(s) left out" in batch.err
    assert [json.loads(x)["key"] for x in batch.out.splitlines()] == ["ok.example", "b.example"]


# What a JDK 17 SSLEngine made with createSSLEngine(host, port), SNI left to the JDK, puts in its ClientHello
# (tests/routing/test_sni_default.py reads it from the JDK here).
DEFAULT_CLIENT = {"\u00fcber": "NULL", "EXAMPLE": "NULL", "caf\u00e9": "NULL",
                  "caf\u00e9.example": "xn--caf-dma.example", "Broker1.Example.NET": "broker1.example.net",
                  "example.com.": "example.com", "10.0.0.1": "NULL",
                  "my_host.example": "NULL"}


def test_sni_client_default_sends_what_the_jdk_sends(sni_xml: Path) -> None:
    for host, key in DEFAULT_CLIENT.items():
        run = arouter("simulate", "-c", str(sni_xml), "-r", "sni", "-k", f"SNI_HOST={host}", "--sni-client", "default",
                      "-f", "json")
        assert run.code == 0, run.err
        assert _key(run.out) == key, host
    explicit = arouter("simulate", "-c", str(sni_xml), "-r", "sni", "-k", "SNI_HOST=EXAMPLE",
                       "--sni-client", "explicit", "-f", "json")
    assert _key(explicit.out) == "example"
    why = arouter("simulate", "-c", str(sni_xml), "-r", "sni", "-k", "SNI_HOST=EXAMPLE", "--sni-client", "default",
                  "-e")
    assert "'EXAMPLE' sends no server_name" in why.out and "(--sni-client default)" in why.out
    said = arouter("simulate", "-c", str(sni_xml), "-r", "sni", "-k", "SNI_HOST=EXAMPLE", "-e")
    assert "(--sni-client explicit)" in said.out  # the default, said
    assert arouter("simulate", "-c", str(sni_xml), "--sni-client", "java", "-k", "SNI_HOST=a").code == 2


def test_raw_client_bytes_are_read_one_char_per_byte(sni_xml: Path) -> None:
    run = arouter("simulate", "-c", str(sni_xml), "-r", "sni", "-k", "SNI_HOST=\u0130stanbul", "--sni-encoding", "raw",
                  "-f", "json")
    assert run.code == 0, run.err
    assert _key(run.out) == "\u00e4\u00b0stanbul"
    assert arouter("simulate", "-c", str(sni_xml), "--sni-encoding", "utf8", "-k", "SNI_HOST=a").code == 2


def test_source_ip_follows_the_broker_version(sni_xml: Path, tmp_path: Path) -> None:
    def key(*extra: str) -> str:
        run = arouter("simulate", "-c", str(sni_xml), "-r", "ip", "-k", "SOURCE_IP=::1", "-f", "json", *extra)
        assert run.code == 0, run.err
        return _key(run.out)

    assert key() == "[0:0:0:0:0:0:0:1]"
    assert key("--broker-version", "2.35") == "[0:0:0:0:0:0:0:1%0]"
    assert key("--broker-version", "2.36.0") == "[0:0:0:0:0:0:0:1]"
    bad = arouter("simulate", "-c", str(sni_xml), "-r", "ip", "-k", "SOURCE_IP=::1", "--broker-version", "3.0")
    assert bad.code == 2 and "2.21 to 2.41" in bad.err
    for command in ("simulate", "serve", "analyze"):
        assert "--broker-version" in arouter(command, "--help").out


def test_help_states_the_versions_routing_follows() -> None:
    from artemis_routing_cli.cli.key_options import BROKER_VERSION_HELP
    from artemis_routing_cli.routing.keys import NEWEST_BROKER, OLDEST_BROKER, broker_version_text

    assert f"{broker_version_text(OLDEST_BROKER)} to {broker_version_text(NEWEST_BROKER)}" in BROKER_VERSION_HELP


CID_ROUTER = """
<connectors><connector name="c2">tcp://h2:61616</connector><connector name="c3">tcp://h3:61616</connector></connectors>
<connection-routers>
  <connection-router name="cid"><key-type>CLIENT_ID</key-type><policy name="CONSISTENT_HASH"/>
    <pool><static-connectors><connector-ref>c2</connector-ref><connector-ref>c3</connector-ref></static-connectors>
    </pool></connection-router>
</connection-routers>"""


@pytest.mark.parametrize("out_format", ["jsonl", "csv"])
def test_lone_surrogates_are_routed_and_written_as_escapes(tmp_path: Path, out_format: str) -> None:
    from artemis_routing_cli.config import load
    from artemis_routing_cli.routing.keys import Connection
    from artemis_routing_cli.routing.router import build_routers
    from artemis_routing_cli.routing.targets import TargetState

    cfg_path = tmp_path / "broker.xml"
    cfg_path.write_text(broker_xml(CID_ROUTER), encoding="utf-8")
    ids = ["\ud800", "a\udfffb", "\udbff\ud800", "\U0001F600", "x"]
    keys = tmp_path / "k.jsonl"
    keys.write_text("".join(json.dumps({"client_id": i}) + "\n" for i in ids), encoding="ascii")
    out = tmp_path / f"out.{out_format}"
    run = arouter("simulate", "-c", str(cfg_path), "--keys-file", str(keys), "-f", out_format, "-o", str(out))
    assert run.code == 0, run.err
    [router] = build_routers(load(str(cfg_path)), TargetState())
    expected = [router.route(Connection(client_id=i)).target_label for i in ids]
    text = out.read_text(encoding="utf-8")
    if out_format == "jsonl":
        records = [json.loads(line) for line in text.splitlines()]
        assert [r["key"] for r in records] == ids
        assert [r["target"] for r in records] == expected
        assert "\\ud800" in text
    else:
        rows = text.splitlines()[1:]
        assert [r.split(",")[0] for r in rows] == ["\\ud800", "a\\udfffb", "\\udbff\\ud800", "\U0001F600", "x"]
        assert [r.split(",")[3] for r in rows] == expected
