"""``validate`` as a pure function: one broker.xml in, its diagnostics out.

Load (as the broker does), check our schema for the routing sections, run every rule family,
apply inline suppressions and the project's settings. Printing and exit codes live in the CLI.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .config import LoadOptions, load_document, with_broker_properties
from .config.gcpause import gc_paused
from .config.parse import build_config
from .diagnostics import Diagnostic, Severity
from .errors import ArouterError
from .rules import all_rules, resolve_rule, run_rules
from .rules.base import Context
from .rules.suppress import apply_suppressions, find_suppressions


@dataclass(frozen=True)
class LintSettings:
    properties: Mapping[str, str] = field(default_factory=dict)
    environ: Mapping[str, str] | None = None
    broker_properties: Any = None  # config.properties.PropertiesOptions (--properties, --cr, --ordinal)
    disabled: frozenset[str] = frozenset()  # rule ids
    severities: Mapping[str, Severity] = field(default_factory=dict)  # id -> severity override


@dataclass
class FileReport:
    path: str
    diagnostics: list[Diagnostic]
    fatal: ArouterError | None = None
    property_sources: tuple[Any, ...] = ()  # config.properties.SourceStatus, as the broker's status has them

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity == severity)

    @property
    def errors(self) -> int:
        return self.count(Severity.ERROR)

    @property
    def warnings(self) -> int:
        return self.count(Severity.WARNING)

    @property
    def infos(self) -> int:
        return self.count(Severity.INFO)


def _normalise(name: str) -> str:
    meta = resolve_rule(name)
    return meta.id if meta is not None else name.upper()


@gc_paused()
def lint_path(path: str, settings: LintSettings | None = None, *, stdin_bytes: bytes | None = None) -> FileReport:
    settings = settings or LintSettings()
    metas = all_rules()
    options = LoadOptions(settings.properties, settings.environ, settings.broker_properties)
    shown = path
    if path.endswith((".yaml", ".yml")):  # an operator CR: its properties over the broker's defaults
        options, path = cr_options(options, path)
    try:
        doc = load_document(path, options, stdin_bytes=stdin_bytes)
        config = with_broker_properties(build_config(doc), options, path)
    except ArouterError as err:
        meta = metas["AR001"]
        diag = Diagnostic("AR001", meta.severity, meta.category, err.message, err.file or path,
                          err.line or 1, err.column or 1, None, err.hint)
        return FileReport(shown if shown != "-" else "<stdin>", [diag], err)

    diags: list[Diagnostic] = []
    from .config.schema import check_schema

    diags.extend(check_schema(doc.core, doc.locator.locate, doc.locator.file_of))
    diags.extend(run_rules(config))

    sups = find_suppressions(doc.root, doc.locator.locate, _normalise)
    diags = apply_suppressions(diags, sups, _normalise)
    ctx = Context(config, metas)
    for s in sups:
        if not s.reason:
            diags.append(ctx.report("AR003", s.pos, "suppression comment gives no reason"))
        if not s.used:
            names = ", ".join(sorted(s.rules))
            diags.append(ctx.report("AR002", s.pos, f"suppression of {names} matches no finding"))

    out: list[Diagnostic] = []
    for d in diags:
        if d.rule in settings.disabled:
            continue
        override = settings.severities.get(d.rule)
        if override is not None and override != d.severity:
            d = Diagnostic(d.rule, override, d.category, d.message, d.file, d.line, d.column, d.section, d.hint)
        out.append(d)
    return FileReport(shown if shown != path else doc.path, ordered(out), property_sources=config.property_sources)


def cr_options(options: LoadOptions, cr: str) -> tuple[LoadOptions, str]:
    """Options and broker.xml for checking an operator CR on its own: the broker's defaults (an
    empty broker.xml) with the CR's properties for broker ``--ordinal`` (0 unless given)."""
    from dataclasses import replace

    from .config.properties import PropertiesOptions
    from .config.properties.sources import empty_broker_xml

    props = options.broker_properties or PropertiesOptions()
    return replace(options, broker_properties=replace(props, cr=cr, beside=False)), empty_broker_xml()


def ordered(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Duplicates dropped, sorted by place and rule; findings at the same place by the same rule
    keep the order the rules reported them in, so every run prints the same lines in the same order."""
    return sorted(dict.fromkeys(diags), key=Diagnostic.sort_key)
