"""``arouter simulate --key …``: one connection through one or every router."""

from __future__ import annotations

import json

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..config.model import BrokerConfig
from ..errors import UsageError
from ..routing.keys import KEY_TYPES, Connection, source_address
from ..routing.router import OK, Router, RouteResult, build_routers
from ..routing.targets import TargetState
from .common import stderr_console, stdout_console, warn


def _source(value: str) -> str:
    """``value`` once it reads as a source address (each router prints it as its acceptors would)."""
    try:
        source_address(value)
    except UsageError as err:
        raise UsageError(f"--key {err.message}") from None
    return value


def parse_connection(keys: list[str], roles: str | None) -> Connection:
    values: dict[str, str] = {}
    for item in keys:
        name, sep, value = item.partition("=")
        kt = name.strip().upper()
        if not sep:
            raise UsageError(f"--key {item!r}: expected TYPE=VALUE, e.g. CLIENT_ID=FOO1")
        if kt not in KEY_TYPES:
            raise UsageError(f"--key {item!r}: unknown key type {name.strip()!r}; use one of {', '.join(KEY_TYPES)}")
        values[kt] = value
    role_list: tuple[str, ...] = ()
    if roles is not None:
        role_list = tuple(r.strip() for r in roles.split(",") if r.strip())
    elif "ROLE_NAME" in values:
        role_list = tuple(r.strip() for r in values["ROLE_NAME"].split(",") if r.strip())
    return Connection(
        client_id=values.get("CLIENT_ID"),
        username=values.get("USER_NAME"),
        sni_host=values.get("SNI_HOST"),
        remote_address=_source(values["SOURCE_IP"]) if "SOURCE_IP" in values else None,
        roles=role_list,
    )


def select_routers(cfg: BrokerConfig, state: TargetState, name: str | None, seed: int | None) -> list[Router]:
    if name is not None and cfg.router(name) is None:
        known = ", ".join(r.name for r in cfg.connection_routers) or "none"
        raise UsageError(f"no connection router named {name!r} in {cfg.path} (routers: {known})")
    routers = build_routers(cfg, state, names=[name] if name else None, seed=seed)
    if not routers:
        raise UsageError(f"{cfg.path} has no connection routers")
    return routers


def run_one(cfg: BrokerConfig, state: TargetState, router: str | None, keys: list[str], roles: str | None,
            seed: int | None, explain: bool, management: bool, fmt: str) -> None:
    if fmt not in ("text", "json"):
        raise UsageError(f"--format {fmt!r}: choose text or json (jsonl and csv go with --keys-file)")
    routers = select_routers(cfg, state, router, seed)
    if management:
        if len(keys) != 1:
            raise UsageError("--management takes exactly one --key (its value is used as given)")
        value = keys[0].partition("=")[2] if "=" in keys[0] else keys[0]
        results = [r.route_key(value) for r in routers]
        conn = None
    else:
        if not keys and roles is None:
            raise UsageError("give the connection with --key TYPE=VALUE (e.g. --key CLIENT_ID=FOO1)")
        conn = parse_connection(keys, roles)
        results = [r.route(conn) for r in routers]
    warnings = [f"{r.name}: {w}" for r in routers for w in r.warnings]
    if fmt == "json":
        payload = {
            "connection": _conn_json(conn) if conn else {"management_key": results[0].key},
            "results": [
                {**res.to_json(with_trace=True), "key_type": r.key_type}
                for r, res in zip(routers, results, strict=True)
            ],
            "warnings": warnings,
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    _print_text(routers, results, warnings, explain, cfg)


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
