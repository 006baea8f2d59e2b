"""``arouter simulate``: the router's decision for a connection (or a batch of keys), or a message's flow."""

from __future__ import annotations

from typing import Optional

import typer

from ..errors import UsageError
from . import options as opt
from .common import load_routable
from .key_options import BROKER_VERSION_HELP, SNI_CLIENT_HELP, SNI_ENCODING_HELP, sni_option


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate_command)


def simulate_command(
    config: Optional[str] = typer.Option(None, "--config", "-c", help="broker.xml (default: ./broker.xml, "
                                         "$ARTEMIS_INSTANCE/etc/broker.xml, else the bundled sample)."),
    router: Optional[str] = typer.Option(None, "--router", "-r", help="Only this connection router."),
    key: Optional[list[str]] = typer.Option(None, "--key", "-k", metavar="TYPE=VALUE",
                                            help="CLIENT_ID, USER_NAME, SNI_HOST, SOURCE_IP or ROLE_NAME (repeat: "
                                                 "several keys describe one connection)."),
    roles: Optional[str] = typer.Option(None, "--roles", metavar="LIST",
                                        help="The user's roles, split at every comma, nothing trimmed ('a, b' is "
                                             "'a' and ' b'). Names with commas: --role."),
    role: Optional[list[str]] = typer.Option(None, "--role", metavar="NAME",
                                             help="One role of the user, exactly as artemis-roles.properties "
                                                  "names it (repeat). The router walks the roles in the broker's "
                                                  "order (Java HashSet order of the names), not as given."),
    sni_client: Optional[str] = typer.Option(None, "--sni-client", metavar="explicit|default|raw",
                                             help=SNI_CLIENT_HELP),
    sni_encoding: Optional[str] = typer.Option(None, "--sni-encoding", metavar="java|raw", help=SNI_ENCODING_HELP,
                                               hidden=True),
    broker_version: Optional[str] = typer.Option(None, "--broker-version", metavar="2.NN", help=BROKER_VERSION_HELP),
    engine: str = typer.Option("arouter", "--engine", metavar="arouter|broker",
                               help="broker: also route the connection through your broker's own router classes "
                                    "(--broker-home, a JVM) and show both answers (JSON: both, and agree)."),
    broker_home: Optional[str] = opt.BROKER_HOME,
    no_broker_home: bool = opt.NO_BROKER_HOME,
    node_id: Optional[list[str]] = opt.NODE_ID,
    down: Optional[list[str]] = opt.DOWN,
    connections: Optional[list[str]] = opt.CONNECTIONS,
    targets: Optional[str] = opt.TARGETS,
    seed: Optional[int] = typer.Option(None, "--seed", help="ROUND_ROBIN start position (else random, "
                                       "like the broker)."),
    explain: bool = typer.Option(False, "--explain", "-e", help="Show each step of the decision."),
    management: bool = typer.Option(False, "--management",
                                    help="Use the key as given, like the management getTarget(key)."),
    keys_file: Optional[str] = typer.Option(None, "--keys-file", metavar="FILE",
                                            help="Batch: one key per line (or .csv/.jsonl with a column per key "
                                                 "type; roles: a JSON array in .jsonl, one role per item, or a "
                                                 "cell split at every comma)."),
    keep_cr: bool = opt.KEEP_CR,
    key_column: Optional[list[str]] = opt.KEY_COLUMN,
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Batch: write records to FILE."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f", help="text or json; jsonl or csv for --keys-file."),
    define: Optional[list[str]] = opt.DEFINE,
    ignore_invalid: bool = opt.IGNORE_INVALID,
    properties: Optional[list[str]] = opt.PROPERTIES,
    cr: Optional[str] = opt.CR,
    ordinal: Optional[int] = opt.ORDINAL,
    show_values: bool = opt.SHOW_VALUES,
    address: Optional[str] = typer.Option(None, "--address", "-a",
                                          help="Message flow: send a message to this address."),
    prop: Optional[list[str]] = typer.Option(None, "--message-property", "-p", metavar="NAME=VALUE",
                                             help=opt.MESSAGE_PROPERTY_HELP),
    old_prop: Optional[list[str]] = opt.OLD_MESSAGE_PROPERTY,
    header: Optional[list[str]] = typer.Option(None, "--header", metavar="NAME=VALUE",
                                               help="Message header such as AMQPriority=7 (repeat)."),
    routing_type: Optional[str] = typer.Option(None, "--routing-type", help="ANYCAST or MULTICAST."),
    message: Optional[str] = typer.Option(None, "--message", metavar="FILE.json",
                                          help='Message as JSON: {"properties": {...}, "headers": {...}}.'),
) -> None:
    """The broker's routing decision for a connection, a batch of keys, or a message's flow."""
    prop = opt.message_properties(prop, old_prop)
    if (keep_cr or key_column) and keys_file is None:
        raise UsageError(f"{'--keep-cr' if keep_cr else '--key-column'}: only with --keys-file")
    if keys_file is not None:
        from .keys_file import reading_of

        reading = reading_of(keep_cr, key_column)  # checked before any work
    from .broker_home import resolve_home, version_for

    home = resolve_home(broker_home, no_broker_home)
    broker_version = version_for(home, broker_version)
    if engine not in ("arouter", "broker"):
        raise UsageError(f"--engine {engine!r}: choose arouter or broker")
    if engine == "broker" and home is None:
        raise UsageError("--engine broker needs your Artemis installation: --broker-home DIR (or $ARTEMIS_HOME)")
    if engine == "broker" and (address is not None or management):
        raise UsageError("--engine broker routes connections (--key or --keys-file): not --address or --management")
    cfg = load_routable(config, define, ignore_invalid, "simulate", properties, cr, ordinal, show_values=show_values,
                        broker_home=home)
    if address is not None:
        from .simulate_flow import run_flow

        run_flow(cfg, address, prop or [], header or [], routing_type, message, fmt or "text")
        return
    if prop or header or message or routing_type:
        raise UsageError("--message-property, --header, --message and --routing-type need --address")
    if output is not None and keys_file is None:
        raise UsageError("--output writes the records of a --keys-file batch; redirect one decision with '>'")

    from ..routing.targets import state_from_options

    state = state_from_options(node_id or [], down or [], connections or [], targets)
    if keys_file is not None and engine == "broker":
        from .simulate_engine import run_engine_batch

        run_engine_batch(cfg, state, router, keys_file, output, fmt or "jsonl", seed, home, list(define or []),
                         list(properties or []), (sni_option(sni_client, sni_encoding), broker_version))
        return
    if keys_file is not None:
        from .simulate_batch import run_batch

        code = run_batch(cfg, state, router, keys_file, output, fmt or "jsonl", seed, management,
                         key_options=(sni_option(sni_client, sni_encoding), broker_version), reading=reading)
        if code:
            raise typer.Exit(code)
        return
    from .simulate_one import run_one

    broker_engine = None
    if engine == "broker":
        from ..judge.engine import broker_answers
        from ..judge.loader import properties_spec
        from .common import parse_properties

        defines = parse_properties(list(define or []))
        spec = properties_spec(cfg.path, list(properties or []), defines)

        def broker_engine(routers: list, conn: object) -> list[tuple[str, str]]:
            return broker_answers(home, cfg.path, spec, defines, routers, conn)  # type: ignore[arg-type]

    run_one(cfg, state, router, key or [], roles, seed, explain, management, fmt or "text", role=role,
            key_options=(sni_option(sni_client, sni_encoding), broker_version), broker_engine=broker_engine)
