"""The real brokers' management over their own Jolokia (the web console): bulk requests, as the console sends them."""

from __future__ import annotations

import base64
import json
import urllib.request
from typing import Any

from tests.realbroker.brokerxml import PASSWORD, USER

HANG_GUARD_SECONDS = 120


def router_mbean(broker: str, router: str) -> str:
    return f'org.apache.activemq.artemis:broker="{broker}",component=connection-routers,name="{router}"'


def broker_mbean(broker: str) -> str:
    return f'org.apache.activemq.artemis:broker="{broker}"'


def bulk(url: str, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """POST a list of Jolokia requests; the answers, in the same order."""
    origin = url.split("/console", 1)[0]
    token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode("ascii")
    request = urllib.request.Request(url, data=json.dumps(requests).encode("utf-8"), headers={
        "Content-Type": "application/json", "Origin": origin, "Authorization": f"Basic {token}"})
    with urllib.request.urlopen(request, timeout=HANG_GUARD_SECONDS) as answer:
        results = json.load(answer)
    for result in results:
        assert result.get("status") == 200, result
    return results


def targets_of(url: str, broker: str, router: str, keys: list[str]) -> list[dict[str, Any] | None]:
    """The router's ``getTargetAsJSON(key)`` for each key (None where the broker answers null)."""
    mbean = router_mbean(broker, router)
    answers = bulk(url, [{"type": "exec", "mbean": mbean, "operation": "getTargetAsJSON(java.lang.String)",
                          "arguments": [key]} for key in keys])
    return [json.loads(a["value"]) if a.get("value") is not None else None for a in answers]


def read(url: str, mbean: str, attribute: str) -> Any:
    return bulk(url, [{"type": "read", "mbean": mbean, "attribute": attribute}])[0]["value"]


def exec_op(url: str, mbean: str, operation: str, *arguments: Any) -> Any:
    return bulk(url, [{"type": "exec", "mbean": mbean, "operation": operation, "arguments": list(arguments)}])[0].get(
        "value")
