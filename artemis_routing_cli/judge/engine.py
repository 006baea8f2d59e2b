"""``simulate --engine broker``: one connection through the installation's own ConnectionRouter of every
chosen router (``java/Route.java``), beside arouter's answer.

The router is loaded from the same broker.xml (and broker properties) and deployed by the broker's
classes; its pool is the ready targets arouter's pool has, in order, with the same node ids (given with
--node-id, --targets, or arouter's placeholders); the local target (local-target-enabled) is the broker's
own LocalTarget of that router, given arouter's node id for it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UsageError
from .jvm import java_properties, run_driver
from .selftest import NUL, _field

if TYPE_CHECKING:
    from ..config.brokerhome import BrokerHome
    from ..routing.keys import Connection
    from ..routing.router import Router


def _remote(router: Router, conn: Connection) -> str | None:
    if conn.remote_address is None:
        return None
    if conn.remote_as_is:
        return conn.remote_address
    from ..routing.keys import source_address

    return source_address(conn.remote_address, native=router.native_transport, broker=router.broker_version)


def broker_answers(home: BrokerHome, xml_path: str, properties: str, defines: Mapping[str, str],
                   routers: Sequence[Router], conn: Connection) -> list[tuple[str, str]]:
    """(status, target: node id, "local" or "") of the broker's own router for ``conn``, per router."""
    if xml_path in ("-", "<stdin>") or not Path(xml_path).is_file():
        raise UsageError("--engine broker reads broker.xml from a file (the broker's loader reads files)")
    lines = []
    for r in routers:
        ids = []
        if r.pool is not None:
            ids = [f"local:{t.node_id}" if t.local else t.node_id for t in r.pool.ready()]
        if any("," in i for i in ids):
            raise UsageError("--engine broker: a node id with a comma cannot go to the broker's router")
        sni = conn.raw_value("SNI_HOST")
        roles = "\x1f".join(r_ for r_ in conn.roles) if conn.roles else None
        lines.append("\t".join(["C", _field(str(Path(xml_path).resolve())), _field(r.name), ",".join(ids),
                                _field(properties) if properties else NUL]))
        lines.append("\t".join(["K", *map(_field, (conn.client_id, conn.username, _remote(r, conn), sni, roles))]))
    with tempfile.TemporaryDirectory(prefix="arouter-engine-") as tmp:
        listing = Path(tmp) / "cases.tsv"
        listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
        text = run_driver(home, ["route", str(listing)], java_properties(dict(defines)))
    out: list[tuple[str, str]] = []
    failure = ""
    for line in text.splitlines():
        if line.startswith("X\t"):
            failure = line[2:]
            continue
        if line == "X":
            raise UsageError(f"the broker's own router could not be deployed: {failure[:300]}")
        status, _, target = line.partition("\t")
        out.append((status, target))
    if len(out) != len(routers):
        raise UsageError("the broker's router gave no answer for every router")
    return out


# One JVM answers the whole file; its input and answers are held in memory.
MAX_BATCH_KEYS = 200_000


def broker_batch(home: BrokerHome, xml_path: str, properties: str, defines: Mapping[str, str],
                 batches: Sequence[tuple[Router, Sequence[tuple[int, str, Connection]]]],
                 ) -> list[list[tuple[str, str]]]:
    """The broker's own answer for every (line, shown key, connection) of each router's batch (one JVM)."""
    total = sum(len(conns) for _, conns in batches)
    if total > MAX_BATCH_KEYS:
        raise UsageError(f"--engine broker takes at most {MAX_BATCH_KEYS:,} keys (this run has {total:,})")
    lines = []
    for r, conns in batches:
        ids = [f"local:{t.node_id}" if t.local else t.node_id for t in r.pool.ready()] if r.pool is not None else []
        lines.append("\t".join(["C", _field(str(Path(xml_path).resolve())), _field(r.name), ",".join(ids),
                                _field(properties) if properties else NUL]))
        for _, _, conn in conns:
            roles = "\x1f".join(conn.roles) if conn.roles else None
            lines.append("\t".join(["K", *map(_field, (conn.client_id, conn.username, _remote(r, conn),
                                                       conn.raw_value("SNI_HOST"), roles))]))
    with tempfile.TemporaryDirectory(prefix="arouter-engine-") as tmp:
        listing = Path(tmp) / "cases.tsv"
        listing.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
        text = run_driver(home, ["route", str(listing)], java_properties(dict(defines)))
    answers = [ln for ln in text.splitlines() if not ln.startswith("X\t")]
    if any(ln == "X" for ln in answers) or len(answers) != total:
        raise UsageError("the broker's own router could not be deployed or gave no answer for every key")
    out, start = [], 0
    for _, conns in batches:
        out.append([(ln.partition("\t")[0], ln.partition("\t")[2]) for ln in answers[start:start + len(conns)]])
        start += len(conns)
    return out
