"""``arouter analyze``: a key population through the routers on Spark — distribution, refusals, what-ifs."""

from __future__ import annotations

import os
import sys
from typing import Optional

import typer

from ..errors import UsageError
from . import analyze_inputs as ai
from . import options as opt
from .key_options import BROKER_VERSION_HELP, SNI_CLIENT_HELP, SNI_ENCODING_HELP, sni_option


def register(app: typer.Typer) -> None:
    app.command("analyze")(analyze_command)


def analyze_command(
    keys: Optional[str] = typer.Option(None, "--keys", metavar="PATH",
                                       help="Keys: text (one per line), .csv, .jsonl or Parquet; any URI Spark "
                                            "reads."),
    keys_table: Optional[str] = ai.KEYS_TABLE,
    where: Optional[str] = ai.WHERE,
    id_column: Optional[str] = ai.ID_COLUMN,
    max_errors: Optional[int] = ai.MAX_ERRORS,
    config: Optional[str] = typer.Option(None, "--config", "-c", help="broker.xml (default: ./broker.xml, "
                                         "$ARTEMIS_INSTANCE/etc/broker.xml, else the bundled sample)."),
    router: Optional[str] = typer.Option(None, "--router", "-r", help="Only this connection router."),
    keys_format: str = typer.Option("auto", "--keys-format",
                                    help="auto (by extension; directories and extension-less files by their "
                                         "data), text, csv, json, parquet, orc."),
    key_column: Optional[list[str]] = opt.KEY_COLUMN,
    keep_cr: bool = opt.KEEP_CR,
    fmt: str = typer.Option("text", "--format", "-f",
                            help="text, json, csv or markdown (the summary table, e.g. for a PR comment)."),
    what_if: Optional[list[str]] = typer.Option(None, "--what-if", metavar="down=TARGET|add=NODE_ID",
                                                help="Also count the keys that move in this scenario (repeat)."),
    report: Optional[str] = typer.Option(None, "--report", metavar="FILE.html",
                                         help="Write a self-contained HTML report."),
    png: bool = typer.Option(False, "--png", help="Add PNG charts to the report (needs matplotlib: install arouter's "
                             "charts extra)."),
    output: Optional[str] = typer.Option(None, "--output", "-o", metavar="DIR",
                                         help="Write per-key assignments to DIR."),
    output_format: str = typer.Option("parquet", "--output-format", help="parquet or csv."),
    mode: str = typer.Option("error", "--mode", help="When --output exists: error (default), overwrite or append."),
    node_id: Optional[list[str]] = opt.NODE_ID,
    down: Optional[list[str]] = opt.DOWN,
    connections: Optional[list[str]] = opt.CONNECTIONS,
    targets: Optional[str] = opt.TARGETS,
    sni_client: Optional[str] = typer.Option(None, "--sni-client", metavar="explicit|default|raw",
                                             help=SNI_CLIENT_HELP),
    sni_encoding: Optional[str] = typer.Option(None, "--sni-encoding", metavar="java|raw", help=SNI_ENCODING_HELP,
                                               hidden=True),
    broker_version: Optional[str] = typer.Option(None, "--broker-version", metavar="2.NN", help=BROKER_VERSION_HELP),
    broker_home: Optional[str] = opt.BROKER_HOME,
    no_broker_home: bool = opt.NO_BROKER_HOME,
    seed: Optional[int] = typer.Option(None, "--seed", help="ROUND_ROBIN start position (else random)."),
    define: Optional[list[str]] = opt.DEFINE,
    ignore_invalid: bool = opt.IGNORE_INVALID,
    properties: Optional[list[str]] = opt.PROPERTIES,
    cr: Optional[str] = opt.CR,
    ordinal: Optional[int] = opt.ORDINAL,
    show_values: bool = opt.SHOW_VALUES,
    master: Optional[str] = typer.Option(None, "--master", help="Spark master URL (default local[2]; "
                                         "under spark-submit, the submitted one)."),
    remote: Optional[str] = typer.Option(None, "--remote", metavar="sc://HOST:PORT",
                                         help="Run on a Spark Connect server (no local JVM; default: "
                                              "$SPARK_REMOTE unless --master is given; needs arouter's "
                                              "connect extra)."),
    conf: Optional[list[str]] = typer.Option(None, "--conf", metavar="KEY=VALUE",
                                             help="Spark configuration (repeat)."),
    engine: str = typer.Option("auto", "--engine",
                               help="auto (Spark SQL + Java UDFs where exact, else pandas), jvm or pandas."),
    spark_log_level: Optional[str] = typer.Option(None, "--spark-log-level",
                                                  help="Spark's own log level on stderr (WARN, INFO, ...; "
                                                       "default ERROR) when Spark runs here, not over "
                                                       "--remote: a Connect server keeps its own."),
) -> None:
    """Route a whole key population on Spark: per-target counts, refusals, imbalance and what-ifs.

    Every option, the config and the key input (format, columns, whether each router can read the
    keys) are checked before Spark starts.
    """
    # Everything that can be checked is checked before Spark's 10-20 s start-up.
    from .broker_home import resolve_home, version_for

    home = resolve_home(broker_home, no_broker_home)
    broker_version = version_for(home, broker_version)
    if fmt not in SUMMARY_FORMATS:
        raise UsageError(f"--format {fmt!r}: choose {', '.join(SUMMARY_FORMATS)}")
    if engine not in ("auto", "jvm", "pandas"):
        raise UsageError(f"--engine {engine!r}: choose auto, jvm or pandas")
    if report is not None and not report.lower().endswith((".html", ".htm")):
        raise UsageError(f"--report {report!r}: the report is HTML, name it FILE.html")
    import json

    from ..pipeline.preflight import RouterInput, check_routers, parse_key_columns
    from ..pipeline.run import check_output_options
    from ..pipeline.session import DEFAULT_LOG_LEVEL, LOG_LEVELS, check_master, parse_conf, worker_python
    from ..pipeline.table_input import key_input
    from ..pipeline.whatif import parse_scenarios
    from ..routing.selection import select_routers
    from ..routing.targets import state_from_options
    from .common import load_routable, say, stderr_console, stdout_console, warn

    check_output_options(output_format, mode)
    from ..pipeline.connect import resolve_remote

    connect_to, connect_note = resolve_remote(remote, master)
    if spark_log_level is not None and spark_log_level.upper() not in LOG_LEVELS:
        raise UsageError(f"--spark-log-level {spark_log_level!r}: use one of {', '.join(LOG_LEVELS)}")
    if spark_log_level is not None and connect_to is not None:
        from ..pipeline.connect import LOG_LEVEL_REMOTE

        raise UsageError(LOG_LEVEL_REMOTE.format(server=connect_to.shown))
    scenarios = parse_scenarios(what_if or [])
    spark_conf = parse_conf(conf or [])
    mapping = parse_key_columns(key_column or [])
    cfg = load_routable(config, define, ignore_invalid, "analyze", properties, cr, ordinal, show_values=show_values,
                        broker_home=home)
    cfg_path = cfg.path
    state = state_from_options(node_id or [], down or [], connections or [], targets)
    routers = select_routers(cfg, state, router, seed)
    from .common import note
    from .key_options import apply as apply_key_options
    from .key_options import assumed

    said = assumed(routers, *apply_key_options(routers, sni_option(sni_client, sni_encoding), broker_version))
    err = stderr_console()
    inp = key_input(keys, keys_table, keys_format, mapping, where, id_column)
    if inp.format == "text":
        import dataclasses

        inp = dataclasses.replace(inp, keep_cr=keep_cr)
    elif keep_cr:
        raise UsageError("--keep-cr: only for a text input (one key per line)")
    checked = check_routers(inp, [RouterInput(r.name, r.key_type) for r in routers], chosen=router is not None,
                            candidates=[RouterInput(r.name, r.key_type) for r in cfg.connection_routers])
    routers = [r for r in routers if r.name not in checked.skip]
    if output is not None:
        _check_output(output, mode)
    if connect_to is not None:
        from ..pipeline.connect import check_remote

        check_remote(connect_to)
    else:
        check_master(master)
    if said:  # said once every input is checked: bad input stays one line
        note(f"arouter: {said}")
    say(err, f"arouter: keys: {inp.assumed}" + (f", rows where {where}" if where else ""))
    from .keys_file import text_marks

    for line in text_marks(inp.bom, inp.crlf, inp.keep_cr):
        say(err, f"arouter: {inp.path}: {line}")
    if inp.mapping:
        say(err, "arouter: key columns: " + ", ".join(f"{k.upper()}={v}" for k, v in inp.mapping.items()))
    from ..pipeline.preflight import other_columns

    if other_columns(inp):
        say(err, f"arouter: {inp.path}: column(s) {', '.join(other_columns(inp))} not read (not key columns)")
    for line in checked.notes:
        warn(err, line)
    for r in routers:
        for w in r.warnings:
            warn(err, f"{r.name}: {w}")
    if connect_note is not None:
        say(err, f"arouter: {connect_note}")
    if connect_to is None:
        python, why = worker_python(spark_conf)
        # a path taken from the environment is named, not printed
        shown = "the Python PYSPARK_PYTHON names" if why == "PYSPARK_PYTHON" else f"{python} ({why})"
        say(err, f"arouter: Spark workers run {shown}")
    else:
        say(err, f"arouter: Spark runs on {connect_to.shown}")

    from ..pipeline.connect import connect_session, tracker
    from ..pipeline.run import analyze
    from ..pipeline.session import start_session
    from ..pipeline.ship import shipped

    if connect_to is not None:
        spark = connect_session(connect_to, spark_conf)
    else:
        os.environ.pop("SPARK_REMOTE", None)  # --master was given: PySpark would go to the server
        spark = start_session(master, spark_conf, spark_log_level or DEFAULT_LOG_LEVEL)
    from ..errors import Interrupted
    from ..pipeline.progress import Reporter
    from ..pipeline.session import interruptible

    fresh_output = output is not None and not os.path.lexists(output)
    interrupted: Interrupted | None = None
    try:
        with (interruptible(spark, "Spark stopped, nothing written"),
              shipped(spark, connect_to is not None),
              Reporter(tracker(spark), _raw_stderr, tty=sys.stderr.isatty())):
            summary = analyze(spark, routers, inp.path, keys_format=keys_format, scenarios=scenarios, output=output,
                              engine=engine, output_format=output_format, output_mode=mode, inp=inp,
                              progress=lambda msg: say(err, f"arouter: {msg}"), max_errors=max_errors)
    except Interrupted as exc:
        interrupted = exc
    finally:
        spark.stop()
    if interrupted is not None:
        if output is not None and fresh_output:
            _remove_partial(output)
        raise interrupted
    summary["left_out"] = [{"router": name, "reason": f"it cannot take these keys: {why}"}
                           for name, why in checked.why]
    if report is not None:
        provenance = {"config": str(cfg_path), "keys": inp.path, "arouter": _version(),
                      "node ids": _node_ids(routers), "date": _now()}
        _write_report(report, summary, inp.path, png, err, provenance)
    if fmt == "json":
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    elif fmt == "csv":
        from ..pipeline.tables import to_csv

        sys.stdout.write(to_csv(summary))
    elif fmt == "markdown":
        from ..pipeline.tables import to_markdown

        sys.stdout.write(to_markdown(summary))
    else:
        from ..pipeline.render import print_bad_rows, print_text

        print_text(summary, stdout_console())
        print_bad_rows(summary, stdout_console())
    if summary.get("stopped_early"):
        from ..pipeline.render import stopped_early

        say(err, f"arouter: {stopped_early(summary)}")
    if summary.get("bad_rows"):
        if fmt != "text":
            from ..pipeline.render import print_bad_rows

            print_bad_rows(summary, err)
        raise typer.Exit(1)  # some rows were not keys: the figures cover the others


SUMMARY_FORMATS = ("text", "json", "csv", "markdown")


def _remove_partial(output: str) -> None:
    """What an interrupted run began to write at a new local ``--output`` (Spark's _temporary files)."""
    import shutil

    local = output[len("file:"):] if output.startswith("file:") else output
    if "://" in local:
        return  # a distributed file system: Spark's committer never publishes an unfinished job
    shutil.rmtree(local, ignore_errors=True)
    if os.path.lexists(local) and not os.path.isdir(local):
        os.unlink(local)


def _raw_stderr(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def _check_output(output: str, mode: str) -> None:
    """With ``--mode error`` a local ``--output`` that exists is refused before Spark starts."""
    from ..pipeline.preflight import is_local

    if mode == "error" and is_local(output) and os.path.lexists(output.removeprefix("file:")):
        raise UsageError(f"--output {output!r} exists: choose another path, or --mode overwrite|append")


def _version() -> str:
    from .. import __version__

    return __version__


def _now() -> str:
    import datetime

    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _node_ids(routers: list) -> str:  # noqa: ANN001
    seen = []
    for r in routers:
        if r.pool is None:
            continue
        for t in r.pool.targets:
            label = f"{'local' if t.local else t.name}={t.node_id}" + ("" if t.node_id_known else " (guessed)")
            if label not in seen:
                seen.append(label)
    return ", ".join(seen) or "none"


def _write_report(path: str, summary: dict, keys: str, png: bool, err, provenance: dict) -> None:  # noqa: ANN001
    from ..pipeline.render import html_report, png_charts
    from .common import say

    charts = png_charts(summary) if png else {}
    if png and not charts:
        err.print("[yellow]warning[/yellow]: --png needs matplotlib (pip install 'artemis-routing-cli[charts]'): "
                  "the report has SVG charts only", highlight=False)
    from ..outfile import write_text

    write_text(path, html_report(summary, source=keys, png=charts, provenance=provenance),
               what="report")  # never half-written
    say(err, f"arouter: report written to {path}")
