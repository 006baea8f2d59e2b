"""``arouter simulate --key …``: one connection through one or every router."""

from __future__ import annotations

import json
from collections.abc import Callable

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..config.model import BrokerConfig
from ..errors import UsageError
from ..routing.keys import KEY_TYPES, Connection, role_list, sni_from_host, source_address
from ..routing.router import OK, Router, RouteResult
from ..routing.selection import select_routers
from ..routing.sni import DEFAULT_SNI_ENCODING
from ..routing.targets import TargetState
from .checks import check_repeated_keys, key_notes
from .common import stderr_console, stdout_console, warn
from .key_options import apply as apply_key_options


def _source(value: str) -> str:
    """``value`` once it reads as a source address (each router prints it as its acceptors would)."""
    try:
        source_address(value)
    except UsageError as err:
        raise UsageError(f"--key {err.message}") from None
    return value


def _sni(host: str, encoding: str) -> str | None:
    """What the broker reads for a client connecting to ``host`` (an empty name: no SNI at all)."""
    if host == "":
        return None
    try:
        return sni_from_host(host, encoding)
    except UsageError as err:
        raise UsageError(f"--key {err.message}") from None


def parse_connection(keys: list[str], roles: str | None, role: list[str] | None = None,
                     sni_encoding: str = DEFAULT_SNI_ENCODING) -> Connection:
    """The connection ``--key``, ``--roles`` and ``--role`` describe. ``--role NAME`` (repeatable) is
    one role each, taken as given; ``--roles`` and ``--key ROLE_NAME=`` are split at every comma and
    nothing is trimmed (:func:`~artemis_routing_cli.routing.keys.role_list`)."""
    check_repeated_keys(keys)
    values: dict[str, str] = {}
    for item in keys:
        name, sep, value = item.partition("=")
        kt = name.strip().upper()
        if not sep:
            raise UsageError(f"--key {item!r}: expected TYPE=VALUE, e.g. CLIENT_ID=FOO1")
        if kt not in KEY_TYPES:
            raise UsageError(f"--key {item!r}: unknown key type {name.strip()!r}; use one of {', '.join(KEY_TYPES)}")
        values[kt] = value
    given = [x for x in (roles, values.get("ROLE_NAME")) if x is not None]
    if len(given) + bool(role) > 1:
        raise UsageError("give the roles once: --role NAME (repeat), --roles LIST or --key ROLE_NAME=LIST")
    roles_given = tuple(role) if role else role_list(given[0] if given else None)
    return Connection(
        client_id=values.get("CLIENT_ID"),
        username=values.get("USER_NAME"),
        sni_host=_sni(values["SNI_HOST"], sni_encoding) if "SNI_HOST" in values else None,
        sni_requested=values.get("SNI_HOST"),
        remote_address=_source(values["SOURCE_IP"]) if "SOURCE_IP" in values else None,
        roles=roles_given,
    )


def run_one(cfg: BrokerConfig, state: TargetState, router: str | None, keys: list[str], roles: str | None,
            seed: int | None, explain: bool, management: bool, fmt: str, role: list[str] | None = None,
            key_options: tuple[str | None, str | None] = (None, None),
            broker_engine: Callable[[list[Router], Connection], list[tuple[str, str]]] | None = None) -> None:
    """``broker_engine``: --engine broker, the broker's own router's (status, target) per router, shown beside."""
    if fmt not in ("text", "json"):
        raise UsageError(f"--format {fmt!r}: choose text or json (jsonl and csv go with --keys-file)")
    routers = select_routers(cfg, state, router, seed)
    encoding, version = apply_key_options(routers, *key_options)
    if management:
        if len(keys) != 1:
            raise UsageError("--management takes exactly one --key (its value is used as given)")
        value = keys[0].partition("=")[2] if "=" in keys[0] else keys[0]
        results = [r.route_key(value) for r in routers]
        conn = None
    else:
        if not keys and roles is None and not role:
            raise UsageError("give the connection with --key TYPE=VALUE (e.g. --key CLIENT_ID=FOO1)")
        conn = parse_connection(keys, roles, role, encoding)
        assumed = key_notes(routers, [*(k.partition("=")[0].strip().upper() for k in keys),
                                      *(["ROLE_NAME"] if roles is not None or role else [])])
        results = [r.route(conn) for r in routers]
    warnings = [f"{r.name}: {w}" for r in routers for w in r.warnings]
    if not management:
        warnings += assumed
    beside: list[dict[str, object]] | None = None
    if broker_engine is not None:
        if conn is None:
            raise UsageError("--engine broker routes a connection (--key), not a --management key")
        beside = []
        for r, res, (status, target) in zip(routers, results, broker_engine(routers, conn), strict=True):
            mine = "" if res.target is None else "local" if res.local else res.target.node_id
            same = (res.status, mine) == (status, target)
            # the broker's ROUND_ROBIN (and its LEAST_CONNECTIONS ties) start at a random position
            random_start = r.policy is not None and r.policy.name in ("ROUND_ROBIN", "LEAST_CONNECTIONS") \
                and r.pool is not None and len(r.pool.ready()) > 1
            beside.append({"status": status, "target": target or None,
                           "agree": None if random_start and not same else same})
        if any(b["agree"] is False for b in beside):
            warnings.append("ARGUMENT WITH YOUR BROKER: arouter's answer and the broker's own router differ: "
                            "a bug in arouter, please report it with this command line")
    if fmt == "json":
        payload = {
            "connection": _conn_json(conn) if conn else {"management_key": results[0].key},
            "results": [
                {**res.to_json(with_trace=True), "key_type": r.key_type, "broker": r.broker,
                 "broker_notes": list(r.deploy_notes),
                 **({"broker_engine": beside[i], "agree": beside[i]["agree"]} if beside is not None else {})}
                for i, (r, res) in enumerate(zip(routers, results, strict=True))
            ],
            "warnings": warnings,
            "assumed": {"broker_version": ".".join(map(str, version)), "sni_encoding": encoding},
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    _print_text(routers, results, warnings, explain, cfg)
    if beside is not None:
        out = stdout_console()
        for r, b in zip(routers, beside, strict=True):
            verdict = {True: "agrees", False: "DISAGREES with arouter",
                       None: "differs: the broker's round robin starts at a random position"}[b["agree"]]
            out.print(f"{r.name}: the broker's own router: {b['status']} → {b['target'] or '—'} ({verdict})",
                      highlight=False, markup=False)
    if explain:
        from .key_options import SNI_CLIENTS

        client = next(k for k, v in SNI_CLIENTS.items() if v == encoding)
        stdout_console().print(f"\nassumed: Artemis {'.'.join(map(str, version))} (--broker-version); SNI_HOST "
                               f"names sent by a {client} client (--sni-client {client})", highlight=False)


def origin_lines(cfg: BrokerConfig, name: str) -> list[str]:
    """Where a router's values came from: broker.xml lines, or properties file:line / CR item lines."""
    model = cfg.router(name)
    if model is None:
        return []
    if not model.origins:
        return [f"defined at {model.pos.file}:{model.pos.line}"]
    return [f"{path} from {pos.file}:{pos.line}" for path, pos in model.origins.items()]


def _conn_json(conn: Connection) -> dict[str, object]:
    return {
        "client_id": conn.client_id,
        "username": conn.username,
        "sni_host": conn.sni_host,
        "remote_address": conn.remote_address,
        "roles": list(conn.roles),
        "roles_in_broker_order": list(conn.broker_roles()),
    }


def _print_text(routers: list[Router], results: list[RouteResult], warnings: list[str], explain: bool,
                cfg: BrokerConfig) -> None:
    out = stdout_console()
    table = Table("router", "key type", "key", "status", "target", "address", "node id", "decided by",
                  box=None, pad_edge=False)
    for column in table.columns:
        column.overflow = "fold"
    placeholders = False
    for r, res in zip(routers, results, strict=True):
        key = res.key if res.key == res.key_value else f"{res.key} → {res.key_value}"
        status_style = "green" if res.status == OK else "red"
        t = res.target
        node = ""
        if t is not None:
            node = t.node_id if t.node_id_known else t.node_id + "*"
            placeholders = placeholders or not t.node_id_known
        table.add_row(Text(r.name), r.key_type, Text(key), f"[{status_style}]{res.status}[/{status_style}]",
                      Text(res.target_label or "—"), Text((t.address if t is not None else None) or "—"),
                      Text(node or "—"), res.decided_by)
    out.print(table)
    if placeholders:
        out.print("[dim]* placeholder node id (give the real ones with --node-id or --targets)[/dim]")
    if explain:
        for r, res in zip(routers, results, strict=True):
            out.print(f"\n[bold]{escape(r.name)}[/bold]")
            for line in origin_lines(cfg, r.name):
                out.print(f"  [dim]{escape(line)}[/dim]", highlight=False)
            for i, step in enumerate(res.trace, 1):
                out.print(f"  {i}. [cyan]{escape(step.step)}[/cyan]: {escape(step.detail)}", highlight=False)
    err = stderr_console()
    for w in warnings:
        warn(err, w)
