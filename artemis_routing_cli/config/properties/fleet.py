"""The fleet a config is one pod of (kept apart from options.py, which cr.py's imports reach)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from .options import FleetView, PropertiesOptions

ORDINAL_VARIABLE = "STATEFUL_SET_ORDINAL"  # the operator's StatefulSet sets it on every pod


def fleet_view(path: str, options: PropertiesOptions | None, defines: Mapping[str, str],
               environ: Mapping[str, str] | None) -> FleetView | None:
    """The fleet a config is one pod of: a CR's broker N (of ``replicas`` or its deploymentPlan.size),
    or, with ``replicas``, pod ``STATEFUL_SET_ORDINAL`` of that many running one broker.xml."""
    if options is None or (options.cr is None and options.replicas is None):
        return None
    if options.cr is not None:
        from .cr import MAX_ORDINALS, declared_size

        size = options.replicas or declared_size(options.cr)
        if size > MAX_ORDINALS:
            return None  # more pods than validate looks at: the fleet rules stay quiet rather than guess
        ordinal = options.ordinal or 0
    else:
        size = options.replicas or 1
        env = os.environ if environ is None else environ
        text = defines.get(ORDINAL_VARIABLE, env.get(ORDINAL_VARIABLE, "0"))
        ordinal = int(text) if text.isascii() and text.isdigit() else 0
    return FleetView(path, size, ordinal, options.cr, options.paths, options.beside,
                     tuple(sorted(defines.items())))
