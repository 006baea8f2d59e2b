"""``--format broker-status``: the broker's own status for its properties sources, to compare with
what its management ``getStatus()`` shows.

``ConfigurationImpl.updateReadPropertiesStatus`` / ``updateApplyStatus``: under ``properties``, one
object per source (the file's name, or ``system-brokerconfig.``) with ``alder32`` (Adler-32 over each
entry's ``key=value`` before substitution, as text), ``fileAlder32`` (of the file's bytes) and, when
the source had entries, ``errors``: ``{"value": "key=value", "reason": ...}`` per refused line (a file
that cannot be loaded has one, ``{"value": "loadError", ...}``). The broker nests this under
``configuration`` in ``getStatus()``. arouter's reasons are its own words, not Java exception text.
"""

from __future__ import annotations

import json
from typing import Any


def render(reports: list[Any]) -> str:
    out: dict[str, Any] = {}
    for report in reports:
        props: dict[str, Any] = {}
        for status in report.property_sources:
            entry: dict[str, Any] = {"alder32": str(status.alder32), "fileAlder32": str(status.file_alder32)}
            if status.load_error is not None:
                entry = {"errors": [{"value": "loadError", "reason": status.load_error}]}
            elif status.alder32 != 1 or status.errors:
                entry["errors"] = [{"value": e.value, "reason": e.reason} for e in status.errors]
            props[status.name] = entry
        out[report.path] = {"configuration": {"properties": props}}
    return json.dumps(out, indent=2, ensure_ascii=False)
