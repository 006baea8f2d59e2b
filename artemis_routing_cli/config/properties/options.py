"""What a command says about broker properties (kept apart so the loader can carry it cheaply)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PropertiesOptions:
    """``--properties`` (each a comma list, as ``artemis run --properties``), ``--cr``/``--ordinal``,
    and whether ``broker.properties`` beside broker.xml is picked up when nothing else is named."""

    paths: tuple[str, ...] = ()
    cr: str | None = None
    ordinal: int | None = None
    beside: bool = True
    show_secrets: bool = False
