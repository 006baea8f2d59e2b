"""``arouter simulate --address``: a message through diverts and cluster connections."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..config.model import BrokerConfig
from ..errors import UsageError
from .common import stderr_console, stdout_console, warn

if TYPE_CHECKING:
    from ..messages import Message

_HEADER_INTS = ("AMQPriority", "AMQTimestamp", "AMQExpiration", "AMQSize")


def _assignment(item: str, option: str) -> tuple[str, str]:
    name, sep, value = item.partition("=")
    if not sep or not name.strip():
        raise UsageError(f"{option} {item!r}: expected NAME=VALUE")
    return name.strip(), value


def _header_value(name: str, value: str) -> object:
    if name in _HEADER_INTS or name in ("priority", "timestamp", "expiration", "size"):
        try:
            return int(value)
        except ValueError:
            raise UsageError(f"--header {name}={value!r}: expected a whole number") from None
    if name in ("AMQDurable", "durable"):
        upper = value.strip().upper()
        if upper in ("DURABLE", "TRUE"):
            return True
        if upper in ("NON_DURABLE", "FALSE"):
            return False
        raise UsageError(f"--header {name}={value!r}: expected DURABLE or NON_DURABLE")
    return value


def build_message(address: str, props: list[str], headers: list[str], routing_type: str | None,
                  message_file: str | None) -> Message:
    from ..messages import Message, message_from_json, parse_typed_literal

    base_props: dict[str, object] = {}
    base_headers: dict[str, object] = {}
    rt = routing_type
    if message_file is not None:
        from ..safeio import MAX_SMALL_FILE_BYTES, JsonError, loads_json, read_regular

        raw = read_regular(message_file, limit=MAX_SMALL_FILE_BYTES, what="message file")
        try:
            doc = loads_json(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise UsageError("not valid UTF-8", file=message_file, line=raw.count(b"\n", 0, exc.start) + 1,
                             column=1) from None
        except JsonError as exc:
            raise UsageError(f"not valid JSON: {exc.msg}", file=message_file, line=exc.line,
                             column=exc.column) from None
        loaded = message_from_json(doc, address=address)
        base_props.update(loaded.properties)
        base_headers.update(loaded.headers)
        rt = rt or loaded.routing_type
    for item in props:
        name, value = _assignment(item, "--message-property")
        base_props[name] = parse_typed_literal(value)
    for item in headers:
        name, value = _assignment(item, "--header")
        base_headers[name] = _header_value(name, value)
    return Message(address=address, properties=base_props, headers=base_headers, routing_type=rt)


def run_flow(cfg: BrokerConfig, address: str, props: list[str], headers: list[str], routing_type: str | None,
             message_file: str | None, fmt: str) -> None:
    from ..messages.flow import simulate_message

    if fmt not in ("text", "json"):
        raise UsageError(f"--format {fmt!r}: choose text or json")
    msg = build_message(address, props, headers, routing_type, message_file)
    result = simulate_message(cfg, address, msg, msg.routing_type)
    data = result.to_json()
    if fmt == "json":
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return
    out = stdout_console()
    delivered = "[green]yes[/green]" if data["original_delivered"] else "[red]no[/red]"
    out.print(f"message to [bold]{escape(address)}[/bold]: delivered to the address itself: {delivered}")
    if data["decisions"]:
        out.print("diverts tried:")
        for d in data["decisions"]:
            kind = "exclusive" if d["exclusive"] else "non-exclusive"
            verdict = {"true": "[green]true[/green]", "false": "[red]false[/red]"}.get(d["verdict"],
                                                                                       escape(d["verdict"]))
            fwd = f" → {', '.join(d['forwarded_to'])}" if d["forwarded_to"] else ""
            tr = f" (transformer {d['transformer']}, not run)" if d.get("transformer") else ""
            flt = "no filter" if d["filter"] is None else f"filter {d['filter']!r}"
            out.print(f"{'  ' * (d['depth'] + 1)}{escape(d['divert'])} on {escape(d['address'])} ({kind}, "
                      f"{escape(flt)}): {verdict} — {escape(d['reason'] + fwd + tr)}")
    table = Table("delivered to", "routing type", "via", "cluster connections", box=None)
    cluster = {c["address"]: c["connections"] for c in data.get("cluster", [])}
    for dv in data["deliveries"]:
        ccs = ", ".join(f"{c['name']} ({c['message_load_balancing']})" for c in cluster.get(dv["address"], []))
        table.add_row(Text(dv["address"]), dv["routing_type"] or "—", Text(" → ".join(dv["via"]) or "(sent here)"),
                      Text(ccs or "—"))
    out.print(table)
    err = stderr_console()
    for w in data["warnings"]:
        warn(err, w)
