"""Project settings: ``.arouter.toml`` or ``[tool.arouter]`` in ``pyproject.toml``.

Found by walking up from the current directory (the first file that has settings wins)::

    # .arouter.toml                      # or, in pyproject.toml: [tool.arouter]
    disable = ["AR205"]                  # rule ids or names
    fail-on = "warning"                  # error | warning | info
    [severity]                           # [tool.arouter.severity]
    AR402 = "warning"
    [properties]                         # ${name} values, like -D name=value
    "broker.host" = "10.0.0.1"
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .diagnostics import Severity
from .errors import UsageError

FILENAMES = (".arouter.toml", "pyproject.toml")


@dataclass(frozen=True)
class ProjectConfig:
    path: str | None = None
    disable: tuple[str, ...] = ()
    fail_on: Severity | None = None
    severity: Mapping[str, Severity] = field(default_factory=dict)
    properties: Mapping[str, str] = field(default_factory=dict)
    format: str | None = None


def _toml() -> Any:
    """The TOML reader, imported when a settings file is read (most runs have none)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    return tomllib


def find_project_config(start: Path | None = None) -> ProjectConfig:
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        for name in FILENAMES:
            candidate = folder / name
            if candidate.is_file():
                settings = _read(candidate)
                if settings is not None:
                    return settings
    return ProjectConfig()


def load_project_config(path: str) -> ProjectConfig:
    settings = _read(Path(path))
    if settings is None:
        raise UsageError("no [tool.arouter] settings in this file", file=path)
    return settings


def _severity(value: Any, where: str, path: Path) -> Severity:
    try:
        return Severity(str(value).lower())
    except ValueError:
        raise UsageError(f"{where} must be error, warning or info, not {value!r}", file=str(path)) from None


def _read(path: Path) -> ProjectConfig | None:
    tomllib = _toml()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"not valid TOML: {exc}", file=str(path)) from None
    if path.name == "pyproject.toml":
        section = data.get("tool", {}).get("arouter")
        if section is None:
            return None
    else:
        section = data
    if not isinstance(section, dict):
        raise UsageError("[tool.arouter] must be a table", file=str(path))
    disable = section.get("disable", [])
    if not isinstance(disable, list) or not all(isinstance(x, str) for x in disable):
        raise UsageError("disable must be a list of rule ids or names", file=str(path))
    fail_on = section.get("fail-on")
    severity = section.get("severity", {})
    props = section.get("properties", {})
    if not isinstance(severity, dict) or not isinstance(props, dict):
        raise UsageError("severity and properties must be tables", file=str(path))
    return ProjectConfig(
        path=str(path),
        disable=tuple(disable),
        fail_on=_severity(fail_on, "fail-on", path) if fail_on is not None else None,
        severity={str(k): _severity(v, f"severity.{k}", path) for k, v in severity.items()},
        properties={str(k): str(v) for k, v in props.items()},
        format=section.get("format"),
    )
