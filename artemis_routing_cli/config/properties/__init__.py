"""Broker properties: the files, JSON and CR lines Artemis applies after broker.xml.

``apply_broker_properties(config, options, defines, environ)`` returns broker.xml's model with every
properties source applied in the broker's order (:mod:`.sources`, :mod:`.cr`), line by line
(:mod:`.apply` over :mod:`.beans`, with :mod:`.paths` and :mod:`.convert`), each value keeping
where it came from, plus the broker's own status per source and arouter's findings.

Only :mod:`.options` is imported with the package; the rest (:mod:`.merge`) when first named, so
``validate`` of a broker.xml without properties does not load the properties machinery.
"""

from __future__ import annotations

from typing import Any

from .options import PropertiesOptions

__all__ = ["PropertiesOptions", "SourceStatus", "apply_broker_properties", "missing_bp_secrets", "sources_for"]

_LAZY = frozenset({"SourceStatus", "apply_broker_properties", "missing_bp_secrets", "sources_for"})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import merge

        return getattr(merge, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
