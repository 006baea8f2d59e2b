"""``arouter validate`` once its options are known: settings, the check, the report, the exit code.

No typer here, and rich only when a terminal draws colour: piped text and the machine formats
are written with plain ``print``, so a pre-commit hook or CI step pays for neither.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import TYPE_CHECKING

from ..config.gcpause import gc_paused
from ..diagnostics import Severity
from ..errors import UsageError
from ..outfile import atomic_text, write_text
from ..safeio import MAX_CONFIG_BYTES
from .common import colour_terminal, find_config, note, parse_properties
from .validate_options import FORMATS, ValidateOptions

MAX_REPLICAS = 16  # pods validate looks at (config.properties.cr.MAX_ORDINALS)

if TYPE_CHECKING:
    from ..report.coverage import Coverage


def run_validate(opts: ValidateOptions, *, keep: list[object] | None = None) -> int:
    """Check every file of ``opts``, write the report; the exit code (0 clean, 1 findings, 2 fatal).

    ``keep``: then holds the reports and the last file's document and model (see ``linting.lint_path``),
    which the cyclic garbage collector no longer looks at (``gc.freeze``)."""
    from ..linting import LintSettings, lint_path
    from ..projectconfig import ProjectConfig, find_project_config, load_project_config
    from ..rules import resolve_rule

    if opts.fmt not in FORMATS:
        raise UsageError(f"--format {opts.fmt!r}: choose one of {', '.join(FORMATS)}")
    project = ProjectConfig() if opts.no_settings else (
        load_project_config(opts.settings) if opts.settings else find_project_config())
    disabled: set[str] = set()
    for name in [*project.disable, *opts.disable]:
        meta = resolve_rule(name)
        if meta is None:
            raise UsageError(f"unknown rule {name!r} (see arouter validate --list-rules)",
                             file=project.path if name in project.disable else None)
        disabled.add(meta.id)
    severities = {}
    for name, sev in project.severity.items():
        meta = resolve_rule(name)
        if meta is None:
            raise UsageError(f"unknown rule {name!r} in severity settings", file=project.path)
        severities[meta.id] = sev
    threshold = _threshold(opts.fail_on, opts.strict, project.fail_on)
    if opts.old_properties:
        note("arouter: note: --property is now -D/--define (a ${NAME} value); in simulate and diff "
             "-p/--message-property is a message property")
    props = {**project.properties, **parse_properties([*opts.old_properties, *opts.properties])}
    if opts.ordinal is not None and opts.cr is None and not any(p.endswith((".yaml", ".yml")) for p in opts.paths):
        raise UsageError("--ordinal needs a CR (--cr or a .yaml path)")
    from ..config.properties.options import PropertiesOptions

    if opts.replicas is not None and not 1 <= opts.replicas <= MAX_REPLICAS:
        raise UsageError(f"--replicas {opts.replicas}: expected 1 to {MAX_REPLICAS} pods")
    home = None
    if opts.broker_home is not None or opts.no_broker_home or "ARTEMIS_HOME" in os.environ:
        from .broker_home import resolve_home

        home = resolve_home(opts.broker_home, opts.no_broker_home)
    loader = False
    broker_props = PropertiesOptions(paths=opts.broker_properties, cr=opts.cr, ordinal=opts.ordinal,
                                     replicas=opts.replicas)
    lint_settings = LintSettings(properties=props, disabled=frozenset(disabled), severities=severities,
                                 broker_properties=broker_props, show_values=opts.show_values, broker_home=home)
    if opts.paths:
        targets = list(opts.paths)
    elif opts.cr is not None:
        targets = [opts.cr]  # the CR over the broker's defaults
        lint_settings = LintSettings(properties=props, disabled=frozenset(disabled), severities=severities,
                                     broker_properties=PropertiesOptions(paths=opts.broker_properties,
                                                                         ordinal=opts.ordinal, replicas=opts.replicas),
                                     show_values=opts.show_values, broker_home=home)
    elif opts.broker_properties:  # properties only, unless a broker.xml is where one is looked for
        from ..config.properties.sources import empty_broker_xml
        from .common import found_config_or_none

        targets = [found_config_or_none() or empty_broker_xml()]
    else:
        targets = [find_config(None)]
    stdin_data = sys.stdin.buffer.read(MAX_CONFIG_BYTES + 1) if "-" in targets else None
    if keep is None:
        reports = [lint_path(p, lint_settings, stdin_bytes=stdin_data) for p in targets]
    else:
        reports = [lint_path(p, lint_settings, stdin_bytes=stdin_data) for p in targets[:-1]]
        with gc_paused():  # the last file's model is kept: the collector must not walk it while the report is written
            reports.append(lint_path(targets[-1], lint_settings, stdin_bytes=stdin_data, keep=keep))
            keep.append(reports)
            gc.freeze()

    if home is not None:
        loader = _judge(reports, targets, home, props, opts)
    fatal = [r for r in reports if r.fatal is not None]
    failing = any(d.severity.rank >= threshold.rank for r in reports for d in r.diagnostics if r.fatal is None)
    code = 2 if fatal else (1 if failing else 0)
    for r in fatal:
        note(f"arouter: {r.fatal}")
    from ..report.coverage import Coverage

    coverage = Coverage(True, home.describe(), loader) if home is not None else Coverage(False)
    _emit(opts, reports, code, threshold, coverage)
    return code


def _judge(reports: list, targets: list[str], home: object, props: dict[str, str], opts: ValidateOptions) -> bool:
    """The broker's own loader on every file it can read as the broker would; whether it ran."""
    from ..judge.loader import judge_report

    if not home.has_routers:  # type: ignore[attr-defined]
        note(f"arouter: the broker's own loader is not supported for Artemis {home.version} (broker balancers, "  # type: ignore[attr-defined]
             "before 2.21): checked against its schema only")
        return False
    ran = False
    for path, report in zip(targets, reports, strict=True):
        if report.fatal is not None:
            continue
        if path == "-" or path.endswith((".yaml", ".yml")) or opts.cr is not None:
            note(f"arouter: {report.path}: the broker's own loader judges files on disk without a CR; "
                 "checked against its schema only")
            continue
        verdict = judge_report(report, path, home, props, opts.broker_properties)  # type: ignore[arg-type]
        ran = True
        if any(d.rule == "AR005" for d in report.diagnostics):
            note(f"arouter: {report.path}: ARGUMENT WITH YOUR BROKER: arouter's verdict and the broker's own loader "
                 f"differ ({'refuses' if not verdict.starts else 'starts'} says the broker): a bug in arouter, "
                 "please report it")
    return ran


def _threshold(fail_on: str | None, strict: bool, project: Severity | None) -> Severity:
    if fail_on is not None:
        try:
            return Severity(fail_on.lower())
        except ValueError:
            raise UsageError(f"--fail-on {fail_on!r}: choose error, warning or info") from None
    if strict:
        return Severity.WARNING
    return project or Severity.ERROR


def _emit(opts: ValidateOptions, reports: list, code: int, threshold: Severity, coverage: Coverage) -> None:
    output = opts.output
    if opts.fmt == "text":
        from ..report import text as text_report

        # an unreadable file is said once, as the one line on stderr (run_validate), not again in the report
        reports = [r for r in reports if r.fatal is None]
        if not reports and not output:
            return

        if output:
            with atomic_text(output, what="report") as fh:
                text_report.render_plain(reports, fh, quiet=opts.quiet, coverage=coverage)
        elif colour_terminal():
            from .common import stdout_console

            text_report.render(reports, stdout_console(), quiet=opts.quiet, coverage=coverage)
        else:  # piped: the same lines without rich (and without its import)
            text_report.render_plain(reports, sys.stdout, quiet=opts.quiet, coverage=coverage)
        return
    text = _render(opts.fmt, reports, code, threshold, opts.docs_url, coverage)
    if output:
        write_text(output, text + "\n", what="report")
    elif text:
        sys.stdout.write(text + "\n")


def _render(fmt: str, reports: list, code: int, threshold: Severity, docs_url: str, coverage: Coverage) -> str:
    """The report in a machine format (only that format's module is imported)."""
    if fmt == "json":
        from ..report import jsonfmt

        return jsonfmt.render(reports, code, coverage)
    if fmt == "sarif":
        from ..report import sarif

        return sarif.render(reports, docs_url=docs_url, coverage=coverage)
    if fmt == "junit":
        from ..report import junit

        return junit.render(reports, fail_on=threshold)
    if fmt == "broker-status":
        from ..report import brokerstatus

        return brokerstatus.render(reports)
    from ..report import github

    return github.render(reports)
