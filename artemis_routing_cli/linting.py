"""``validate`` as a pure function: one broker.xml in, its diagnostics out.

Load (as the broker does), check our schema for the routing sections, run every rule family,
apply inline suppressions and the project's settings. Printing and exit codes live in the CLI.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from .config import LoadOptions, RawDocument, load_document
from .config.gcpause import gc_paused
from .config.model import BrokerConfig
from .config.parse import build_config
from .diagnostics import REFUSES, Diagnostic, Severity
from .errors import ArouterError
from .rules import all_rules, resolve_rule, run_rules
from .rules.base import Context
from .rules.suppress import apply_suppressions, find_suppressions


@dataclass(frozen=True)
class LintSettings:
    properties: Mapping[str, str] = field(default_factory=dict)
    environ: Mapping[str, str] | None = None
    disabled: frozenset[str] = frozenset()  # rule ids
    severities: Mapping[str, Severity] = field(default_factory=dict)  # id -> severity override
    show_values: bool = False  # quote values from the environment, properties and included files


@dataclass
class FileReport:
    path: str
    diagnostics: list[Diagnostic]
    fatal: ArouterError | None = None
    # every finding as the rules made it, before inline suppressions and the user's settings (which
    # hide a finding from the report but do not change what the broker does): the deploy verdict's input
    raw: list[Diagnostic] = field(default_factory=list)

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
    try:
        doc = load_document(path, LoadOptions(settings.properties, settings.environ), stdin_bytes=stdin_bytes)
        config = build_config(doc)
    except ArouterError as err:
        meta = metas["AR001"]
        diag = Diagnostic("AR001", meta.severity, meta.category, err.message, err.file or path,
                          err.line or 1, err.column or 1, None, err.hint, broker=REFUSES)
        return FileReport(path if path != "-" else "<stdin>", [diag], err, [diag])
    return lint_loaded(doc, config, settings)


def lint_loaded(doc: RawDocument, config: BrokerConfig, settings: LintSettings | None = None, *,
                suppress: bool = True) -> FileReport:
    """The findings on a document already loaded (and its config built): what lint_path reports.

    ``suppress=False`` ignores inline suppressions: what the broker does, which reads no comment.
    """
    settings = settings or LintSettings()
    metas = all_rules()
    diags: list[Diagnostic] = []
    from .config.schema import check_schema

    diags.extend(check_schema(doc.core, doc.locator.locate, doc.locator.file_of))
    diags.extend(run_rules(config))
    raw = ordered(diags)

    sups = find_suppressions(doc.root, doc.locator.locate, _normalise) if suppress else []
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
            d = replace(d, severity=override)
        out.append(d)
    from .redact import collect

    secrets = collect(doc.root, doc.replacements, doc.locator.text_includes, doc.locator.file_of, doc.locator.main_file,
                      show_values=settings.show_values)
    return FileReport(doc.path, ordered(secrets.redact(out)), raw=raw)


def ordered(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Duplicates dropped, sorted by place and rule; findings at the same place by the same rule
    keep the order the rules reported them in, so every run prints the same lines in the same order."""
    return sorted(dict.fromkeys(diags), key=Diagnostic.sort_key)
