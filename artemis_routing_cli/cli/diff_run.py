"""``arouter diff`` once its options are known: check every input, load both configs, compare,
route the keys, write the outputs, return the exit code (0; 1 a --fail-on threshold; 2 bad input)."""

from __future__ import annotations

import dataclasses
import datetime
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConfigError, UsageError
from .common import note, parse_properties
from .diff_sources import ConfigSource, resolve_source
from .keys_file import reading_of

FORMATS = ("text", "json", "markdown", "sarif", "github")
DEFAULT_SEED = 0  # ROUND_ROBIN's start on both sides, so that the two sides compare


@dataclass
class DiffOptions:
    old: str
    new: str
    broker_version: tuple[int, int] | None = None  # --broker-home's version (else arouter's newest)
    router: str | None = None
    keys_file: str | None = None
    sample: int | None = None
    keys: str | None = None
    keys_format: str = "auto"
    master: str | None = None
    conf: list[str] = field(default_factory=list)
    engine: str = "auto"
    spark_log_level: str = "ERROR"
    node_id: list[str] = field(default_factory=list)
    down: list[str] = field(default_factory=list)
    connections: list[str] = field(default_factory=list)
    targets: str | None = None
    seed: int | None = None
    define: list[str] = field(default_factory=list)
    address: str | None = None
    prop: list[str] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    routing_type: str | None = None
    message: str | None = None
    show_values: bool = False
    fmt: str = "text"
    output: str | None = None
    report: str | None = None
    fail_on_churn: str | None = None
    fail_on_refused: bool = False
    properties: list[str] = field(default_factory=list)  # broker properties on both sides
    old_properties: list[str] = field(default_factory=list)
    new_properties: list[str] = field(default_factory=list)
    keep_cr: bool = False  # --keys-file read as simulate reads it
    key_column: list[str] = field(default_factory=list)


def parse_share(text: str) -> float:
    """``5%`` or ``5`` -> 0.05 (a percentage of keys)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*%?\s*", text)
    if m is None or float(m.group(1)) > 100:
        raise UsageError(f"--fail-on-churn {text!r}: expected a percentage such as 5% or 0.5%")
    return float(m.group(1)) / 100


def _check(opts: DiffOptions) -> float | None:
    """Every option checked before any work; the churn threshold."""
    if opts.fmt not in FORMATS:
        raise UsageError(f"--format {opts.fmt!r}: choose {', '.join(FORMATS)}")
    given = [name for name, v in (("--keys-file", opts.keys_file), ("--sample", opts.sample), ("--keys", opts.keys))
             if v is not None]
    if len(given) > 1:
        raise UsageError(f"{' and '.join(given)}: give one key population")
    if opts.sample is not None and not 0 < opts.sample <= 100_000_000:
        raise UsageError(f"--sample {opts.sample}: expected 1 to 100,000,000 keys")
    if opts.report is not None and not opts.report.lower().endswith((".html", ".htm")):
        raise UsageError(f"--report {opts.report!r}: the report is HTML, name it FILE.html")
    if opts.address is None and (opts.prop or opts.header or opts.message or opts.routing_type):
        raise UsageError("--message-property, --header, --message and --routing-type need --address")
    spark_only = [n for n, v in (("--master", opts.master), ("--conf", opts.conf)) if v]
    if spark_only and opts.keys is None:
        raise UsageError(f"{', '.join(spark_only)}: only with --keys (Spark)")
    if opts.engine not in ("auto", "jvm", "pandas"):
        raise UsageError(f"--engine {opts.engine!r}: choose auto, jvm or pandas")
    threshold = parse_share(opts.fail_on_churn) if opts.fail_on_churn is not None else None
    if (threshold is not None) and not given:
        raise UsageError("--fail-on-churn needs keys: --keys-file, --sample or --keys")
    return threshold


@dataclass
class Loaded:
    source: ConfigSource
    config: Any
    diagnostics: list[Any]


def _load(source: ConfigSource, properties: dict[str, str], broker_properties: list[str]) -> Loaded:
    from ..config import with_broker_properties
    from ..config.loader import LoadOptions, load_document
    from ..config.parse import build_config
    from ..config.properties import PropertiesOptions
    from ..linting import LintSettings, lint_loaded

    # broker properties are read from disk; broker.properties beside broker.xml only for a file on disk
    props = PropertiesOptions(paths=tuple(broker_properties), beside=source.rev is None)
    options = LoadOptions(properties, broker_properties=props, source=source.source)
    doc = load_document(source.path, options)
    config = with_broker_properties(build_config(doc), options, source.path)
    # the broker reads no suppression comment: the verdict sees every finding (report.raw)
    report = lint_loaded(doc, config, LintSettings(properties=properties, broker_properties=props))
    return Loaded(source, config, report.raw)


def run_diff(opts: DiffOptions) -> int:
    threshold = _check(opts)
    properties = parse_properties(opts.define)
    old_src, new_src = resolve_source(opts.old), resolve_source(opts.new)
    from ..routing.targets import state_from_options

    state = state_from_options(opts.node_id, opts.down, opts.connections, opts.targets)
    message = None
    if opts.address is not None:
        from .simulate_flow import build_message

        message = build_message(opts.address, opts.prop, opts.header, opts.routing_type, opts.message)
    keys = None
    if (opts.keep_cr or opts.key_column) and opts.keys_file is None:
        raise UsageError(f"{'--keep-cr' if opts.keep_cr else '--key-column'}: only with --keys-file")
    if opts.keys_file is not None:
        from .diff_churn import Keys
        from .keys_file import reading_notes
        from .simulate_batch import load_keys

        reading = reading_of(opts.keep_cr, opts.key_column)
        keys = Keys(file=load_keys(opts.keys_file, reading), path=opts.keys_file)
        for line in reading_notes(keys.file):
            note(f"arouter: {line}")
    old = _load(old_src, properties, [*opts.properties, *opts.old_properties])
    new = _load(new_src, properties, [*opts.properties, *opts.new_properties])
    from ..verdict import finding_text, read_differently

    for side in (old, new):
        note(f"arouter: {'old' if side is old else 'new'}: read {side.source.read}")
        for d in read_differently(side.diagnostics):
            note(f"arouter: warning: {finding_text(d)}; diff reads the file as the broker does")
    return _compare(opts, threshold, old, new, state, keys, message)


def _compare(opts: DiffOptions, threshold: float | None, old: Loaded, new: Loaded, state: Any, keys: Any,
             message: Any) -> int:
    from .. import __version__
    from ..diffing.configdiff import diff_configs
    from ..diffing.document import build_document
    from ..diffing.verdict import config_refusals, router_refusals

    diff = diff_configs(old.config, new.config, show_values=opts.show_values)
    routers = [dataclasses.replace(
        s,
        old_refused=router_refusals(old.diagnostics, s.name) if s.status != "added" else (),
        new_refused=router_refusals(new.diagnostics, s.name) if s.status != "removed" else ())
        for s in diff.routers]
    if opts.router is not None:
        routers = [s for s in routers if s.name == opts.router]
        if not routers:
            raise UsageError(f"no connection router named {opts.router!r} in {old.source.display} or "
                             f"{new.source.display}")
    diff = dataclasses.replace(diff, routers=routers)
    assumed: list[str] = []
    if any(s.status != "unchanged" for s in routers) and (old.config.property_sources or new.config.property_sources):
        assumed.append(RELOAD_NOTE)
    pairs = [(s.name, _side(old, s.name, bool(s.old_refused), state, opts.seed, assumed, opts.broker_version),
              _side(new, s.name, bool(s.new_refused), state, opts.seed, assumed, opts.broker_version))
             for s in routers]
    transfers, totals, key_info = _transfers(opts, pairs, keys, assumed)
    flow = None
    if message is not None:
        from ..diffing.flowdiff import flow_diff

        flow = flow_diff(old.config, new.config, message)
    doc = build_document(
        diff, transfers, totals, old=_side_info(old.source), new=_side_info(new.source), keys=key_info,
        assumed=list(dict.fromkeys(assumed)),
        config_refused=(config_refusals(old.diagnostics), config_refusals(new.diagnostics)), flow=flow,
        version=__version__)
    _write(opts, doc, state)
    return _exit_code(doc, threshold, opts.fail_on_refused)


# ActiveMQServerImpl reloads broker properties into the configuration, but a deployed router is not
# rebuilt: the change reaches clients at the next restart (docs/broker-properties.md, "Reload").
RELOAD_NOTE = ("broker properties are applied to the configuration on reload, but a running router keeps its "
               "old settings until the broker restarts: the new answers start after a restart")


def _side_info(src: ConfigSource) -> dict[str, Any]:
    return {"display": src.display, "path": src.path, "rev": src.rev, "read": src.read}


def _side(loaded: Loaded, name: str, refused: bool, state: Any, seed: int | None, assumed: list[str],
          version: tuple[int, int] | None = None) -> Any:
    from ..routing.router import Router
    from ..routing.transfer import NO_ROUTER, NOT_DEPLOYED

    cfg = loaded.config.router(name)
    if cfg is None:
        return NO_ROUTER
    if refused:  # the router's own errors, or the whole file's (verdict.router_refusals)
        return NOT_DEPLOYED
    try:
        router = Router.from_config(loaded.config, cfg, state, seed=DEFAULT_SEED if seed is None else seed)
    except ConfigError:
        return NOT_DEPLOYED
    if version is not None:
        router.broker_version = version
    for w in router.warnings:
        assumed.append(f"{name}: {w}")
    if seed is None and cfg.policy is not None and cfg.policy.name in ("ROUND_ROBIN", "LEAST_CONNECTIONS"):
        assumed.append(f"{name}: the round-robin order (ROUND_ROBIN, LEAST_CONNECTIONS ties) starts at position "
                       f"{DEFAULT_SEED} on both sides (--seed)")
    return router


def _transfers(opts: DiffOptions, pairs: list[tuple[str, Any, Any]], keys: Any,
               assumed: list[str]) -> tuple[dict[str, Any], Any, dict[str, Any] | None]:
    if keys is None and opts.sample is None and opts.keys is None:
        return {}, None, None
    assumed.append("every key is routed afresh on both sides (empty caches): a live broker keeps cached "
                   "clients on their old target until the cache entry expires")
    if opts.keys is not None:
        transfers, totals = _spark(opts, pairs)
        return transfers, totals, {"source": f"{opts.keys} (Spark)", "path": opts.keys}
    from .diff_churn import Keys, local_transfers

    if keys is None:
        from ..diffing.sample import SAMPLE_SEED, sample_connections

        keys = Keys(connections=sample_connections(opts.sample or 0))
        info = {"source": f"{opts.sample:,} generated clients (seed {SAMPLE_SEED}), each with a value of every "
                          "key type", "count": opts.sample}
        assumed.append("the keys are generated, not your clients: hash-based churn is representative, "
                       "filters written for real ids may match none of them (--keys-file for real keys)")
    else:
        info = {"source": f"{opts.keys_file} ({len(keys):,} keys)", "path": opts.keys_file, "count": len(keys)}
        pairs = _readable_pairs(opts, pairs, keys, assumed)
    transfers, totals = local_transfers(pairs, keys)
    return transfers, totals, info


def _readable_pairs(opts: DiffOptions, pairs: list[tuple[str, Any, Any]], keys: Any,
                    assumed: list[str]) -> list[tuple[str, Any, Any]]:
    """The routers whose two sides can take the keys file, as simulate and analyze decide it: one that
    cannot on either side (a SOURCE_IP router given plain keys that are no addresses) is left out of the
    key counts and said so."""
    from ..routing.router import Router
    from .simulate_batch import unreadable

    by_name: dict[str, Router] = {}
    for name, a, b in pairs:
        for side in (a, b):
            if isinstance(side, Router) and (name not in by_name or side.key_type == "SOURCE_IP"):
                by_name[name] = side
    if not by_name:
        return pairs
    routers = list(by_name.values())
    skip, _notes = unreadable(routers, routers, keys.file, chosen=opts.router is not None)
    for name in skip:
        assumed.append(f"{name}: left out of the key counts: it reads {by_name[name].key_type} and "
                       f"{keys.path} holds plain keys that are no IP addresses (give a CSV or JSON lines file "
                       "with a source_ip column)")
    return [p for p in pairs if p[0] not in skip]


def _spark(opts: DiffOptions, pairs: list[tuple[str, Any, Any]]) -> tuple[dict[str, Any], Any]:
    from ..pipeline.diffchurn import spark_transfers
    from ..pipeline.preflight import inspect
    from ..pipeline.session import check_master, parse_conf, start_session

    conf = parse_conf(opts.conf)
    inp = inspect(opts.keys or "", opts.keys_format)  # the keys and the master, before Spark starts
    check_master(opts.master)
    note(f"arouter: keys: {inp.assumed}")
    spark = start_session(opts.master, conf, opts.spark_log_level)
    from ..pipeline.session import interruptible

    try:
        with interruptible(spark, "Spark stopped, nothing written"):  # Ctrl-C: one line, exit 130
            return spark_transfers(spark, opts.keys or "", pairs, keys_format=opts.keys_format,
                                   engine=opts.engine, progress=lambda m: note(f"arouter: {m}"), inp=inp)
    finally:
        spark.stop()


def render(doc: dict[str, Any], fmt: str) -> str:
    from ..report import diff_render

    if fmt == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return {"text": diff_render.render_text, "markdown": diff_render.render_markdown,
            "sarif": diff_render.render_sarif, "github": diff_render.render_github}[fmt](doc)


def _write(opts: DiffOptions, doc: dict[str, Any], state: Any) -> None:
    from ..outfile import write_out, write_text

    text = render(doc, opts.fmt)
    if opts.report is not None:
        from ..report.diff_html import html_report

        when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        ids = {**{t.name: t.node_id for t in state.known if t.node_id_known}, **dict(state.node_ids)}
        write_text(opts.report, html_report(doc, generated_at=when, node_ids=ids), what="report")
        note(f"arouter: report written to {opts.report}")
    write_out(opts.output, text)


def _exit_code(doc: dict[str, Any], threshold: float | None, fail_on_refused: bool) -> int:
    s = doc["summary"]
    failed = []
    if threshold is not None:
        over = [r["name"] for r in doc["routers"] if r["churn"] is not None and r["churn"] > threshold]
        if over:
            failed.append(f"churn above {threshold * 100:g}% in {', '.join(over)}")
    if fail_on_refused:
        newly = bool(doc["config_refused"]["new"]) and not doc["config_refused"]["old"]
        if s["routers_refused_now"] or s["became_refused"] or newly:
            failed.append("routers or keys newly refused")
    for f in failed:
        note(f"arouter: diff fails: {f}")
    return 1 if failed else 0
