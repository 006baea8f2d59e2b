"""The analysis lists every ready target, also one no key reached, so the table and its imbalance line
speak of the same targets (the report said "over 4 targets" under a table of 3)."""

from __future__ import annotations

import io

from rich.console import Console

from artemis_routing_cli.config import load
from artemis_routing_cli.pipeline.assign import RouterJob
from artemis_routing_cli.pipeline.render import print_text
from artemis_routing_cli.pipeline.summary import summarise
from artemis_routing_cli.routing.selection import select_routers
from artemis_routing_cli.routing.targets import state_from_options
from tests.conftest import SAMPLE


def test_a_ready_target_without_keys_is_listed_with_zero() -> None:
    state = state_from_options(["local=L0", "broker1=N1", "broker2=N2", "broker3=N3"])
    [router] = select_routers(load(str(SAMPLE)), state, "sticky-router", None)
    groups = [({"r0_status": "OK", "r0_target": "broker1", "r0_local": False, "r0_null": False}, 7),
              ({"r0_status": "OK", "r0_target": "local", "r0_local": True, "r0_null": False}, 3),
              ({"r0_status": "OK", "r0_target": "broker3", "r0_local": False, "r0_null": False}, 2)]
    [r] = summarise([RouterJob(router)], groups)["routers"]
    assert [(t["target"], t["count"]) for t in r["targets"]] == [("broker1", 7), ("local", 3), ("broker3", 2),
                                                                 ("broker2", 0)]
    assert r["imbalance"]["targets"] == len(r["targets"]) == 4
    out = io.StringIO()
    print_text({"routers": [r]}, Console(file=out, width=200))
    text = out.getvalue()
    assert "broker2" in text and "over 4 targets" in text


def test_targets_sharing_a_node_id_are_warned_about() -> None:
    state = state_from_options(["broker1=…", "broker2=…", "broker3=…"])
    [router] = select_routers(load(str(SAMPLE)), state, "sticky-router", None)
    assert ("targets broker1, broker2, broker3 share the node id '…': real brokers have distinct node ids "
            "(give each its own with --node-id or --targets)") in router.warnings
    distinct = select_routers(load(str(SAMPLE)), state_from_options(["broker1=a", "broker2=b"]), "sticky-router",
                              None)[0]
    assert not any("share the node id" in w for w in distinct.warnings)
