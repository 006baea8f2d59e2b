"""What a command says about broker properties (kept apart so the loader can carry it cheaply)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from ...records import record

BROKER_PROPERTIES = "broker.properties"  # ActiveMQDefaultConfiguration.BROKER_PROPERTIES_SYSTEM_PROPERTY_NAME
SYSTEM_PREFIX = "brokerconfig."  # ActiveMQDefaultConfiguration.getDefaultSystemPropertyPrefix()


@record(frozen=True, slots=True)
class FleetView:
    """This config is pod ``ordinal`` of a fleet of ``size`` pods (an operator CR's, or ``--replicas``):
    what reading another pod's config takes (fleet rules, rules/fleet.py)."""

    xml_path: str
    size: int
    ordinal: int
    cr: str | None
    paths: tuple[str, ...]
    beside: bool
    defines: tuple[tuple[str, str], ...]


@record(frozen=True, slots=True)
class PropertiesOptions:
    """``--properties`` (each a comma list, as ``artemis run --properties``), ``--cr``/``--ordinal``,
    and whether ``broker.properties`` beside broker.xml is picked up when nothing else is named."""

    paths: tuple[str, ...] = ()
    cr: str | None = None
    ordinal: int | None = None
    beside: bool = True
    show_secrets: bool = False
    replicas: int | None = None  # the fleet's pod count (validate --replicas; a CR's deploymentPlan.size)
    # fleet --replicas: pod N of the operator's layout, so the --properties files' broker-N. lines apply
    # to pod N only, after every shared line (as the operator splits a CR's brokerProperties)
    split_ordinal: int | None = None


def has_sources(config_path: str | None, options: PropertiesOptions | None, defines: Mapping[str, str]) -> bool:
    """Whether some properties source may apply (``merge.sources_for`` finds none when this is False):
    a CR, ``--properties``, the system property ``broker.properties``, a ``-D brokerconfig.*``, or
    broker.properties beside broker.xml. Cheap, so that the machinery is loaded only when needed."""
    options = options or PropertiesOptions()
    if options.cr is not None or options.paths or BROKER_PROPERTIES in defines:
        return True
    if any(k.startswith(SYSTEM_PREFIX) for k in defines):
        return True
    if options.beside and config_path and config_path not in ("-", "<stdin>"):
        return os.path.isfile(os.path.join(os.path.dirname(config_path), BROKER_PROPERTIES))
    return False

