"""``simulate --engine broker --keys-file``: every key through arouter and through the installation's own
router classes (one JVM), one JSON line per key and router with both answers and ``agree``."""

from __future__ import annotations

import json

from ..config.model import BrokerConfig
from ..errors import UsageError
from ..routing.selection import select_routers
from ..routing.targets import TargetState
from .key_options import apply as apply_key_options


def run_engine_batch(cfg: BrokerConfig, state: TargetState, router: str | None, keys_file: str, output: str | None,
                     fmt: str, seed: int | None, home: object, define: list[str], properties: list[str],
                     key_options: tuple[str | None, str | None]) -> None:
    if fmt != "jsonl":
        raise UsageError(f"--format {fmt!r}: --engine broker with --keys-file writes jsonl")
    from ..judge.engine import broker_batch
    from ..judge.loader import properties_spec
    from .common import note, parse_properties
    from .keys_file import read_keys
    from .simulate_batch import connection_for

    routers = select_routers(cfg, state, router, seed)
    apply_key_options(routers, *key_options)
    records, _ = read_keys(keys_file)
    defines = parse_properties(define)
    spec = properties_spec(cfg.path, properties, defines)
    lines: list[str] = []
    disagree = 0
    per_router = []
    for r in routers:
        conns = []
        for line, record in records:
            conn, shown = connection_for(r, record, keys_file, line)
            conns.append((line, shown, conn))
        per_router.append(conns)
    answers = broker_batch(home, cfg.path, spec, defines,  # type: ignore[arg-type]
                           list(zip(routers, per_router, strict=True)))
    for r, conns, theirs in zip(routers, per_router, answers, strict=True):
        for (line, shown, conn), (status, target) in zip(conns, theirs, strict=True):
            res = r.route(conn)
            mine = "" if res.target is None else "local" if res.local else res.target.node_id
            agree = (res.status, mine) == (status, target)
            disagree += not agree
            lines.append(json.dumps({"router": r.name, "line": line, "key": shown,
                                     "arouter": {"status": res.status, "target": mine or None},
                                     "broker": {"status": status, "target": target or None}, "agree": agree},
                                    ensure_ascii=False))
    text = "\n".join(lines) + ("\n" if lines else "")
    from ..outfile import write_out

    write_out(output or None, text, what="records")
    if disagree:
        note(f"arouter: ARGUMENT WITH YOUR BROKER: {disagree} answer(s) differ from the broker's own router "
             "(ROUND_ROBIN and LEAST_CONNECTIONS start at a random position in the broker); otherwise a bug in arouter")
