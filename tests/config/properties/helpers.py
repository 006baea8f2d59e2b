"""Apply properties text to a broker.xml (empty unless given) the way load() does."""

from __future__ import annotations

from pathlib import Path

from artemis_routing_cli.config import LoadOptions, load
from artemis_routing_cli.config.model import BrokerConfig
from artemis_routing_cli.config.properties import PropertiesOptions

EMPTY = '<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">\n</core></configuration>\n'


def core(fragment: str) -> str:
    return EMPTY.replace("\n</core>", f"\n{fragment}\n</core>")


def applied(tmp: Path, text: str, *, xml: str = EMPTY, name: str = "b.properties",
            defines: dict[str, str] | None = None, env: dict[str, str] | None = None) -> BrokerConfig:
    broker = tmp / "broker.xml"
    broker.write_text(xml, encoding="utf-8")
    props = tmp / name
    props.write_text(text, encoding="iso-8859-1" if name.endswith(".properties") else "utf-8")
    options = LoadOptions(defines or {}, env or {}, PropertiesOptions(paths=(str(props),)))
    return load(str(broker), options)


def rules(config: BrokerConfig) -> list[tuple[str, int]]:
    return [(f.rule, f.pos.line) for f in config.property_findings]
