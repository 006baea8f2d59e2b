"""A broker.xml that is not valid UTF-8, read as the real broker reads it (issue 36).

The broker reads broker.xml through ``new InputStreamReader(stream)`` in the JVM's default charset
(UTF-8 on JDK 18+) and deploys with whatever text that gives: each malformed sequence is one
U+FFFD as Java's decoder counts them (an emoji written as two encoded surrogates, six bytes, is two).
arouter reads the file the same way, says so (AR707, an error with ``broker: deploys``) and routes on
the broker's text. The key-filters the real broker deploys are the reference
(tests/config/broker_start.py).
"""

from __future__ import annotations

from pathlib import Path

from artemis_routing_cli.config import load
from artemis_routing_cli.diagnostics import DEPLOYS
from artemis_routing_cli.linting import lint_path
from artemis_routing_cli.verdict import load_checked
from tests.cli.helpers import arouter
from tests.config.broker_start import run_broker

EMOJI_CESU = "\ud83d\ude00"  # one emoji as two surrogates: ED A0 BD ED B8 80 once written with surrogatepass

TEMPLATE = """<configuration xmlns="urn:activemq">
  <core xmlns="urn:activemq:core">
    <name>b</name>
    <acceptors><acceptor name="a">tcp://0.0.0.0:61616?router=r</acceptor></acceptors>
    <connection-routers>
      <connection-router name="r">
        <key-type>CLIENT_ID</key-type>
        <key-filter>{filter}</key-filter>
        <local-target-filter>NULL</local-target-filter>
      </connection-router>
    </connection-routers>
  </core>
</configuration>
"""

# key-filter bytes -> the key-filter the broker deploys (JDK 18+'s UTF-8 decoding)
FILTERS: dict[bytes, str] = {
    b"[\xed\xa0\xbd\xed\xb8\x80-\xed\xa0\xbd\xed\xb9\x8f]": "[\ufffd\ufffd-\ufffd\ufffd]",
    b"^caf\xe9": "^caf\ufffd",  # ISO-8859-1 bytes in a file read as UTF-8
    b"^\xf0\x9f\x98": "^\ufffd",  # a truncated 4-byte sequence is one
    b"^\xe0\x80\x80x": "^\ufffd\ufffd\ufffdx",  # an overlong form: one per byte
    b"^\xef\xbf\xbd\xc3": "^\ufffd\ufffd",  # a U+FFFD written as such, then a truncated sequence
}


def _write(tmp_path: Path, n: int, key_filter: bytes) -> Path:
    path = tmp_path / f"broker-{n}.xml"
    head, tail = TEMPLATE.split("{filter}")
    path.write_bytes(head.encode() + key_filter + tail.encode())
    return path


def test_arouter_reads_what_the_broker_deploys(tmp_path: Path) -> None:
    paths = [_write(tmp_path, n, f) for n, f in enumerate(FILTERS)]
    outcomes = run_broker([(p, None) for p in paths], tmp_path)
    for path, outcome, expected in zip(paths, outcomes, FILTERS.values(), strict=True):
        assert outcome.state == "STARTED" and outcome.key_filters == {"r": expected}
        assert load(str(path)).router("r").key_filter == expected  # type: ignore[union-attr]


def test_an_error_that_deploys_at_the_bytes(tmp_path: Path) -> None:
    path = _write(tmp_path, 0, b"[\xed\xa0\xbd\xed\xb8\x80-\xed\xa0\xbd\xed\xb9\x8f]")
    found = [d for d in lint_path(str(path)).diagnostics if d.rule == "AR707"]
    assert [(d.line, d.column, d.severity.value, d.broker) for d in found] == [(8, 22, "error", DEPLOYS)]
    assert "the broker reads U+FFFD here" in found[0].message and "4 U+FFFD" in found[0].message
    assert load_checked(str(path)).verdict.starts


def test_simulate_routes_on_the_brokers_text_with_a_warning(tmp_path: Path) -> None:
    path = _write(tmp_path, 0, b"^\xed\xa0\xbd\xed\xb8\x80.")
    run = arouter("simulate", "-c", str(path), "-k", "CLIENT_ID=\ufffd\ufffdx", "-f", "json")
    assert run.code == 0, run.err
    assert "AR707" in run.err and "U+FFFD" in run.err and "warning" in run.err
    assert '"\\ufffd\\ufffdx"' in run.out or "\ufffd\ufffdx" in run.out
    val = arouter("validate", str(path))
    assert val.code == 1 and f"{path}:8:22: error AR707" in val.out


def test_diff_compares_the_brokers_text_with_a_warning(tmp_path: Path) -> None:
    old = _write(tmp_path, 1, b"^a")
    new = _write(tmp_path, 2, b"[\xed\xa0\xbd\xed\xb8\x80-\xed\xa0\xbd\xed\xb9\x8f]")
    run = arouter("diff", str(old), str(new))
    assert run.code == 0, run.err
    assert "key-filter: ^a \u2192 [\ufffd\ufffd-\ufffd\ufffd]" in run.out
    assert f"warning: {new}:8:22: error AR707" in run.err and str(old) + ":" not in run.err


def test_a_json_properties_file_is_read_as_the_broker_reads_it(tmp_path: Path) -> None:
    # the JSON form is read through a Reader in the default charset too (2.37 to 2.40: FileReader,
    # 2.41+: InputStreamReader); a .properties file is not: see test_properties_files_by_version
    from artemis_routing_cli.config import LoadOptions
    from artemis_routing_cli.config.properties import PropertiesOptions

    xml = tmp_path / "empty.xml"
    xml.write_text('<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><name>b</name></core>'
                   "</configuration>\n", encoding="utf-8")
    props = tmp_path / "broker.json"
    props.write_bytes(b'{"connectionRouters": {"r": {"keyType": "CLIENT_ID",\n  "keyFilter": "^\xed\xa0\xbd\xed\xb8\x80'
                      b'\xe9"}}}\n')
    outcome, = run_broker([(xml, props)], tmp_path)
    assert outcome.key_filters == {"r": "^\ufffd\ufffd\ufffd"}
    checked = load_checked(str(xml), LoadOptions(broker_properties=PropertiesOptions(paths=(str(props),))))
    assert checked.config.router("r").key_filter == "^\ufffd\ufffd\ufffd"  # type: ignore[union-attr]
    found = [d for d in checked.report.raw if d.rule == "AR707"]
    assert [(d.file, d.line, d.column, d.broker) for d in found] == [(str(props), 2, 18, DEPLOYS)]
    assert checked.verdict.starts and checked.verdict.read_differently == tuple(found)


def test_an_included_file_that_is_not_utf8_stops_the_broker(tmp_path: Path) -> None:
    # Xerces reads an XIncluded file itself, from its bytes: a fatal error, the broker does not start
    # (arouter stops too, exit 2, and says why)
    routers = tmp_path / "routers.xml"
    routers.write_bytes(b'<connection-routers xmlns="urn:activemq:core">\n  <connection-router name="r">\n'
                        b"    <key-filter>^\xed\xa0\xbd\xed\xb8\x80</key-filter>\n  </connection-router>\n"
                        b"</connection-routers>\n")
    xml = tmp_path / "broker.xml"
    xml.write_text('<configuration xmlns="urn:activemq" xmlns:xi="http://www.w3.org/2001/XInclude">\n'
                   f'  <core xmlns="urn:activemq:core"><name>b</name><xi:include href="{routers}"/></core>\n'
                   "</configuration>\n", encoding="utf-8")
    outcome, = run_broker([(xml, None)], tmp_path)
    assert outcome.parse_error is not None and "Invalid byte 2 of 3-byte UTF-8 sequence" in outcome.parse_error
    run = arouter("validate", str(xml))
    assert run.code == 2 and ":3:18: not valid utf-8 text" in run.err and "the broker does not start" in run.err
