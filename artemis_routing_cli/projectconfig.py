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

import re
import sys
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from .diagnostics import Severity
from .errors import UsageError
from .records import record
from .safeio import MAX_SMALL_FILE_BYTES, read_regular

_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)")
_DEEP = 64  # brackets open at once: where a nesting error is reported

FILENAMES = (".arouter.toml", "pyproject.toml")


@record(frozen=True)
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


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _deep_position(text: str) -> tuple[int, int]:
    """Where brackets first nest more than a few dozen deep (strings not told apart): 1:1 if nowhere."""
    depth = 0
    for i, ch in enumerate(text):
        depth += 1 if ch in "[{" else -1 if ch in "]}" else 0
        if depth > _DEEP:
            return _position(text, i)
    return 1, 1


def _severity(value: Any, where: str, path: Path) -> Severity:
    try:
        return Severity(str(value).lower())
    except ValueError:
        raise UsageError(f"{where} must be error, warning or info, not {value!r}", file=str(path)) from None


def _read(path: Path) -> ProjectConfig | None:
    tomllib = _toml()
    raw = read_regular(str(path), limit=MAX_SMALL_FILE_BYTES, what="settings file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(raw.decode("utf-8", "replace"), exc.start)
        raise UsageError("not valid UTF-8", file=str(path), line=line, column=column) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = _TOML_AT.search(str(exc))
        line, column = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
        message = _TOML_AT.sub("", str(exc)).strip()
        raise UsageError(f"not valid TOML: {message}", file=str(path), line=line, column=column) from None
    except RecursionError:
        line, column = _deep_position(text)
        raise UsageError("not valid TOML: nested too deeply", file=str(path), line=line, column=column) from None
    except ValueError as exc:  # e.g. an integer over Python's 4,300-digit limit
        raise UsageError(f"not valid TOML: {str(exc)[:80]}", file=str(path), line=1, column=1) from None
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
