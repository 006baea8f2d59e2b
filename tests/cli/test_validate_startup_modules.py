"""validate on the sample leaves out standard modules only other paths need (uuid imports platform)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import SAMPLE

PROBE = """
import sys
sys.argv = ['arouter', 'validate', '-q', '--no-settings', ARG]
from artemis_routing_cli.cli.entry import main
try:
    main()
except SystemExit:
    pass
print(sorted(m for m in ('uuid', 'platform') if m in sys.modules))
"""


def test_validate_does_not_import_uuid() -> None:
    code = PROBE.replace("ARG", repr(str(SAMPLE)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_validate_without_properties_does_not_load_their_machinery() -> None:
    """No --properties, no broker.properties beside the file, no -D brokerconfig.*: nothing to apply,
    so the broker-properties engine (its bean tables and parsers) is never imported."""
    code = PROBE.replace("ARG", repr(str(SAMPLE))).replace(
        "m for m in ('uuid', 'platform')",
        "m for m in ('artemis_routing_cli.config.properties.merge', 'artemis_routing_cli.config.properties.apply')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_plain_router_filters_need_no_regex_parser(tmp_path) -> None:
    """The sample's router filters are all plain patterns, answered at sight: the Java regex parser
    is never imported; a filter outside the plain subset imports it (and is judged by it)."""
    code = PROBE.replace("ARG", repr(str(SAMPLE))).replace(
        "m for m in ('uuid', 'platform')",
        "m for m in ('artemis_routing_cli.jregex.javaregex', 'artemis_routing_cli.jregex._javaregex_parser')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
    # a lookahead is outside the plain subset: the parser is loaded and reads it
    odd = tmp_path / "broker.xml"
    odd.write_text(SAMPLE.read_text(encoding="utf-8").replace("<key-filter>", "<key-filter>(?=x)", 1),
                   encoding="utf-8")
    code = PROBE.replace("ARG", repr(str(odd))).replace(
        "m for m in ('uuid', 'platform')", "m for m in ('artemis_routing_cli.jregex.javaregex',)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "['artemis_routing_cli.jregex.javaregex']"
