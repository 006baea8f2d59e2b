"""``arouter fleet``: does every key have exactly one home across the pods?"""

from __future__ import annotations

from typing import Optional

import typer

from . import options as opt
from .key_options import BROKER_VERSION_HELP


def register(app: typer.Typer) -> None:
    app.command("fleet")(fleet_command)


def fleet_command(
    cr: Optional[str] = typer.Option(None, "--cr", metavar="CR.yaml",
                                     help="An ActiveMQArtemis CR: pod N is the operator's broker N."),
    config: Optional[str] = typer.Option(None, "--config", "-c",
                                         help="One broker.xml every pod runs (with --replicas)."),
    properties: Optional[list[str]] = opt.PROPERTIES,
    define: Optional[list[str]] = opt.DEFINE,
    replicas: Optional[str] = typer.Option(None, "--replicas", metavar="R|A..B",
                                           help="Pods 0..R-1 (default: the CR's deploymentPlan.size); A..B proves "
                                                "every pod count from A to B."),
    pod: Optional[list[str]] = typer.Option(None, "--pod", metavar="NAME=BROKER.xml[,PROPS]",
                                            help="One pod and its own config (repeat)."),
    router: Optional[str] = typer.Option(None, "--router", "-r", help="Only this connection router."),
    broker_version: Optional[str] = typer.Option(None, "--broker-version", metavar="2.NN", help=BROKER_VERSION_HELP),
    keys: Optional[str] = typer.Option(None, "--keys", metavar="FILE",
                                       help="Keys, as simulate --keys-file reads them: counted per key."),
    spark: bool = typer.Option(False, "--spark", help="Count --keys on Spark (analyze's pipeline; large populations)."),
    keys_format: str = typer.Option("auto", "--keys-format", help="--spark: auto, text, csv, json, parquet."),
    master: Optional[str] = typer.Option(None, "--master", help="--spark: Spark master URL (default local[2])."),
    conf: Optional[list[str]] = typer.Option(None, "--conf", metavar="KEY=VALUE", help="--spark: Spark configuration."),
    engine: str = typer.Option("auto", "--engine", help="--spark: auto, jvm or pandas (as analyze)."),
    spark_log_level: str = typer.Option("ERROR", "--spark-log-level", help="--spark: Spark's own log level."),
    to_replicas: Optional[int] = typer.Option(None, "--to-replicas", metavar="R2", help="Change: scale to R2 pods."),
    to_broker_version: Optional[str] = typer.Option(None, "--to-broker-version", metavar="2.NN",
                                                    help="Change: upgrade every pod to this Artemis version."),
    new_cr: Optional[str] = typer.Option(None, "--new-cr", metavar="CR.yaml", help="Change: this CR instead."),
    target_pod: Optional[list[str]] = typer.Option(None, "--target-pod", metavar="TARGET=POD",
                                                   help="A pool target is this pod (redirects are followed one hop)."),
    allow_multiple: bool = typer.Option(False, "--allow-multiple", help="Several homes do not fail (exit 0)."),
    allow_homeless: bool = typer.Option(False, "--allow-homeless", help="No home does not fail (exit 0)."),
    fmt: str = typer.Option("text", "--format", "-f", help="text, json, markdown, sarif or github."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write the output to FILE."),
    report: Optional[str] = typer.Option(None, "--report", metavar="FILE.html", help="Also write an HTML report."),
) -> None:
    """Whether every key has exactly one pod that accepts it: proven over MODULO's values, counted over keys."""
    from .fleet_run import FleetOptions, run_fleet

    code = run_fleet(FleetOptions(
        cr=cr, config=config, properties=properties or [], define=define or [], replicas=replicas, pods=pod or [],
        router=router, broker_version=broker_version, keys=keys, spark=spark, keys_format=keys_format, master=master,
        conf=conf or [], engine=engine, spark_log_level=spark_log_level, to_replicas=to_replicas,
        to_broker_version=to_broker_version, new_cr=new_cr, target_pod=target_pod or [],
        allow_multiple=allow_multiple, allow_homeless=allow_homeless, fmt=fmt, output=output, report=report))
    if code:
        raise typer.Exit(code)
