"""``arouter diff OLD NEW``: what a broker.xml change does to routing, before it ships."""

from __future__ import annotations

from typing import Optional

import typer

from . import options as opt


def register(app: typer.Typer) -> None:
    app.command("diff")(diff_command)


def diff_command(
    old: str = typer.Argument(..., metavar="OLD", help="The config before: a file, or REV:path read from git "
                              "(e.g. HEAD~1:etc/broker.xml, origin/main:etc/broker.xml)."),
    new: str = typer.Argument(..., metavar="NEW", help="The config after: a file or REV:path."),
    router: Optional[str] = typer.Option(None, "--router", "-r", help="Only this connection router."),
    keys_file: Optional[str] = typer.Option(None, "--keys-file", metavar="FILE",
                                            help="Keys, as simulate --keys-file reads them (routed locally)."),
    sample: Optional[int] = typer.Option(None, "--sample", metavar="N",
                                         help="N generated clients, a value of every key type each (no keys at hand)."),
    keep_cr: bool = opt.KEEP_CR,
    key_column: Optional[list[str]] = opt.KEY_COLUMN,
    keys: Optional[str] = typer.Option(None, "--keys", metavar="PATH",
                                       help="Keys as analyze reads them, routed on Spark (large populations)."),
    keys_format: str = typer.Option("auto", "--keys-format", help="--keys: auto, text, csv, json, parquet."),
    master: Optional[str] = typer.Option(None, "--master", help="--keys: Spark master URL (default local[2])."),
    conf: Optional[list[str]] = typer.Option(None, "--conf", metavar="KEY=VALUE", help="--keys: Spark configuration."),
    engine: str = typer.Option("auto", "--engine", help="--keys: auto, jvm or pandas (as analyze)."),
    spark_log_level: str = typer.Option("ERROR", "--spark-log-level", help="--keys: Spark's own log level."),
    node_id: Optional[list[str]] = opt.NODE_ID,
    down: Optional[list[str]] = opt.DOWN,
    connections: Optional[list[str]] = opt.CONNECTIONS,
    targets: Optional[str] = opt.TARGETS,
    seed: Optional[int] = typer.Option(None, "--seed", help="ROUND_ROBIN start position (else 0 on both sides, "
                                       "so the sides compare)."),
    define: Optional[list[str]] = typer.Option(None, "--define", "-D", metavar="NAME=VALUE",
                                               help="A ${NAME} value for both configs (repeat)."),
    address: Optional[str] = typer.Option(None, "--address", "-a",
                                          help="Also compare the flow of a message sent to this address."),
    prop: Optional[list[str]] = typer.Option(None, "--message-property", "-p", metavar="NAME=VALUE",
                                             help="--address: a message property (as simulate)."),
    old_prop: Optional[list[str]] = opt.OLD_MESSAGE_PROPERTY,
    header: Optional[list[str]] = typer.Option(None, "--header", metavar="NAME=VALUE",
                                               help="--address: a message header (as simulate)."),
    routing_type: Optional[str] = typer.Option(None, "--routing-type", help="--address: ANYCAST or MULTICAST."),
    message: Optional[str] = typer.Option(None, "--message", metavar="FILE.json", help="--address: the message."),
    show_values: bool = opt.SHOW_VALUES,
    fmt: str = typer.Option("text", "--format", "-f", help="text, json, markdown, sarif or github."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write the output to FILE."),
    report: Optional[str] = typer.Option(None, "--report", metavar="FILE.html",
                                         help="Also write a self-contained HTML report with the transfer matrices."),
    fail_on_churn: Optional[str] = typer.Option(None, "--fail-on-churn", metavar="PCT",
                                                help="Exit 1 when a router's churn exceeds PCT (e.g. 5%)."),
    properties: Optional[list[str]] = typer.Option(None, "--properties", metavar="PATH[,PATH...]",
                                                   help="Broker properties over both configs (as every command)."),
    old_properties: Optional[list[str]] = typer.Option(None, "--old-properties", metavar="PATH[,PATH...]",
                                                       help="Broker properties of the old side only."),
    new_properties: Optional[list[str]] = typer.Option(None, "--new-properties", metavar="PATH[,PATH...]",
                                                       help="Broker properties of the new side only."),
    fail_on_refused: bool = typer.Option(False, "--fail-on-refused",
                                         help="Exit 1 when a router becomes undeployable or a key becomes refused."),
    broker_home: Optional[str] = opt.BROKER_HOME,
    no_broker_home: bool = opt.NO_BROKER_HOME,
) -> None:
    """What a config change does to routing: changed settings, who moves, which messages go elsewhere."""
    from .broker_home import resolve_home, version_for
    from .diff_run import DiffOptions, run_diff

    version_text = version_for(resolve_home(broker_home, no_broker_home), None)
    version = None
    if version_text is not None:
        from ..routing.keys import parse_broker_version

        version = parse_broker_version(version_text)
    code = run_diff(DiffOptions(
        old=old, new=new, broker_version=version,
        router=router, keys_file=keys_file, sample=sample, keys=keys, keys_format=keys_format,
        master=master, conf=conf or [], engine=engine, spark_log_level=spark_log_level, node_id=node_id or [],
        down=down or [], connections=connections or [], targets=targets, seed=seed, define=define or [],
        address=address, prop=opt.message_properties(prop, old_prop), header=header or [],
        routing_type=routing_type, message=message, fmt=fmt,
        show_values=show_values,
        output=output, report=report, fail_on_churn=fail_on_churn, fail_on_refused=fail_on_refused,
        properties=properties or [], old_properties=old_properties or [], new_properties=new_properties or [],
        keep_cr=keep_cr, key_column=key_column or []))
    if code:
        raise typer.Exit(code)
