"""Two loaded configs compared section by section, as the broker reads them (not as text).

Sections: connection routers (with their policy, cache and pool), diverts and cluster connections,
matched by name. A section is ``added``, ``removed``, ``changed`` or ``unchanged``; a change whose
setting the broker never reads is marked ``ignored`` (and alone does not make a section changed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..config.model import BrokerConfig
from ..redact import secret_name
from .settings import HIDDEN, Setting, Settings, cluster_settings, divert_settings, router_settings

ADDED, REMOVED, CHANGED, UNCHANGED = "added", "removed", "changed", "unchanged"


@dataclass(frozen=True, slots=True)
class Change:
    setting: str
    old: object
    new: object
    file: str  # where to point at: the new file, or the old one when the setting is gone
    line: int
    ignored: str | None = None  # the broker does not read this setting: no effect on routing
    side: str = "new"  # which config ``file`` and ``line`` are in: new, or old for a removed setting

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"setting": self.setting, "old": self.old, "new": self.new,
                                  "file": self.file, "line": self.line, "in": self.side}
        if self.ignored:
            out["ignored"] = self.ignored
        return out

    def sentence(self) -> str:
        if self.old is None:
            text = f"{self.setting}: set to {_show(self.new)}"
        elif self.new is None:
            text = f"{self.setting}: removed (was {_show(self.old)})"
        else:
            text = f"{self.setting}: {_show(self.old)} → {_show(self.new)}"
        return f"{text} (ignored by the broker: {self.ignored})" if self.ignored else text


def _show(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value) if isinstance(value, str) and value != HIDDEN else str(value)


@dataclass(frozen=True, slots=True)
class SectionDiff:
    kind: str  # connection-router | divert | cluster-connection
    name: str
    status: str
    changes: tuple[Change, ...]
    file: str
    line: int
    old_refused: tuple[str, ...] = ()  # why the broker refuses it (old config); empty: deployed
    new_refused: tuple[str, ...] = ()
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def deployability_changed(self) -> bool:
        return bool(self.old_refused) != bool(self.new_refused)


def _shown(setting: Setting | None, value: object, show_values: bool) -> object:
    if value is None or setting is None:
        return value
    if setting.secret:
        return HIDDEN
    secret_via = [name for name in setting.via if secret_name(name)]
    if secret_via and not show_values:  # a ${} named like a secret; other values are configuration, shown
        return "(from " + ", ".join(f"${{{name}}}" for name in secret_via) + ")"
    return value


def diff_settings(old: Settings | None, new: Settings | None, show_values: bool = False) -> list[Change]:
    """Every setting whose value differs (a missing side is None). Password values are hidden, and so
    (unless ``show_values``) are values that came from ``${}`` substitution."""
    old, new = old or {}, new or {}
    out: list[Change] = []
    for name in [*new, *(n for n in old if n not in new)]:
        a, b = old.get(name), new.get(name)
        va = a.value if a is not None else None
        vb = b.value if b is not None else None
        if va == vb:
            continue
        where: Setting = b if b is not None else a  # type: ignore[assignment]
        va, vb = _shown(a, va, show_values), _shown(b, vb, show_values)
        out.append(Change(name, va, vb, where.file, where.line, where.ignored, "new" if b is not None else "old"))
    return out


def _status(old: object, new: object, changes: Iterable[Change]) -> str:
    if old is None:
        return ADDED
    if new is None:
        return REMOVED
    return CHANGED if any(c.ignored is None for c in changes) else UNCHANGED


def _sections(kind: str, olds: dict[str, object], news: dict[str, object],
              settings: Callable[[object], Settings], show_values: bool) -> list[SectionDiff]:
    out = []
    for name in [*news, *(n for n in olds if n not in news)]:
        o, n = olds.get(name), news.get(name)
        changes = diff_settings(settings(o) if o is not None else None, settings(n) if n is not None else None,
                                show_values)
        pos = (n if n is not None else o).pos  # type: ignore[union-attr]
        out.append(SectionDiff(kind, name, _status(o, n, changes), tuple(changes), pos.file, pos.line))
    return out


def _first_by_name(items: Iterable[object]) -> dict[str, object]:
    out: dict[str, object] = {}
    for item in items:
        out.setdefault(item.name, item)  # type: ignore[attr-defined]
    return out


@dataclass(frozen=True, slots=True)
class ConfigDiff:
    routers: list[SectionDiff]
    diverts: list[SectionDiff]
    cluster_connections: list[SectionDiff]


def diff_configs(old: BrokerConfig, new: BrokerConfig, *, show_values: bool = False) -> ConfigDiff:
    """What changed between ``old`` and ``new``, section by section (by name, first of a name).

    Values substituted from ``${}`` are compared as resolved but shown by name unless ``show_values``.
    """
    def owner(section: object, of_new: tuple[object, ...]) -> BrokerConfig:
        return new if any(x is section for x in of_new) else old

    routers = _sections("connection-router", _first_by_name(old.connection_routers),
                        _first_by_name(new.connection_routers),
                        lambda r: router_settings(owner(r, new.connection_routers), r),  # type: ignore[arg-type]
                        show_values)
    diverts = _sections("divert", _first_by_name(old.diverts), _first_by_name(new.diverts),
                        lambda d: divert_settings(owner(d, new.diverts), d), show_values)  # type: ignore[arg-type]
    ccs = _sections("cluster-connection", _first_by_name(old.cluster_connections),
                    _first_by_name(new.cluster_connections),
                    lambda c: cluster_settings(owner(c, new.cluster_connections), c),  # type: ignore[arg-type]
                    show_values)
    return ConfigDiff(routers, diverts, ccs)
