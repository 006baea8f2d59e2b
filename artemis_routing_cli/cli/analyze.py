"""``arouter analyze``: a key population through the routers on Spark — distribution, refusals, what-ifs."""

from __future__ import annotations

from typing import Optional

import typer

from ..errors import UsageError
from .common import find_config, parse_properties
from .key_options import BROKER_VERSION_HELP, SNI_ENCODING_HELP


def register(app: typer.Typer) -> None:
    app.command("analyze")(analyze_command)


def analyze_command(
    keys: str = typer.Option(..., "--keys", metavar="PATH",
                             help="Keys: text (one per line), .csv, .jsonl or Parquet; any URI Spark reads."),
    config: Optional[str] = typer.Option(None, "--config", "-c", help="broker.xml (default: ./broker.xml, "
                                         "$ARTEMIS_INSTANCE/etc/broker.xml, else the bundled sample)."),
    router: Optional[str] = typer.Option(None, "--router", "-r", help="Only this connection router."),
    keys_format: str = typer.Option("auto", "--keys-format", help="auto (by extension), text, csv, json, parquet."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    what_if: Optional[list[str]] = typer.Option(None, "--what-if", metavar="down=TARGET|add=NODE_ID",
                                                help="Also count the keys that move in this scenario (repeat)."),
    report: Optional[str] = typer.Option(None, "--report", metavar="FILE.html",
                                         help="Write a self-contained HTML report."),
    png: bool = typer.Option(False, "--png", help="Add PNG charts to the report (needs matplotlib)."),
    output: Optional[str] = typer.Option(None, "--output", "-o", metavar="DIR",
                                         help="Write per-key assignments to DIR (must not exist)."),
    output_format: str = typer.Option("parquet", "--output-format", help="parquet or csv."),
    node_id: Optional[list[str]] = typer.Option(None, "--node-id", metavar="TARGET=ID",
                                                help="Node id (broker UUID) of a target (repeat)."),
    down: Optional[list[str]] = typer.Option(None, "--down", metavar="TARGET", help="Target not ready (repeat)."),
    connections: Optional[list[str]] = typer.Option(None, "--connections", metavar="TARGET=N",
                                                    help="Connection count of a target (repeat)."),
    targets: Optional[str] = typer.Option(None, "--targets", metavar="FILE",
                                          help="Targets file saved by 'arouter probe --save'."),
    sni_encoding: Optional[str] = typer.Option(None, "--sni-encoding", metavar="java|raw", help=SNI_ENCODING_HELP),
    broker_version: Optional[str] = typer.Option(None, "--broker-version", metavar="2.NN", help=BROKER_VERSION_HELP),
    seed: Optional[int] = typer.Option(None, "--seed", help="ROUND_ROBIN start position (else random)."),
    define: Optional[list[str]] = typer.Option(None, "--define", "-D", metavar="NAME=VALUE",
                                               help="A ${NAME} value for broker.xml (repeat)."),
    master: Optional[str] = typer.Option(None, "--master", help="Spark master URL (default local[2]; "
                                         "under spark-submit, the submitted one)."),
    conf: Optional[list[str]] = typer.Option(None, "--conf", metavar="KEY=VALUE",
                                             help="Spark configuration (repeat)."),
    engine: str = typer.Option("auto", "--engine",
                               help="auto (Spark SQL + Java UDFs where exact, else pandas), jvm or pandas."),
    spark_log_level: str = typer.Option("ERROR", "--spark-log-level",
                                         help="Spark's own log level on stderr (WARN, INFO, ...)."),
) -> None:
    """Route a whole key population on Spark: per-target counts, refusals, imbalance and what-ifs."""
    if fmt not in ("text", "json"):
        raise UsageError(f"--format {fmt!r}: choose text or json")
    if engine not in ("auto", "jvm", "pandas"):
        raise UsageError(f"--engine {engine!r}: choose auto, jvm or pandas")
    if report is not None and not report.lower().endswith((".html", ".htm")):
        raise UsageError(f"--report {report!r}: the report is HTML, name it FILE.html")
    import json

    from ..config import LoadOptions, load
    from ..pipeline.session import parse_conf, start_session
    from ..pipeline.whatif import parse_scenarios
    from ..routing.targets import state_from_options
    from .common import say, stderr_console, stdout_console, warn
    from .simulate_one import select_routers

    scenarios = parse_scenarios(what_if or [])
    spark_conf = parse_conf(conf or [])
    cfg = load(find_config(config), LoadOptions(parse_properties(define)))
    state = state_from_options(node_id or [], down or [], connections or [], targets)
    routers = select_routers(cfg, state, router, seed)
    from .common import note
    from .key_options import apply as apply_key_options
    from .key_options import assumed

    said = assumed(routers, *apply_key_options(routers, sni_encoding, broker_version))
    if said:
        note(said)
    err = stderr_console()
    for r in routers:
        for w in r.warnings:
            warn(err, f"{r.name}: {w}")

    from ..pipeline.run import analyze

    spark = start_session(master, spark_conf, spark_log_level)
    try:
        summary = analyze(spark, routers, keys, keys_format=keys_format, scenarios=scenarios, output=output,
                          engine=engine,
                          output_format=output_format,
                          progress=lambda msg: say(err, f"arouter: {msg}"))
    finally:
        spark.stop()
    if report is not None:
        _write_report(report, summary, keys, png, err)
    if fmt == "json":
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        from ..pipeline.render import print_text

        print_text(summary, stdout_console())


def _write_report(path: str, summary: dict, keys: str, png: bool, err) -> None:  # noqa: ANN001
    from ..pipeline.render import html_report, png_charts
    from .common import say

    charts = png_charts(summary) if png else {}
    if png and not charts:
        err.print("[yellow]warning[/yellow]: --png needs matplotlib: the report has SVG charts only",
                  highlight=False)
    from ..outfile import write_text

    write_text(path, html_report(summary, source=keys, png=charts), what="report")  # never half-written
    say(err, f"arouter: report written to {path}")
