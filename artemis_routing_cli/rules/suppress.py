"""Inline suppressions: ``<!-- arouter: disable=AR305,AR402 reason why -->``.

A suppression comment applies to the element that follows it (its whole subtree), or to the
element it closes when nothing follows it. ``disable-file=`` applies to the whole file.
Suppressions that suppress nothing are reported (AR002), and so are those without a reason (AR003).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from lxml import etree

from ..config.positions import Pos
from ..diagnostics import Diagnostic
from ..records import record

_DIRECTIVE = re.compile(r"^\s*arouter:\s*(disable|disable-file)\s*=\s*([A-Za-z0-9_,\- ]*?[A-Za-z0-9])(?:\s+(.*?))?\s*$",
                        re.DOTALL)
_MARK = "arouter:"  # in every comment _DIRECTIVE matches


@record
class Suppression:
    rules: frozenset[str]  # rule ids (upper case) or names
    reason: str
    pos: Pos
    file: str
    first_line: int
    last_line: int  # inclusive; whole file when file_wide
    file_wide: bool
    used: bool = False

    def covers(self, d: Diagnostic, ids_for: Callable[[str], str]) -> bool:
        if d.file != self.file:
            return False
        if ids_for(d.rule) not in self.rules and d.rule not in self.rules:
            return False
        return self.file_wide or self.first_line <= d.line <= self.last_line


def _last_line(el: etree._Element) -> int:
    last = el.sourceline or 0
    for d in el.iter():
        if d.sourceline and d.sourceline > last:
            last = d.sourceline
    return last


def find_suppressions(root: etree._Element, locate: Callable[[etree._Element], Pos],
                      normalise: Callable[[str], str], *, text: str | None = None) -> list[Suppression]:
    """The suppression comments under ``root``. ``text``: the text the tree was parsed from when it
    says exactly what the tree does (``Locator.verbatim_text``): every comment is a piece of it, so
    without ``arouter:`` in it there is none to find (and no walk over every node)."""
    if text is not None and _MARK not in text:
        return []
    found: list[Suppression] = []
    for comment in root.iter(etree.Comment):
        m = _DIRECTIVE.match(comment.text or "")
        if not m:
            continue
        kind, names, reason = m.group(1), m.group(2), (m.group(3) or "").strip()
        rules = frozenset(normalise(n) for n in re.split(r"[,\s]+", names) if n)
        pos = locate(comment)
        target = comment.getnext()
        while target is not None and not isinstance(target.tag, str):
            target = target.getnext()
        if kind == "disable-file":
            found.append(Suppression(rules, reason, pos, pos.file, 1, 1 << 30, True))
            continue
        scope = target if target is not None else comment.getparent()
        if scope is None:
            continue
        found.append(Suppression(rules, reason, pos, pos.file, scope.sourceline or pos.line, _last_line(scope),
                                 False))
    return found


def apply_suppressions(diags: Iterable[Diagnostic], sups: list[Suppression],
                       normalise: Callable[[str], str]) -> list[Diagnostic]:
    """The findings no suppression covers; every suppression that covers one is marked ``used``.

    Same answer as asking :meth:`Suppression.covers` of every pair, without asking every pair:
    each finding is only compared with the suppressions that name its rule.
    """
    if not sups:
        return list(diags)  # nothing to cover: every finding kept (no look at each)
    by_name: dict[str, list[Suppression]] = {}
    for s in sups:
        for name in s.rules:
            by_name.setdefault(name, []).append(s)
    ids: dict[str, str] = {}
    kept: list[Diagnostic] = []
    for d in diags:
        rule = d.rule
        rule_id = ids.get(rule)
        if rule_id is None:
            rule_id = ids[rule] = normalise(rule)
        candidates = by_name.get(rule_id, [])
        if rule != rule_id and rule in by_name:
            candidates = candidates + by_name[rule]
        hit = False
        for s in candidates:
            if d.file == s.file and (s.file_wide or s.first_line <= d.line <= s.last_line):
                s.used = True
                hit = True
        if not hit:
            kept.append(d)
    return kept
