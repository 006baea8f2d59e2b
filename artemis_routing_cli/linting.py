"""``validate`` as a pure function: one broker.xml in, its diagnostics out.

Load (as the broker does), check our schema for the routing sections, run every rule family,
apply inline suppressions and the project's settings. Printing and exit codes live in the CLI.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field, replace
from operator import attrgetter, is_
from typing import Any

from .config import LoadOptions, RawDocument, load_document, with_broker_properties
from .config.gcpause import gc_paused
from .config.model import BrokerConfig
from .config.parse import build_config
from .diagnostics import REFUSES, Diagnostic, Severity
from .errors import ArouterError
from .records import record
from .rules import all_rules, resolve_rule, run_rules
from .rules.base import Context
from .rules.suppress import apply_suppressions, find_suppressions


@record(frozen=True)
class LintSettings:
    properties: Mapping[str, str] = field(default_factory=dict)
    environ: Mapping[str, str] | None = None
    broker_properties: Any = None  # config.properties.PropertiesOptions (--properties, --cr, --ordinal)
    disabled: frozenset[str] = frozenset()  # rule ids
    severities: Mapping[str, Severity] = field(default_factory=dict)  # id -> severity override
    show_values: bool = False  # quote values from the environment, properties and included files
    broker_home: Any = None  # config.brokerhome.BrokerHome: the whole <core> against its own schema (AR107)


@record
class FileReport:
    path: str
    diagnostics: list[Diagnostic]
    fatal: ArouterError | None = None
    # every finding as the rules made it, before inline suppressions and the user's settings (which
    # hide a finding from the report but do not change what the broker does): the deploy verdict's input
    raw: list[Diagnostic] = field(default_factory=list)
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
def lint_path(path: str, settings: LintSettings | None = None, *, stdin_bytes: bytes | None = None,
              keep: list[object] | None = None) -> FileReport:
    """One broker.xml (or ``-``), or one operator CR (``.yaml``/``.yml``): for a CR without
    ``--ordinal``, every broker of ``spec.deploymentPlan.size`` is checked, and a finding that only
    some of them have says which.

    ``keep``: a list that then holds the (last) loaded document and its model, for a caller that
    ends the process soon and would rather not spend the time freeing them (see ``cli.entry``)."""
    settings = settings or LintSettings()
    options = LoadOptions(settings.properties, settings.environ, settings.broker_properties)
    replicas = getattr(options.broker_properties, "replicas", None)
    if not path.endswith((".yaml", ".yml")) and getattr(options.broker_properties, "cr", None) is None \
            and replicas is not None and path != "-":
        # --replicas R: R pods run this broker.xml, each with its STATEFUL_SET_ORDINAL in its environment
        return _per_pod(path, [_lint_one(path, path, _pod_options(options, n), settings, None, keep)
                               for n in range(replicas)])
    if not path.endswith((".yaml", ".yml")):
        return _lint_one(path, path, options, settings, stdin_bytes, keep)
    ordinal = getattr(options.broker_properties, "ordinal", None)
    if ordinal is not None:
        return _lint_one(path, *cr_options(options, path, ordinal), settings, stdin_bytes, keep)
    from .config.properties.cr import deployment_size

    size = getattr(options.broker_properties, "replicas", None) or deployment_size(path)
    return _per_pod(path, [_lint_one(path, *cr_options(options, path, n), settings, stdin_bytes, keep)
                           for n in range(size)])


def _per_pod(path: str, reports: list[FileReport]) -> FileReport:
    """One report for the pods of a fleet (a finding only some pods have says which)."""
    if len(reports) == 1 or any(r.fatal is not None for r in reports):
        return reports[0]
    return FileReport(path, _per_broker([r.diagnostics for r in reports]), raw=_per_broker([r.raw for r in reports]),
                      property_sources=reports[0].property_sources)


def _pod_options(options: LoadOptions, ordinal: int) -> LoadOptions:
    """``options`` as pod ``ordinal`` of ``--replicas`` gets them: STATEFUL_SET_ORDINAL in its environment."""
    import os
    from dataclasses import replace

    env = dict(os.environ if options.environ is None else options.environ)
    env["STATEFUL_SET_ORDINAL"] = str(ordinal)
    return replace(options, environ=env)


def _per_broker(lists: list[list[Diagnostic]]) -> list[Diagnostic]:
    """The findings of every broker of a CR; one that only some brokers have says which."""
    seen: dict[Diagnostic, list[int]] = {}
    for n, found in enumerate(lists):
        for d in found:
            seen.setdefault(d, []).append(n)
    merged = []
    for d, ordinals in seen.items():
        if len(ordinals) < len(lists):
            d = replace(d, message=f"broker {', '.join(map(str, ordinals))}: {d.message}")
        merged.append(d)
    return ordered(merged)


def _lint_one(shown: str, path: str, options: LoadOptions, settings: LintSettings,
              stdin_bytes: bytes | None, keep: list[object] | None = None) -> FileReport:
    metas = all_rules()
    try:
        doc = load_document(path, options, stdin_bytes=stdin_bytes)
        if keep is not None:  # only the latest file's: the memory held stays what one check needs
            keep[:] = [doc]
        config = with_broker_properties(build_config(doc), options, path)
        if keep is not None:
            keep.append(config)
    except ArouterError as err:
        meta = metas["AR001"]
        diag = Diagnostic("AR001", meta.severity, meta.category, err.message, err.file or path,
                          err.line or 1, err.column or 1, None, err.hint, broker=REFUSES)
        return FileReport(shown if shown != "-" else "<stdin>", [diag], err, [diag])
    report = lint_loaded(doc, config, settings)
    report.path = shown if shown != path else doc.path
    return report


def lint_loaded(doc: RawDocument, config: BrokerConfig, settings: LintSettings | None = None, *,
                suppress: bool = True) -> FileReport:
    """The findings on a document already loaded (and its config built): what lint_path reports.

    ``suppress=False`` ignores inline suppressions: what the broker does, which reads no comment.
    """
    settings = settings or LintSettings()
    metas = all_rules()
    diags: list[Diagnostic] = []
    from .config.schema import check_schema

    diags.extend(check_schema(doc.core, doc.locator.locate, doc.locator.file_of,
                              text=None if doc.locator.has_includes else doc.locator.text_of(doc.locator.main_file)))
    if settings.broker_home is not None:
        from .config.fullschema import check_whole_file, keep

        home = settings.broker_home
        diags.extend(keep(check_whole_file(doc.core, doc.locator.locate, doc.locator.file_of, home.server_jar,
                                           home.version), diags))
    diags.extend(run_rules(config))
    raw = ordered(diags)
    found = diags

    sups = find_suppressions(doc.root, doc.locator.locate, _normalise,
                             text=doc.locator.verbatim_text) if suppress else []
    diags = apply_suppressions(diags, sups, _normalise)
    ctx = Context(config, metas)
    for s in sups:
        if not s.reason:
            diags.append(ctx.report("AR003", s.pos, "suppression comment gives no reason"))
        if not s.used:
            names = ", ".join(sorted(s.rules))
            diags.append(ctx.report("AR002", s.pos, f"suppression of {names} matches no finding"))

    out: list[Diagnostic] = []
    if not settings.disabled and not settings.severities:
        out = list(diags)  # no setting changes a finding: none looked at
    else:
        for d in diags:
            if d.rule in settings.disabled:
                continue
            override = settings.severities.get(d.rule)
            if override is not None and override != d.severity:
                d = replace(d, severity=override)
            out.append(d)
    if out:  # nothing to redact otherwise
        from .redact import collect

        secrets = collect(doc.root, doc.replacements, doc.locator.text_includes, doc.locator.file_of,
                          doc.locator.main_file, show_values=settings.show_values,
                          has_includes=doc.locator.has_includes, main_text=doc.locator.verbatim_text)
        for decoded in config.property_secrets:  # ENC(...) values of broker properties: hidden even with --show-values
            secrets.add(decoded, "<masked value hidden>")
        out = secrets.redact(out)
    # nothing suppressed, disabled, changed or added: the report is ``raw`` (sorted once, not twice)
    same = len(out) == len(found) and all(map(is_, out, found))
    return FileReport(doc.path, list(raw) if same else ordered(out), raw=raw,
                      property_sources=config.property_sources)


def cr_options(options: LoadOptions, cr: str, ordinal: int = 0) -> tuple[str, LoadOptions]:
    """broker.xml and options for checking an operator CR on its own: the broker's defaults (an
    empty broker.xml) with the CR's properties as broker ``ordinal`` gets them."""
    from dataclasses import replace

    from .config.properties import PropertiesOptions
    from .config.properties.sources import empty_broker_xml

    props = options.broker_properties or PropertiesOptions()
    return empty_broker_xml(), replace(options, broker_properties=replace(props, cr=cr, ordinal=ordinal,
                                                                          beside=False))


def ordered(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Duplicates dropped, sorted by place and rule; findings at the same place by the same rule
    keep the order the rules reported them in, so every run prints the same lines in the same order."""
    return sorted(dict.fromkeys(diags), key=_SORT_KEY)


_SORT_KEY = attrgetter("file", "line", "column", "rule")  # Diagnostic.sort_key, without a Python call per finding
