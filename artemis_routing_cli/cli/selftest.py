"""``arouter selftest``: prove arouter against the broker you run (its own router classes, in a JVM)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Optional

import typer

from ..errors import UsageError
from . import options as opt


def register(app: typer.Typer) -> None:
    app.command("selftest")(selftest_command)


def selftest_command(
    broker_home: Optional[str] = opt.BROKER_HOME,
    cases: int = typer.Option(1000, "--cases", metavar="N", help="Random routers to try (each with 1-6 connections)."),
    seed: int = typer.Option(0, "--seed", metavar="S", help="The seed: the same seed and N give the same cases."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
) -> None:
    """Random routers and connections through arouter and through your broker's own classes: agreement per area;
    exit 1 on any disagreement, each one a reproducible case."""
    if fmt not in ("text", "json"):
        raise UsageError(f"--format {fmt!r}: choose text or json")
    if not 1 <= cases <= 1_000_000:
        raise UsageError(f"--cases {cases}: give 1 to 1000000")
    from .broker_home import resolve_home

    home = resolve_home(broker_home, False)
    if home is None:
        raise UsageError("selftest needs your Artemis installation: --broker-home DIR (or $ARTEMIS_HOME)")
    if not home.has_routers:
        raise UsageError(f"selftest is not supported for Artemis {home.version} (broker balancers, before 2.21)")
    from ..judge.selftest import run_selftest

    outcome = run_selftest(home, seed, cases)
    total: Counter[str] = Counter()
    agree: Counter[str] = Counter()
    for case, mine, broker in zip(outcome.cases, outcome.ours, outcome.theirs, strict=True):
        for a, b in zip(mine, broker, strict=True):
            total[case.area()] += 1
            agree[case.area()] += a == b
    bad = outcome.disagreements()
    if fmt == "json":
        print(json.dumps({
            "broker": home.describe(), "seed": seed, "cases": cases,
            "areas": {area: {"connections": total[area], "agree": agree[area]} for area in sorted(total)},
            "disagreements": [{"case": c.number, "router": c.xml(f"r{c.number}"), "node_ids": list(c.node_ids),
                               "connection": {"client_id": c.conns[i].client_id, "username": c.conns[i].username,
                                              "remote": c.conns[i].remote, "sni": c.conns[i].sni,
                                              "roles": c.conns[i].roles},
                               "arouter": list(a), "broker": list(b)} for c, i, a, b in bad],
            "agree": not bad,
        }, indent=2, ensure_ascii=False))
    else:
        print(f"selftest against {home.describe()}: --seed {seed} --cases {cases}")
        for area in sorted(total):
            print(f"  {area}: {agree[area]}/{total[area]} connections agree")
        for c, i, a, b in bad:
            print(f"DISAGREE case {c.number} (--seed {seed}): {c.xml(f'r{c.number}')} node ids {list(c.node_ids)}; "
                  f"connection {c.conns[i]}; arouter {a}, broker {b}")
        print("arouter and the broker agree on every connection" if not bad else
              f"{len(bad)} disagreement(s): a bug in arouter, please report them")
        print("not compared: ROUND_ROBIN (the broker starts at a random position), LEAST_CONNECTIONS (live counts)")
    raise typer.Exit(1 if bad else 0)
