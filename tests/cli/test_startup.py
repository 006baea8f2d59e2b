"""Start-up stays light: --help and validate import no Spark, numpy or protocol code."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import SAMPLE

PROBE = """
import sys
from artemis_routing_cli.cli.app import app
try:
    app(ARGS, standalone_mode=False)
except SystemExit:
    pass
heavy = sorted(m for m in sys.modules
               if m.split('.')[0] in ('pyspark', 'numpy', 'pandas', 'pyarrow', 'proton', 'paho')
               or m.startswith('artemis_routing_cli.protocols')
               or m.startswith('artemis_routing_cli.serve')
               or m.startswith('artemis_routing_cli.pipeline')
               or m.startswith('artemis_routing_cli.probe.'))
print(heavy)
"""


def imported_by(args: list[str]) -> list[str]:
    code = PROBE.replace("ARGS", repr(args))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return eval(out.stdout.strip().splitlines()[-1])  # a printed list of module names


def test_help_imports_nothing_heavy() -> None:
    assert imported_by(["--help"]) == []


def test_validate_imports_nothing_heavy() -> None:
    assert imported_by(["validate", "-q", str(SAMPLE)]) == []


def test_piped_validate_does_not_import_rich() -> None:
    """Piped text (pre-commit, CI logs) and the machine formats are written without rich."""
    code = PROBE.replace("ARGS", repr(["validate", str(SAMPLE)])).replace(
        "m.split('.')[0] in (", "m.split('.')[0] in ('rich', ")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "HOME": "/tmp"})
    assert out.returncode == 0, out.stderr
    assert "no problems" in out.stdout
    assert eval(out.stdout.strip().splitlines()[-1]) == []
