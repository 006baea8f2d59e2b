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
from .diagnostics import DEPLOYS, REFUSES, SKIPS, VERDICT_TEXT, Diagnostic, Severity
from .errors import BrokerRefusesError
from .javastr import java_hashmap_order
from .linting import FileReport, LintSettings, lint_loaded

# The order the broker meets what stops it, as stages (ActiveMQServerImpl, 2.21 to 2.44): reading the
# text (FileDeploymentManager, XMLUtil), the schema (XMLUtil.validate), the parser
# (FileConfigurationParser), then at start-up the broker properties (parseProperties), each router
# deployed in list order (initialisePart1: ConnectionRouterManager.deployConnectionRouter builds the
# cache, the pool, the policy, then the ConnectionRouter, whose constructor compiles the key-filter and
# then the local-target-filter), the diverts (initialisePart2: deployDiverts), and last the routers
# started in HashMap order of their names (ConnectionRouterManager.start: a pool's cluster
# connection or discovery group that is null fails in pool.start()).
_READING = frozenset({"AR001", "AR705", "AR707"})
_SCHEMA = frozenset({"AR101", "AR102", "AR103", "AR104", "AR105", "AR106"})
_PROPERTIES = frozenset({"AR722"})
_POLICY = frozenset({"AR301", "AR302", "AR303", "AR314"})
_DIVERTS = frozenset({"AR504"})
_POOL_START = frozenset({"AR202", "AR203"})
_ROUTER_SECTION = "connection-router "
# Findings where the broker reads other text than the file shows and deploys with it (bytes that are
# not UTF-8, read as U+FFFD): the commands route on the broker's text and warn.
_READ_AS_BROKER = frozenset({"AR707"})


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
    # the refusals in the order the broker meets them (the first is what it fails on)
    failure_order: tuple[Diagnostic, ...] = ()
    # errors the broker deploys with, reading the file as other text than it shows (commands warn)
    read_differently: tuple[Diagnostic, ...] = ()

    @property
    def starts(self) -> bool:
        return not self.refusals

    @property
    def first_failure(self) -> Diagnostic | None:
        """The finding the broker fails on (it stops at the first), None when it starts."""
        return self.failure_order[0] if self.failure_order else None

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
    names = [r.name for r in config.connection_routers] if config is not None else []
    routers = tuple(
        RouterVerdict(name, not refusals, tuple(d for d in skips if d.section == router_section(name)))
        for name in names)
    xml = (config.path, *config.included_files) if config is not None else ()
    return DeployVerdict(path, refusals, skips, routers, broker_failure_order(refusals, names, xml),
                         read_differently(found))


def read_differently(findings: Iterable[Diagnostic]) -> tuple[Diagnostic, ...]:
    """The errors the broker deploys with, reading the file as other text than it shows: a command
    that routes on the broker's text says so with a warning."""
    return tuple(d for d in findings if d.rule in _READ_AS_BROKER and d.broker == DEPLOYS
                 and d.severity is Severity.ERROR)


def broker_failure_order(refusals: Iterable[Diagnostic], routers: list[str],
                         xml_files: Iterable[str] = ()) -> tuple[Diagnostic, ...]:
    """``refusals`` (in file order) in the order the broker meets them: see the stages above; within a
    stage, file order. ``routers``: the router names in the broker's list order; ``xml_files``:
    broker.xml and its includes (the parser resolves a policy written there: an unknown name stops
    the parse; one set by broker properties is resolved only as its router is deployed)."""
    xml = frozenset(xml_files)
    listed = {name: i for i, name in enumerate(routers)}
    started = {name: i for i, name in enumerate(java_hashmap_order(routers))}

    def key(item: tuple[int, Diagnostic]) -> tuple[int, int, int, int]:
        index, d = item
        router = d.section[len(_ROUTER_SECTION):] if d.section and d.section.startswith(_ROUTER_SECTION) else None
        if d.rule in _READING:
            return (0, 0, 0, index)
        if d.rule in _SCHEMA:
            return (1, 0, 0, index)
        if d.rule in _PROPERTIES:
            return (3, 0, 0, index)
        if router is not None and router in listed:
            if d.rule in _POOL_START:
                return (6, started[router], 0, index)
            if d.rule in _POLICY and not (d.rule == "AR301" and d.file in xml):
                return (4, listed[router], 1, index)
            if d.rule == "AR309":
                return (4, listed[router], 3 if d.message.startswith("<local-target-filter>") else 2, index)
        if d.rule in _DIVERTS:
            return (5, 0, 0, index)
        return (2, 0, 0, index)  # the parser's validators

    return tuple(d for _, d in sorted(enumerate(refusals), key=key))


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
    """The error a routing command ends with when the broker would not start: the finding the broker
    fails on first, located, and how many more there are."""
    first = verdict.failure_order[0]
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
        if going_on and verdict.failure_order:
            first = verdict.failure_order[0]
            lines.insert(0, f"the broker would not start ({first.rule} at {first.file}:{first.line}:{first.column}); "
                            "routed anyway (--ignore-invalid)")
        if lines:
            notes[rv.name] = tuple(lines)
    if notes:
        config = replace(config, deploy_notes=MappingProxyType(notes))
    if verdicts:
        config = replace(config, deploy_verdicts=MappingProxyType(verdicts))
    return CheckedConfig(config, report, verdict)
