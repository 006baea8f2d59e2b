"""The quick reading of ``arouter validate``'s command line equals typer's, or steps aside."""

from __future__ import annotations

import subprocess
import sys

import pytest

from artemis_routing_cli.cli import validate as validate_cli
from artemis_routing_cli.cli.app import app
from artemis_routing_cli.cli.validate_options import ValidateOptions, parse_validate_args
from tests.conftest import SAMPLE

ACCEPTED = [
    [],
    ["broker.xml"],
    ["a.xml", "b.xml", "-"],
    ["-"],
    [""],
    ["--format", "json", "broker.xml"],
    ["--format=sarif", "broker.xml"],
    ["-f", "github"],
    ["-fjunit", "x.xml"],
    ["broker.xml", "-f", "json"],  # options after arguments
    ["--strict", "-q", "--quiet"],
    ["--fail-on", "warning"],
    ["--fail-on=info", "--strict"],
    ["-d", "AR205", "--disable", "AR306", "--disable=AR101", "-dAR002"],
    ["-D", "broker.host=10.0.0.5", "-Dport=61616", "--property", "a=b=c", "--property=x="],
    ["-D", "name"],  # malformed, but typer accepts it too: run_validate says what is wrong
    ["--settings", "pyproject.toml", "--no-settings"],
    ["--docs-url", "https://example.com/rules.md"],
    ["--", "-f", "--strict"],  # after --, everything is a file
    ["a.xml", "--", "-"],
    ["--format", "nonsense"],  # typer accepts any text; run_validate rejects it
    ["-f", "=json"],
    ["-f=json"],
    ["--properties", "a.properties,conf/", "--properties=b.json", "broker.xml"],
    ["--cr", "cr.yaml", "--ordinal", "2"],
    ["cr.yaml", "--ordinal=0"],
]

DEFERRED = [
    ["--ordinal", "two"],  # not a number: typer says so
    ["--help"],
    ["-h"],
    ["--list-rules"],
    ["--list-rules", "broker.xml"],
    ["--unknown"],
    ["-x"],
    ["-qf", "json"],  # combined short flags
    ["--strict=true"],
    ["--format"],
    ["-f"],
    ["-o", "-"],  # a value that looks like an option
    ["--format", "--strict"],
    ["--fail-o", "error"],
]


def typer_options(args: list[str], monkeypatch: pytest.MonkeyPatch) -> ValidateOptions:
    seen: list[ValidateOptions] = []

    def capture(opts: ValidateOptions) -> int:
        seen.append(opts)
        return 0

    monkeypatch.setattr(validate_cli, "run_validate", capture)
    try:
        app(["validate", *args], standalone_mode=False)
    except SystemExit:
        pass
    assert len(seen) == 1, f"typer did not run validate for {args!r}"
    return seen[0]


@pytest.mark.parametrize("args", ACCEPTED, ids=lambda a: " ".join(a) or "<none>")
def test_fast_reading_equals_typer(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fast = parse_validate_args(args)
    assert fast is not None
    assert fast == typer_options(args, monkeypatch)


@pytest.mark.parametrize("args", DEFERRED, ids=" ".join)
def test_anything_else_goes_to_typer(args: list[str]) -> None:
    assert parse_validate_args(args) is None


def test_fast_reading_fields() -> None:
    opts = parse_validate_args(["-Dbroker.host=h", "-f", "json", "--strict", "a.xml", "-d", "AR205"])
    assert opts == ValidateOptions(paths=("a.xml",), fmt="json", strict=True, disable=("AR205",),
                                   properties=("broker.host=h",))


PROBE = """
import sys
before = set(sys.modules)  # what the interpreter (and site) loaded before arouter
sys.argv = ["arouter", *ARGS]
from artemis_routing_cli.cli.entry import main
code = 0
try:
    main()
except SystemExit as exit:
    code = exit.code
print(sorted(m for m in set(sys.modules) - before
             if m.split('.')[0] in ('typer', 'click', 'rich') or m == 'importlib.resources'))
print(code)
"""


def run_entry(args: list[str]) -> tuple[list[str], int]:
    code = PROBE.replace("ARGS", repr(args))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "HOME": "/tmp"})
    lines = out.stdout.strip().splitlines()
    return eval(lines[-2]), int(lines[-1])  # a printed list of module names, then the exit code


def test_validate_starts_without_typer_or_rich() -> None:
    modules, code = run_entry(["validate", "-f", "json", str(SAMPLE)])
    assert (modules, code) == ([], 0)


def test_version_starts_without_typer() -> None:
    modules, code = run_entry(["--version"])
    assert (modules, code) == ([], 0)


def test_help_still_comes_from_typer() -> None:
    out = subprocess.run([sys.executable, "-m", "artemis_routing_cli", "validate", "--help"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert "--list-rules" in out.stdout and "--fail-on" in out.stdout


def test_one_table_defines_typer_options_and_the_quick_reading() -> None:
    """Every option typer knows comes from validate_options.OPTIONS with the same spellings, help and
    default, and the quick reader knows exactly the fast ones: the two cannot drift apart."""
    import typer.main

    from artemis_routing_cli.cli.help_layout import first_sentence
    from artemis_routing_cli.cli.validate_options import OPTIONS, PATHS

    command = typer.main.get_command(app).commands["validate"]  # type: ignore[attr-defined]
    params = {p.name: p for p in command.params if p.name != "help"}
    assert set(params) == {PATHS.field, *(o.field for o in OPTIONS)}
    for opt in OPTIONS:
        param = params[opt.field]
        # --help shows the first sentence (cli.help_layout); docs/cli.md has the whole text
        assert (tuple(param.opts), param.help, param.default) == (opt.names, first_sentence(opt.help),
                                                                  opt.default), opt.field
        assert param.multiple == (opt.kind == "repeat") and param.is_flag == (opt.kind == "flag")
        for name in opt.names:
            value = [] if opt.kind == "flag" else ["3"] if opt.kind == "int" else ["v"]
            assert (parse_validate_args([name, *value]) is None) == (not opt.fast), name
    assert params[PATHS.field].help == PATHS.help


def test_help_texts_show_whole() -> None:
    """Typer shows help through rich: '[tool.arouter]' was taken as markup and vanished."""
    out = subprocess.run([sys.executable, "-m", "artemis_routing_cli", "validate", "--help"],
                         capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": "/tmp",
                                                                          "COLUMNS": "200"})
    line = next(x for x in out.stdout.splitlines() if "--no-settings" in x)
    assert "Ignore the project settings (.arouter.toml, the tool.arouter table of pyproject.toml)." in line


def test_no_help_text_of_any_command_holds_rich_markup() -> None:
    import re

    import typer.main

    group = typer.main.get_command(app)
    texts = [(f"{name} {p.name}", p.help or "") for name, cmd in group.commands.items()  # type: ignore[attr-defined]
             for p in cmd.params]
    assert [(where, t) for where, t in texts if re.search(r"\[[a-z#/]", t)] == []
