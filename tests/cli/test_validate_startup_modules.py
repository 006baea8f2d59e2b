"""validate on the sample leaves out standard modules only other paths need (uuid imports platform)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import SAMPLE

PROBE = """
import sys
sys.argv = ['arouter', 'validate', '-q', '--no-settings', ARG]
from artemis_routing_cli.cli.entry import main
try:
    main()
except SystemExit:
    pass
print(sorted(m for m in NAMES if m in sys.modules))
"""


def _loaded(path: Path, *names: str) -> list[str]:
    """Which of ``names`` a ``validate`` of ``path`` (in a fresh interpreter) has imported by its end."""
    code = PROBE.replace("ARG", repr(str(path))).replace("NAMES", repr(names))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return ast.literal_eval(out.stdout.strip().splitlines()[-1])  # the list of names printed


def test_validate_does_not_import_uuid() -> None:
    assert _loaded(SAMPLE, "uuid", "platform") == []


def test_validate_without_properties_does_not_load_their_machinery() -> None:
    """No --properties, no broker.properties beside the file, no -D brokerconfig.*: nothing to apply,
    so the broker-properties engine (its bean tables and parsers) is never imported."""
    assert _loaded(SAMPLE, "artemis_routing_cli.config.properties.merge",
                   "artemis_routing_cli.config.properties.apply") == []


def test_plain_router_filters_need_no_regex_parser(tmp_path: Path) -> None:
    """The sample's router filters are all plain patterns, answered at sight: the Java regex parser
    is never imported; a filter outside the plain subset imports it (and is judged by it)."""
    parser = ("artemis_routing_cli.jregex.javaregex", "artemis_routing_cli.jregex._javaregex_parser")
    assert _loaded(SAMPLE, *parser) == []
    # a lookahead is outside the plain subset: the parser is loaded and reads it
    odd = tmp_path / "broker.xml"
    odd.write_text(SAMPLE.read_text(encoding="utf-8").replace("<key-filter>", "<key-filter>(?=x)", 1),
                   encoding="utf-8")
    assert _loaded(odd, *parser) == sorted(parser)


def test_broker_xml_alone_needs_no_json_or_decimal(tmp_path: Path) -> None:
    """A broker.xml with a finding (a plain pool password, a secret to hide) and divert filters:
    neither the json package (JSON is read from files other than broker.xml, and only an unusual
    secret needs JSON's escaping) nor decimal (a filter printing a double) is imported."""
    with_findings = tmp_path / "broker.xml"
    with_findings.write_text(SAMPLE.read_text(encoding="utf-8").replace("ENC(-5a2376c61c668aaf)", "plain-one", 1),
                             encoding="utf-8")
    assert _loaded(SAMPLE, "json", "decimal") == []
    assert _loaded(with_findings, "json", "decimal") == []
