"""Shared by the replay tests: the recorded real logs and the replay command's JSON answer."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.cli.helpers import arouter

DATA = Path(__file__).resolve().parents[1] / "data" / "replay"
CONFIG = DATA / "broker.xml"
VERSIONS = ("2.40.0", "2.31.2", "2.21.0")  # 2.21.0: held out (recorded after replay was written)


def replay_json(*args: str, stdin: str | None = None, code: int | None = None) -> dict:
    run = arouter("replay", "-c", str(CONFIG), "-f", "json", *args, stdin=stdin)
    assert run.code in (0, 1), run.err
    if code is not None:
        assert run.code == code, run.out + run.err
    return json.loads(run.out)


def reasons(doc: dict, router: str) -> dict[tuple[str, str], int]:
    return {(x["verdict"], x["reason"]): x["count"] for x in doc["routers"][router]["reasons"]}


def broker_node_id(log: Path) -> str:
    """The node id the broker printed at start-up (AMQ221001 ... nodeID=...)."""
    m = re.search(r"AMQ221001: .*nodeID=([0-9a-f-]+)", log.read_text())
    assert m, log
    return m[1]
