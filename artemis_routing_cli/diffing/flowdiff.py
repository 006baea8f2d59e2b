"""Which copies of a message go elsewhere after a config change (diverts, cluster connections)."""

from __future__ import annotations

from typing import Any

from ..config.model import BrokerConfig
from ..messages import Message
from ..messages.flow import simulate_message


def _deliveries(doc: dict[str, Any]) -> dict[tuple[str, str | None, tuple[str, ...]], list[str]]:
    cluster = {c["address"]: [f"{cc['name']} ({cc['message_load_balancing']})" for cc in c["connections"]]
               for c in doc["cluster"]}
    return {(d["address"], d["routing_type"], tuple(d["via"])): cluster.get(d["address"], [])
            for d in doc["deliveries"]}


def flow_diff(old: BrokerConfig, new: BrokerConfig, message: Message) -> dict[str, Any]:
    """The message's copies before and after: ``gone``, ``new``, and ``cluster`` changes per copy."""
    a = simulate_message(old, message.address, message, message.routing_type).to_json()
    b = simulate_message(new, message.address, message, message.routing_type).to_json()
    da, db = _deliveries(a), _deliveries(b)

    def show(key: tuple[str, str | None, tuple[str, ...]]) -> dict[str, Any]:
        return {"address": key[0], "routing_type": key[1], "via": list(key[2])}

    cluster = [{**show(k), "old": da[k], "new": db[k]} for k in da if k in db and da[k] != db[k]]
    gone = [show(k) for k in da if k not in db]
    added = [show(k) for k in db if k not in da]
    return {
        "address": message.address,
        "changed": bool(gone or added or cluster or a["original_delivered"] != b["original_delivered"]),
        "original_delivered": {"old": a["original_delivered"], "new": b["original_delivered"]},
        "no_longer_delivered": gone,
        "now_delivered": added,
        "cluster_changed": cluster,
        "old": a["deliveries"],
        "new": b["deliveries"],
        "warnings": sorted(set(b["warnings"]) - set(a["warnings"])),
    }
