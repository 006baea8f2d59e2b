"""``arouter replay LOG...``: is the running broker routing the way the config says?"""

from __future__ import annotations

from typing import Optional

import typer

from . import options as opt


def register(app: typer.Typer) -> None:
    app.command("replay")(replay_command)


def replay_command(
    logs: list[str] = typer.Argument(..., metavar="LOG...",
                                     help="Broker logs: files, directories of rotated logs (read oldest first), "
                                          "'-' for stdin; gzip or not. Audit logs join users and roles."),
    config: Optional[str] = typer.Option(None, "--config", "-c", help="broker.xml (default: ./broker.xml, "
                                         "$ARTEMIS_INSTANCE/etc/broker.xml, else the bundled sample)."),
    router: Optional[list[str]] = typer.Option(None, "--router", "-r", help="Only this connection router (repeat)."),
    layout: str = typer.Option("auto", "--layout", help="auto, broker (the distribution's pattern), audit, serve "
                               "(arouter serve's lines) or json."),
    pattern: Optional[str] = typer.Option(None, "--pattern", metavar="LOG4J2-PATTERN",
                                          help="The PatternLayout pattern the logs were written with, e.g. "
                                               "'%d{ISO8601} %-5p [%c] (%t) %m%n'."),
    against: Optional[str] = typer.Option(None, "--against", metavar="NEW.xml",
                                          help="Also say which of these connections a new config would send "
                                               "elsewhere (diff's transfer)."),
    node_id: Optional[list[str]] = opt.NODE_ID,
    down: Optional[list[str]] = opt.DOWN,
    connections: Optional[list[str]] = opt.CONNECTIONS,
    targets: Optional[str] = opt.TARGETS,
    define: Optional[list[str]] = opt.DEFINE,
    ignore_invalid: bool = opt.IGNORE_INVALID,
    properties: Optional[list[str]] = opt.PROPERTIES,
    cr: Optional[str] = opt.CR,
    ordinal: Optional[int] = opt.ORDINAL,
    show_values: bool = opt.SHOW_VALUES,
    fmt: str = typer.Option("table", "--format", "-f", help="table, json, markdown or html."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write the output to FILE."),
) -> None:
    """Check broker logs against the config: each routed connection agrees, is explained, or drifts (exit 1)."""
    from .replay_run import run_replay

    code = run_replay(logs, config=config, routers=router or [], layout=layout, pattern=pattern, against=against,
                      node_id=node_id or [], down=down or [], connections=connections or [], targets=targets,
                      define=define or [], ignore_invalid=ignore_invalid, properties=properties or [], cr=cr,
                      ordinal=ordinal, show_values=show_values, fmt=fmt, output=output)
    if code:
        raise typer.Exit(code)
