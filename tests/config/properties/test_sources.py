"""Where properties come from and in what order, as the broker's parseProperties and Run find them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from artemis_routing_cli.config import LoadOptions, load
from artemis_routing_cli.config.properties import PropertiesOptions
from artemis_routing_cli.config.properties.cr import parse_cr
from artemis_routing_cli.errors import ConfigError

from .helpers import EMPTY


def _load(tmp: Path, options: PropertiesOptions | None = None, defines: dict[str, str] | None = None):
    (tmp / "broker.xml").write_text(EMPTY)
    return load(str(tmp / "broker.xml"), LoadOptions(defines or {}, {}, options or PropertiesOptions()))


def test_broker_properties_beside_broker_xml_is_picked_up(tmp_path: Path) -> None:
    (tmp_path / "broker.properties").write_text("connectionRouters.r.keyType=CLIENT_ID\n")
    cfg = _load(tmp_path)
    assert [r.key_type for r in cfg.connection_routers] == ["CLIENT_ID"]
    assert [s.name for s in cfg.property_sources] == ["broker.properties"]


def test_properties_option_replaces_the_file_beside(tmp_path: Path) -> None:
    (tmp_path / "broker.properties").write_text("connectionRouters.beside.keyType=CLIENT_ID\n")
    (tmp_path / "other.properties").write_text("connectionRouters.other.keyType=CLIENT_ID\n")
    cfg = _load(tmp_path, PropertiesOptions(paths=(str(tmp_path / "other.properties"),)))
    assert [r.name for r in cfg.connection_routers] == ["other"]


def test_system_property_broker_properties_wins(tmp_path: Path) -> None:
    (tmp_path / "a.properties").write_text("connectionRouters.a.keyType=CLIENT_ID\n")
    (tmp_path / "b.properties").write_text("connectionRouters.b.keyType=CLIENT_ID\n")
    cfg = _load(tmp_path, PropertiesOptions(paths=(str(tmp_path / "a.properties"),)),
                {"broker.properties": str(tmp_path / "b.properties")})
    assert [r.name for r in cfg.connection_routers] == ["b"]


def test_directories_in_sorted_order_then_brokerconfig_last(tmp_path: Path) -> None:
    d = tmp_path / "conf"
    d.mkdir()
    (d / "b.properties").write_text("connectionRouters.r.keyFilter=from-b\n")
    (d / "a.json").write_text('{"connectionRouters": {"r": {"keyFilter": "from-a", "keyType": "CLIENT_ID"}}}')
    (d / "Z.properties").write_text("connectionRouters.r.keyFilter=from-Z\n")
    (d / "notes.txt").write_text("connectionRouters.r.keyFilter=never\n")
    cfg = _load(tmp_path, PropertiesOptions(paths=(f"{d}/",)))
    assert [s.name for s in cfg.property_sources] == ["Z.properties", "a.json", "b.properties"]
    assert cfg.connection_routers[0].key_filter == "from-b"
    cfg = _load(tmp_path, PropertiesOptions(paths=(f"{d}/",)), {"brokerconfig.connectionRouters.r.keyFilter": "sys"})
    assert cfg.connection_routers[0].key_filter == "sys"
    assert cfg.property_sources[-1].name == "system-brokerconfig."


def test_comma_list_and_filter_query(tmp_path: Path) -> None:
    d = tmp_path / "conf"
    d.mkdir()
    (d / "x.properties").write_text("connectionRouters.x.keyType=CLIENT_ID\n")
    (d / "y.properties").write_text("connectionRouters.y.keyType=CLIENT_ID\n")
    (tmp_path / "one.properties").write_text("connectionRouters.one.keyType=CLIENT_ID\n")
    cfg = _load(tmp_path, PropertiesOptions(paths=(f"{tmp_path / 'one.properties'},{d}/?filter=y.*",)))
    assert [r.name for r in cfg.connection_routers] == ["one", "y"]


def test_missing_directory_is_skipped_missing_file_stops(tmp_path: Path) -> None:
    cfg = _load(tmp_path, PropertiesOptions(paths=(f"{tmp_path / 'nodir'}/",)))
    assert cfg.connection_routers == ()
    with pytest.raises(ConfigError, match="not found"):
        _load(tmp_path, PropertiesOptions(paths=(str(tmp_path / "none.properties"),)))
    with pytest.raises(ConfigError, match="ends with '/'"):
        _load(tmp_path, PropertiesOptions(paths=(str(tmp_path),)))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_only_regular_files(tmp_path: Path) -> None:
    fifo = tmp_path / "p.properties"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="not a regular file"):
        _load(tmp_path, PropertiesOptions(paths=(str(fifo),)))


def test_deep_json_is_a_load_error_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text("{\"a\":" * 5000 + "1" + "}" * 5000)
    cfg = _load(tmp_path, PropertiesOptions(paths=(str(tmp_path / "deep.json"),)))
    assert cfg.property_sources[0].load_error is not None
    assert [f.rule for f in cfg.property_findings] == ["AR710"]


def test_status_checksums_are_adler32(tmp_path: Path) -> None:
    import zlib

    data = b"connectionRouters.r.keyType=CLIENT_ID\n"
    (tmp_path / "c.properties").write_bytes(data)
    cfg = _load(tmp_path, PropertiesOptions(paths=(str(tmp_path / "c.properties"),)))
    (status,) = cfg.property_sources
    assert status.file_alder32 == zlib.adler32(data)
    assert status.alder32 == zlib.adler32(b"connectionRouters.r.keyType=CLIENT_ID")


CR = """apiVersion: broker.amq.io/v1beta1
kind: ActiveMQArtemis
metadata:
  name: ex
spec:
  brokerProperties:
    - connectionRouters.r.keyType=CLIENT_ID
    - broker-0.connectionRouters.r.keyFilter=zero
    - broker-1.connectionRouters.r.keyFilter=one
    - connectionRouters.r.keyFilter=shared
    - "# a comment passes through"
    - broker-x.odd=1
"""


def test_cr_ordinal_lines_apply_after_the_shared_ones(tmp_path: Path) -> None:
    (tmp_path / "cr.yaml").write_text(CR)
    for ordinal, expected in ((0, "zero"), (1, "one"), (2, "shared")):
        cfg = _load(tmp_path, PropertiesOptions(cr=str(tmp_path / "cr.yaml"), ordinal=ordinal))
        assert cfg.connection_routers[0].key_filter == expected
        assert cfg.connection_routers[0].origins["keyType"].line == 7


def test_cr_yaml_is_read_safely(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not YAML|ActiveMQArtemis"):
        parse_cr("kind: !!python/object:os.system ActiveMQArtemis\n", "x.yaml")
    with pytest.raises(ConfigError, match="ActiveMQArtemis"):
        parse_cr("kind: Deployment\n", "x.yaml")
    with pytest.raises(ConfigError, match="not a list"):
        parse_cr("kind: ActiveMQArtemis\nspec:\n  brokerProperties: a=b\n", "x.yaml")
    with pytest.raises(ConfigError, match="nested"):
        parse_cr("kind: ActiveMQArtemis\nspec: " + "[" * 20000 + "]" * 20000, "x.yaml")
    # aliases are composed as shared nodes, never expanded
    bomb = "kind: ActiveMQArtemis\na: &a [x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(20))
    assert parse_cr(bomb, "x.yaml") == ("", [])


def test_validate_checks_every_broker_of_a_cr(tmp_path: Path) -> None:
    from artemis_routing_cli.linting import LintSettings, lint_path

    cr = tmp_path / "cr.yaml"
    cr.write_text("kind: ActiveMQArtemis\nspec:\n  deploymentPlan:\n    size: 3\n  brokerProperties:\n"
                  "    - connectionRouters.r.keyType=CLIENT_ID\n"
                  "    - broker-2.connectionRouters.r.cacheConfiguration.timeout=5s\n"
                  "    - connectionRouters.r.keytype=CLIENT_ID\n")
    report = lint_path(str(cr), LintSettings(environ={}))
    found = [(d.rule, d.line, d.message.split(":")[0]) for d in report.diagnostics if d.rule.startswith("AR71")]
    assert ("AR712", 7, "broker 2") in found  # only broker 2 has that line
    assert [f for f in found if f[0] == "AR711"] == [("AR711", 8, "connectionRouters.r.keytype")]  # all brokers
    one = lint_path(str(cr), LintSettings(environ={}, broker_properties=PropertiesOptions(ordinal=1)))
    assert not any(d.rule == "AR712" for d in one.diagnostics)


def test_utf8_text_in_a_properties_file_is_flagged(tmp_path: Path) -> None:
    (tmp_path / "u.properties").write_bytes("# x\nconnectionRouters.r.keyFilter=caf\u00e9\n".encode())
    cfg = _load(tmp_path, PropertiesOptions(paths=(str(tmp_path / "u.properties"),)))
    assert cfg.connection_routers[0].key_filter == "caf\u00c3\u00a9"  # what the broker reads
    assert [(f.rule, f.pos.line) for f in cfg.property_findings] == [("AR720", 2)]
    (tmp_path / "l.properties").write_bytes("connectionRouters.r.keyFilter=caf\u00e9\n".encode("iso-8859-1"))
    cfg = _load(tmp_path, PropertiesOptions(paths=(str(tmp_path / "l.properties"),)))
    assert cfg.connection_routers[0].key_filter == "caf\u00e9" and cfg.property_findings == ()
