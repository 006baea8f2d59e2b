"""``divert_problems(config, codes)``: the problems with those codes, as the full run lists them."""

from __future__ import annotations

import gc

from artemis_routing_cli.config import LoadOptions, load_text
from artemis_routing_cli.config.model import Divert
from artemis_routing_cli.messages.checks import CODES, divert_problems
from artemis_routing_cli.rules import all_rules
from artemis_routing_cli.rules import diverts as divert_rules
from artemis_routing_cli.rules.base import Context
from tests.conftest import broker_xml


def _divert(name: str, address: str, forward: str, extra: str = "") -> str:
    return (f'<divert name="{name}"><address>{address}</address>'
            f"<forwarding-address>{forward}</forwarding-address>{extra}</divert>")


DIVERTS = "<diverts>" + "".join([
    _divert("a", "x", "y,,y", "<routing-name>r</routing-name>"),
    _divert("b", "x", "z", "<routing-name>r</routing-name><filter string=\"XPATH '/o'\"/>"),
    _divert("c", "y", "x", "<exclusive>true</exclusive>"),
    _divert("c", "q", "q", "<filter string=\"a &gt; \"/>"),
    _divert("d", "z", "y,", "<filter string=\"n = 1\"/>"),
]) + "</diverts>"


def _config():
    return load_text(broker_xml(DIVERTS), LoadOptions(environ={}))


def test_every_code_alone_gives_its_problems_in_order() -> None:
    config = _config()
    full = divert_problems(config)
    assert {code for _, code, _ in full} == CODES
    for code in sorted(CODES):
        assert divert_problems(config, {code}) == [p for p in full if p[1] == code]
    some = {"composite-empty", "filter-body", "routing-name-shared"}
    assert divert_problems(config, some) == [p for p in full if p[1] in some]


def _check_and_drop() -> set[str]:
    config = _config()
    rules = {d.rule for d in divert_rules.check(Context(config, all_rules()))}
    divert_problems(config)
    return rules  # the config goes: only a reference cycle could keep its diverts


def test_divert_checks_leave_no_reference_cycles() -> None:
    """Nothing the divert checks build keeps the model alive once they are done (no garbage cycles:
    with many diverts, the collector walking them all costs more than the checks)."""
    gc.collect()
    gc.disable()
    try:
        assert _check_and_drop() >= {"AR503", "AR504", "AR507"}
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        assert not [obj for obj in gc.garbage if isinstance(obj, Divert)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
