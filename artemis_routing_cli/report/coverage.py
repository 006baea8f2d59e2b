"""What a validate run judged: the routing sections only, or the whole file against the user's broker.

Said in every report format that has room for it (text, JSON, SARIF), so a clean report is never
read as "the broker starts" when only part of the file was looked at.
"""

from __future__ import annotations

from ..records import record

SECTIONS = ("acceptors, connectors, broadcast-groups, discovery-groups, diverts, cluster-connections and "
            "connection-routers")
HINT = ("--broker-home DIR (your Artemis installation; or set $ARTEMIS_HOME) checks the whole file against that "
        "broker's own schema and runs its own loader")


@record(frozen=True)
class Coverage:
    whole_file: bool
    broker: str | None = None  # "Artemis 2.40.0 at /opt/artemis" when judged with a broker home
    loader: bool = False  # the broker's own loader ran too (in a JVM)

    def as_json(self) -> dict[str, object]:
        if self.whole_file:
            return {"checked": "whole-file", "broker_home": self.broker, "broker_loader": self.loader}
        return {"checked": "routing-sections", "sections": SECTIONS,
                "not_checked": "elements outside the routing sections", "hint": HINT}

    def text(self) -> str:
        if self.whole_file:
            loader = " and its own loader" if self.loader else ""
            return f"checked: the whole file against {self.broker}: its schema{loader}"
        return (f"not checked: elements outside the routing sections ({SECTIONS}); a typo there still stops "
                f"the broker. {HINT}")
