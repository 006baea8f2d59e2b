"""``arouter fleet``'s options once typer has read them (cli/fleet.py declares them)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FleetOptions:
    cr: str | None = None
    config: str | None = None
    properties: list[str] = field(default_factory=list)
    define: list[str] = field(default_factory=list)
    replicas: str | None = None
    pods: list[str] = field(default_factory=list)
    router: str | None = None
    broker_version: str | None = None
    keys: str | None = None
    spark: bool = False
    keys_format: str = "auto"
    master: str | None = None
    conf: list[str] = field(default_factory=list)
    engine: str = "auto"
    spark_log_level: str = "ERROR"
    to_replicas: int | None = None
    to_broker_version: str | None = None
    new_cr: str | None = None
    target_pod: list[str] = field(default_factory=list)
    allow_multiple: bool = False
    allow_homeless: bool = False
    fmt: str = "text"
    output: str | None = None
    report: str | None = None
