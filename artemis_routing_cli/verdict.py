"""The broker's verdict on a config: which routers it deploys, whether it starts at all.

One function, :func:`deploy_verdict`, turns validate's own findings into the broker's answer, so
``validate`` and the commands that route (``simulate``, ``serve``, ``analyze``) cannot disagree.
Every finding carries the broker's verdict on what it is about (``Diagnostic.broker``):

* ``refuses-to-start``: the broker stops at start-up (a schema error, a value its parser or a
  validator rejects, a policy it cannot find, a router that fails as it is deployed or started).
  One such finding anywhere stops the whole broker, so no router of that config is deployed,
  whichever router a command asks for.
* ``logs-and-skips``: the broker starts, logs a line and leaves the named thing out (a static
  connector that does not exist, a cluster connection whose connector is missing).
* ``deploys``: the broker starts and uses the config as written; the finding is advice.

Inline suppressions and ``--disable`` hide a finding from validate's report; they do not change
what the broker does, so the verdict is taken from every finding the rules make.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from types import MappingProxyType

from .config import LoadOptions, load_document, with_broker_properties
from .config.model import BrokerConfig
from .config.parse import build_config
from .diagnostics import REFUSES, SKIPS, VERDICT_TEXT, Diagnostic
from .errors import BrokerRefusesError
from .linting import FileReport, LintSettings, lint_loaded


@dataclass(frozen=True, slots=True)
class RouterVerdict:
    name: str
    deployed: bool  # False when the broker does not start
    skipped: tuple[Diagnostic, ...] = ()  # what the broker logs and skips in this router


@dataclass(frozen=True, slots=True)
class DeployVerdict:
    """What the broker does with one config."""

    path: str
    refusals: tuple[Diagnostic, ...]  # every finding that stops the broker, in file order
    skips: tuple[Diagnostic, ...]  # every finding the broker logs and skips
    routers: tuple[RouterVerdict, ...]

    @property
    def starts(self) -> bool:
        return not self.refusals

    def router(self, name: str) -> RouterVerdict | None:
        return next((r for r in self.routers if r.name == name), None)


def router_section(name: str) -> str:
    """The ``section`` the rules give findings about connection router ``name``."""
    return f"connection-router {name}"


def deploy_verdict(path: str, findings: Iterable[Diagnostic], config: BrokerConfig | None) -> DeployVerdict:
    """The broker's verdict on ``config``, from the findings validate makes on it (all of them:
    before suppressions and the user's settings)."""
    found = list(findings)
    refusals = tuple(d for d in found if d.broker == REFUSES)
    skips = tuple(d for d in found if d.broker == SKIPS)
    routers = tuple(
        RouterVerdict(r.name, not refusals, tuple(d for d in skips if d.section == router_section(r.name)))
        for r in (config.connection_routers if config is not None else ()))
    return DeployVerdict(path, refusals, skips, routers)


@dataclass(frozen=True, slots=True)
class CheckedConfig:
    config: BrokerConfig  # with deploy_notes set from the verdict
    report: FileReport
    verdict: DeployVerdict


def finding_text(d: Diagnostic, *, located: bool = True) -> str:
    """A finding as validate's text report prints it:
    ``file:line:col: severity RULE message (name) [broker: verdict]``."""
    from .rules import all_rules

    meta = all_rules().get(d.rule)
    name = f" ({meta.name})" if meta is not None else ""
    text = f"{d.severity.value} {d.rule} {d.message}{name} [{VERDICT_TEXT[d.broker]}]"
    return f"{d.file}:{d.line}:{d.column}: {text}" if located else text


def refusal_error(verdict: DeployVerdict, command: str) -> BrokerRefusesError:
    """The error a routing command ends with when the broker would not start: validate's first
    refusing finding, located, and how many more there are."""
    first = verdict.refusals[0]
    more = len(verdict.refusals) - 1
    tail = f" (and {more} more finding(s) that stop the broker)" if more else ""
    return BrokerRefusesError(
        finding_text(first, located=False) + tail, file=first.file, line=first.line, column=first.column,
        hint=f"the broker would not start with this file, so {command} does not route with it; "
             "'arouter validate' lists every finding; --ignore-invalid goes on anyway")


def load_checked(path: str, options: LoadOptions | None = None, *, stdin_bytes: bytes | None = None,
                 going_on: bool = False, broker_home: object = None) -> CheckedConfig:
    """Load ``path`` as the broker does, lint it as validate does and judge it as the broker would.

    Loading errors raise ConfigError, as :func:`config.load` does. ``going_on`` says the caller
    routes even when the broker would not start (``--ignore-invalid``): each router then notes why.
    """
    options = options or LoadOptions()
    doc = load_document(path, options, stdin_bytes=stdin_bytes)
    config = with_broker_properties(build_config(doc), options, path)
    report = lint_loaded(doc, config, LintSettings(properties=options.properties, environ=options.environ,
                                                   broker_properties=options.broker_properties,
                                                   broker_home=broker_home))
    verdict = deploy_verdict(report.path, report.raw, config)
    notes: dict[str, tuple[str, ...]] = {}
    verdicts: dict[str, str] = {}
    for rv in verdict.routers:
        if verdict.refusals:
            verdicts[rv.name] = REFUSES
        elif rv.skipped:
            verdicts[rv.name] = SKIPS
        lines = [f"the broker starts, logs and skips: {finding_text(d)}" for d in rv.skipped]
        if going_on and verdict.refusals:
            first = verdict.refusals[0]
            lines.insert(0, f"the broker would not start ({first.rule} at {first.file}:{first.line}:{first.column}); "
                            "routed anyway (--ignore-invalid)")
        if lines:
            notes[rv.name] = tuple(lines)
    if notes:
        config = replace(config, deploy_notes=MappingProxyType(notes))
    if verdicts:
        config = replace(config, deploy_verdicts=MappingProxyType(verdicts))
    return CheckedConfig(config, report, verdict)
