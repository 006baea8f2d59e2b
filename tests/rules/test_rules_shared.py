"""What several rule families ask about one config is worked out once per run (``Context.shared``),
and the answer is the one each function gives on its own."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from artemis_routing_cli.config import LoadOptions, load_document
from artemis_routing_cli.config.model import BrokerConfig
from artemis_routing_cli.config.parse import build_config
from artemis_routing_cli.linting import lint_path
from artemis_routing_cli.rules import _util, all_rules, run_rules
from artemis_routing_cli.rules.base import Context
from tests.conftest import SAMPLE

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from validate_gen import generate  # noqa: E402

SHARED = [_util.connector_names, _util.defined_connectors, _util.defined_acceptors, _util.router_elements,
          _util.cluster_elements, _util.real_cluster_connections, _util.deployed_cluster_connections]


def _config(path: Path) -> BrokerConfig:
    return build_config(load_document(str(path), LoadOptions({}, None, None)))


@pytest.fixture(params=["sample", "generated"])
def config(request: pytest.FixtureRequest, tmp_path: Path) -> BrokerConfig:
    if request.param == "sample":
        return _config(SAMPLE)
    path = tmp_path / "broker.xml"
    path.write_text(generate(12, 30, 4), encoding="utf-8")
    return _config(path)


@pytest.mark.parametrize("fn", SHARED, ids=lambda f: f.__name__)
def test_shared_answer_is_the_direct_one(config: BrokerConfig, fn: Callable[[BrokerConfig], Any]) -> None:
    ctx = Context(config, all_rules())
    assert ctx.shared(fn) == fn(config)
    assert ctx.shared(fn) is ctx.shared(fn)  # worked out once


def test_each_shared_function_runs_once_per_run(config: BrokerConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    for fn in SHARED:
        def counted(cfg: BrokerConfig, fn: Callable[[BrokerConfig], Any] = fn) -> Any:
            calls.append(fn.__name__)
            return fn(cfg)
        for mod in list(sys.modules.values()):
            name = getattr(mod, "__name__", "")  # the families' imports (not _util's own calls)
            if name.startswith("artemis_routing_cli.rules.") and name != _util.__name__ and \
                    getattr(mod, fn.__name__, None) is fn:
                monkeypatch.setattr(mod, fn.__name__, counted)
    first = run_rules(config)
    assert calls and len(calls) == len(set(calls))
    calls.clear()
    assert run_rules(config) == first  # a new run asks again: nothing is kept between runs
    assert calls


def test_answers_belong_to_one_context(config: BrokerConfig) -> None:
    one, two = Context(config, all_rules()), Context(config, all_rules())
    assert one.shared(_util.connector_names) is not two.shared(_util.connector_names)
    assert one.answers.keys() == two.answers.keys() == {_util.connector_names, _util.raw_elements}
    assert one.answers[_util.raw_elements] is not two.answers[_util.raw_elements]


def test_lint_keeps_only_the_last_files_model(tmp_path: Path) -> None:
    """``keep`` holds one document and model however many files are checked: memory stays one check's."""
    held: list[object] = []
    first = lint_path(str(SAMPLE), keep=held)
    assert len(held) == 2 and held[0].path == first.path  # type: ignore[attr-defined]
    other = tmp_path / "broker.xml"
    other.write_text(generate(3, 4, 1), encoding="utf-8")
    lint_path(str(other), keep=held)
    assert len(held) == 2 and held[0].path == str(other)  # type: ignore[attr-defined]
    assert lint_path(str(SAMPLE)).diagnostics == first.diagnostics


def test_report_is_raw_unless_something_was_suppressed_disabled_or_changed(tmp_path: Path) -> None:
    from artemis_routing_cli.diagnostics import Severity
    from artemis_routing_cli.linting import LintSettings, ordered

    path = tmp_path / "broker.xml"
    path.write_text(generate(4, 6, 2), encoding="utf-8")
    plain = lint_path(str(path))
    assert plain.diagnostics == plain.raw and plain.diagnostics is not plain.raw
    rule = plain.raw[0].rule
    disabled = lint_path(str(path), LintSettings(disabled=frozenset({rule})))
    assert disabled.diagnostics == [d for d in plain.raw if d.rule != rule] and disabled.raw == plain.raw
    lowered = lint_path(str(path), LintSettings(severities={rule: Severity.INFO}))
    assert [d.severity for d in lowered.diagnostics if d.rule == rule] == [Severity.INFO] * sum(
        d.rule == rule for d in plain.raw)
    assert lowered.diagnostics == ordered(lowered.diagnostics)


# Elements in odd places: a section's element nested in another of its kind, other namespaces and none,
# a router pool's <cluster-connection>, a <connector> under something that is no <connectors>.
ODD = """<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core" xmlns:o="urn:other">
<connectors><connector name="c1">tcp://a:1</connector>
  <o:wrap><connectors><connector name="inner">tcp://i:1</connector></connectors></o:wrap>
  <connector name="c2">tcp://b:1</connector></connectors>
<o:connectors><o:connector name="other">tcp://o:1</o:connector></o:connectors>
<bridges><connector name="stray">tcp://s:1</connector></bridges>
<acceptors><acceptor name="a1">tcp://0.0.0.0:61616?router=r1</acceptor>
  <acceptors xmlns=""><acceptor name="bare">tcp://0.0.0.0:61617</acceptor></acceptors></acceptors>
<cluster-connections><cluster-connection name="cc1"><connector-ref>c1</connector-ref></cluster-connection>
</cluster-connections>
<connection-routers><connection-router name="r1"><policy name="FIRST_ELEMENT"/>
  <pool><cluster-connection>cc1</cluster-connection></pool></connection-router>
  <o:connection-router name="r2"/></connection-routers>
</core></configuration>"""


def _old_section_children(core: Any, section: str, name: str) -> list[Any]:
    """What the families read before the one walk: a walk per name, kept when the parent is ``section``."""
    return [el for el in core.iterdescendants("{*}" + name) if _util.local(el.getparent()) == section]


@pytest.mark.parametrize("which", ["sample", "generated", "odd"])
def test_one_walk_finds_what_a_walk_per_name_finds(which: str, tmp_path: Path) -> None:
    """The one shared walk over <core> (raw_elements) gives each family the elements, in the order,
    that a walk per element name gave, and the helpers answer the same through it or on their own."""
    path = SAMPLE if which == "sample" else tmp_path / "broker.xml"
    if which != "sample":
        path.write_text(generate(12, 30, 4) if which == "generated" else ODD, encoding="utf-8")
    config = _config(path)
    core = config.core
    raw = _util.raw_elements(config)
    assert raw.connectors == _old_section_children(core, "connectors", "connector")
    assert raw.acceptors == _old_section_children(core, "acceptors", "acceptor")
    assert raw.routers == list(core.iterdescendants("{*}connection-router"))
    assert raw.cluster_connections == [el for el in core.iterdescendants("{*}cluster-connection")
                                       if _util.local(el.getparent()) != "pool"]
    if which == "odd":
        assert [el.get("name") for el in raw.connectors] == ["c1", "inner", "c2", "other"]
        assert [el.get("name") for el in raw.acceptors] == ["a1", "bare"]
        assert [el.get("name") for el in raw.routers] == ["r1", "r2"] and len(raw.cluster_connections) == 1
    ctx = Context(config, all_rules())
    for fn in _util.WALK_READERS:
        assert ctx.shared(fn) == fn(config) == fn(config, raw), fn.__name__
