"""``--help`` at 80 columns: options grouped in panels, every name whole, long text in docs/cli.md."""

from __future__ import annotations

import re

import pytest

from artemis_routing_cli.cli.app import app
from artemis_routing_cli.cli.help_layout import first_sentence, options, render_docs
from tests.cli.helpers import REPO, arouter

COMMANDS = ["validate", "simulate", "probe", "serve", "analyze", "diff"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_name_is_whole_at_80_columns(command: str) -> None:
    run = arouter(command, "--help", env={"COLUMNS": "80"})
    assert run.code == 0, run.err
    assert "…" not in run.out, run.out
    assert all(len(line) <= 80 for line in run.out.splitlines())
    callback = next(c.callback for c in app.registered_commands if c.name == command)
    shown = set(re.findall(r"--[a-z][a-z0-9-]*", run.out))
    assert {name for name, info in options(callback) if not info.hidden} <= shown
    assert "╭─ Configuration" in run.out or command == "validate"


def test_serve_help_is_grouped_and_short() -> None:
    out = arouter("serve", "--help", env={"COLUMNS": "80"}).out
    panels = re.findall(r"╭─ ([A-Za-z ]+) ─", out)
    assert {"Configuration", "Listening", "Targets", "Management"} <= set(panels)
    assert len(out.splitlines()) <= 120  # 191 lines when every option had its whole text


def test_first_sentence_keeps_a_useful_clause() -> None:
    assert first_sentence("With --cr: the broker (pod ordinal) to view: its broker-N. lines") == \
        "With --cr: the broker (pod ordinal) to view."
    assert first_sentence("Stop once more than N rows are bad (exit 1; the figures cover the rest).") == \
        "Stop once more than N rows are bad."
    assert first_sentence("Short.") == "Short."


def test_docs_cli_md_is_up_to_date() -> None:
    assert (REPO / "docs" / "cli.md").read_text(encoding="utf-8") == render_docs(app), \
        "run: python -m artemis_routing_cli.cli.help_docs > docs/cli.md"
