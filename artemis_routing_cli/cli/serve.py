"""``arouter serve``: a foreground redirect listener that answers like a routing broker."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Optional

import typer

from ..errors import UsageError
from . import options as opt
from .common import load_routable
from .key_options import BROKER_VERSION_HELP

if TYPE_CHECKING:
    from ..config.model import BrokerConfig
    from ..routing.targets import TargetState

DEFAULT_PASSWORD_ENV = "AROUTER_MANAGEMENT_PASSWORD"


def register(app: typer.Typer) -> None:
    app.command("serve")(serve_command)


def serve_command(
    config: Optional[str] = typer.Option(None, "--config", "-c", help="broker.xml (default: ./broker.xml, "
                                         "$ARTEMIS_INSTANCE/etc/broker.xml, else the bundled sample)."),
    define: Optional[list[str]] = opt.DEFINE,
    ignore_invalid: bool = opt.IGNORE_INVALID,
    properties: Optional[list[str]] = opt.PROPERTIES,
    cr: Optional[str] = opt.CR,
    ordinal: Optional[int] = opt.ORDINAL,
    show_values: bool = opt.SHOW_VALUES,
    router: Optional[list[str]] = typer.Option(None, "--router", "-r", metavar="NAME",
                                               help="Only acceptors of this router; with --listen, the router of "
                                                    "each --listen in order (repeat)."),
    listen: Optional[list[str]] = typer.Option(None, "--listen", "-l", metavar="HOST:PORT",
                                               help="Listen here instead of the acceptors (tls://HOST:PORT for TLS; "
                                                    "repeat)."),
    bind_host: Optional[str] = typer.Option(None, "--bind-host", metavar="HOST",
                                            help="Bind acceptors on HOST (default 127.0.0.1; 'acceptor' keeps the "
                                                 "acceptor URL's host)."),
    local_target: Optional[str] = typer.Option(None, "--local-target", metavar="HOST:PORT",
                                               help="Where clients the router keeps local are sent (else refused)."),
    node_id: Optional[list[str]] = typer.Option(None, "--node-id", metavar="TARGET=ID",
                                                help="Node id (broker UUID) of a target; 'local' for this listener "
                                                     "(repeat)."),
    down: Optional[list[str]] = typer.Option(None, "--down", metavar="TARGET",
                                             help="Target not ready, with --no-monitor (repeat)."),
    connections: Optional[list[str]] = opt.CONNECTIONS,
    targets: Optional[str] = opt.TARGETS,
    monitor: bool = typer.Option(True, "--monitor/--no-monitor",
                                 help="Check pool targets every check-period (default), or trust the flags."),
    jolokia: Optional[str] = typer.Option(None, "--jolokia", metavar="URL-TEMPLATE",
                                          help="Judge targets over their management API, as 'arouter probe "
                                               "--jolokia': e.g. http://{host}:8161/console/jolokia (Active, "
                                               "NodeID, ConnectionCount)."),
    tls_cert: Optional[str] = typer.Option(None, "--tls-cert", metavar="PEM",
                                           help="Certificate chain for acceptors with sslEnabled=true."),
    tls_key: Optional[str] = typer.Option(None, "--tls-key", metavar="PEM", help="Private key for --tls-cert."),
    users_file: Optional[str] = typer.Option(None, "--users-file", metavar="FILE",
                                             help="artemis-users.properties: validate user names and passwords."),
    roles_file: Optional[str] = typer.Option(None, "--roles-file", metavar="FILE",
                                             help="artemis-roles.properties: the users' roles (ROLE_NAME); needs "
                                                  "--users-file."),
    data_dir: Optional[str] = typer.Option(None, "--data-dir", metavar="DIR",
                                           help="Where persisted router caches are kept (SQLite)."),
    management: Optional[str] = typer.Option(None, "--management", metavar="HOST:PORT",
                                             help="Serve Jolokia-style management, /metrics and /healthz here "
                                                  "(host defaults to 127.0.0.1)."),
    management_user: Optional[str] = typer.Option(None, "--management-user", metavar="NAME",
                                                  help="Require basic auth; the password comes from the "
                                                       "environment variable named by --management-password-env."),
    management_password_env: str = typer.Option(DEFAULT_PASSWORD_ENV, "--management-password-env", metavar="VAR",
                                                help="Environment variable holding the management password."),
    management_insecure: bool = typer.Option(False, "--management-insecure",
                                             help="Allow --management on a non-loopback address without "
                                                  "--management-user (logged as a warning)."),
    log_format: str = typer.Option("text", "--log-format", help="text or json (logs go to stderr)."),
    handshake_timeout: float = typer.Option(10.0, "--handshake-timeout", metavar="SECONDS",
                                            help="Close clients that have not been answered by then (an acceptor's "
                                                 "handshake-timeout wins)."),
    max_frame_size: int = typer.Option(1024 * 1024, "--max-frame-size", metavar="BYTES",
                                       help="Bytes a client may send before it is answered."),
    max_connections: int = typer.Option(20_000, "--max-connections", metavar="N",
                                        help="Open connections per listener (an acceptor's connectionsAllowed "
                                             "lowers it)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="ROUND_ROBIN start position (else random)."),
    broker_version: Optional[str] = typer.Option(None, "--broker-version", metavar="2.NN", help=BROKER_VERSION_HELP),
    loop: str = typer.Option("auto", "--loop", help="Event loop: auto (uvloop when installed, else asyncio), "
                                                    "asyncio or uvloop."),
) -> None:
    """Listen like a broker's redirecting acceptors and send each client where the router says."""
    from ..routing.targets import state_from_options
    from ..serve.log import FORMATS, BackgroundWriter, ServeLog
    from ..serve.loops import choose_loop
    from ..serve.server import ServeOptions, run

    loop_choice = choose_loop(loop)
    if log_format not in FORMATS:
        raise UsageError(f"--log-format {log_format!r}: choose text or json")
    if handshake_timeout <= 0:
        raise UsageError("--handshake-timeout must be greater than 0")
    if max_frame_size < 64:
        raise UsageError("--max-frame-size must be at least 64 bytes")
    if max_connections < 1:
        raise UsageError("--max-connections must be at least 1")
    if (tls_cert is None) != (tls_key is None) and tls_cert is None:
        raise UsageError("--tls-key needs --tls-cert")
    from ..serve.auth import check_files

    check_files(users_file, roles_file)
    from .key_options import broker_version as parse_version

    version = parse_version(broker_version)
    if jolokia is not None:
        from ..probe.jolokia import check_template

        problem = check_template(jolokia)
        if problem:
            raise UsageError(f"--jolokia {jolokia!r}: {problem}")
        if not monitor:
            raise UsageError("--jolokia is used by pool monitoring: drop --no-monitor")
    password = None
    if management_user is not None:
        if management is None:
            raise UsageError("--management-user needs --management HOST:PORT")
        password = os.environ.get(management_password_env)
        if not password:
            raise UsageError(f"--management-user: set the password in the environment variable "
                             f"{management_password_env} (it is never taken on the command line)")
    if management is not None:
        from ..serve.listeners import parse_host_port
        from ..serve.management import check_management_bind

        check_management_bind(parse_host_port(management, "--management")[0], management_user, management_insecure)
    cfg = load_routable(config, define, ignore_invalid, "serve", properties, cr, ordinal, show_values=show_values)
    state = state_from_options(node_id or [], down or [], connections or [], targets)
    check_serve_inputs(cfg, state, router or [], monitor)
    options = ServeOptions(
        listen=listen or [], routers=router or [], bind_host=bind_host, local_target=local_target, state=state,
        tls_cert=tls_cert, tls_key=tls_key, users_file=users_file, roles_file=roles_file, data_dir=data_dir,
        management=management, management_user=management_user, management_password=password,
        management_insecure=management_insecure,
        handshake_timeout=handshake_timeout, max_frame_size=max_frame_size, max_connections=max_connections,
        monitor=monitor, jolokia=jolokia, seed=seed, broker_version=version,
    )
    log = ServeLog(log_format, writer=BackgroundWriter(sys.stderr))  # a slow stderr never stalls the listener
    try:
        loop_choice.run(run(cfg, options, log, loop_choice.reason))
    except KeyboardInterrupt:
        pass
    finally:
        log.close()


def check_serve_inputs(cfg: BrokerConfig, state: TargetState, routers: list[str], monitor: bool) -> None:
    """Refuse ``--router`` names broker.xml lacks and target names no served router holds, before binding.

    While monitoring, a pool fed by a discovery group (directly or through a cluster connection) may
    still find members that are not known now: their names are then only warned about.
    """
    from ..routing.selection import check_target_names, select_named
    from .common import note

    chosen = select_named(cfg, state, routers, None)
    discovering = monitor and any(r.pool is not None and r.pool.source != "static" for r in chosen)
    for problem in check_target_names(chosen, state, unknown_ok=discovering):
        note(f"arouter: warning: {problem}; assumed to name a member that discovery may find")
