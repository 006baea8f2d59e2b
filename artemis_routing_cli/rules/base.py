"""What a rule family module sees (:class:`Context`) and how it reports (:meth:`Context.report`).

A rule family is a module in ``artemis_routing_cli.rules`` with ``RULES: list[RuleMeta]`` and a
``check(ctx: Context) -> Iterator[Diagnostic]`` generator. No printing, no exit codes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import field
from typing import Any, TypeVar

from lxml import etree

from ..config.model import BrokerConfig
from ..config.positions import Pos
from ..diagnostics import Diagnostic, RuleMeta, Severity
from ..records import record
from ._util import WALK_READERS, raw_elements

T = TypeVar("T")


@record
class Context:
    config: BrokerConfig
    metas: dict[str, RuleMeta] = field(default_factory=dict)
    # what ``shared`` worked out, by function: one answer per Context (one run of the rules)
    answers: dict[Callable[..., Any], Any] = field(default_factory=dict, repr=False, compare=False)

    def shared(self, fn: Callable[[BrokerConfig], T]) -> T:
        """``fn(self.config)``, worked out once for all rule families: what several of them ask
        about the same config (a whole-tree scan, a set of names). The answer is shared: read it,
        never change it. The ``_util`` functions that find raw elements all read one walk over
        ``<core>`` (:func:`_util.raw_elements`), worked out once too."""
        answers = self.answers
        if fn in answers:
            return answers[fn]  # type: ignore[no-any-return]
        if fn in WALK_READERS:  # these read the elements of one shared walk over <core>
            value = answers[fn] = fn(self.config, self.shared(raw_elements))  # type: ignore[call-arg]
        else:
            value = answers[fn] = fn(self.config)
        return value

    @property
    def core(self) -> etree._Element:
        return self.config.core

    def locate(self, el: etree._Element) -> Pos:
        return self.config.locator.locate(el)

    def report(self, rule_id: str, pos: Pos | None, message: str, *, section: str | None = None,
               severity: Severity | None = None, hint: str | None = None, broker: str | None = None) -> Diagnostic:
        meta = self.metas[rule_id]
        file, line, column = (pos or self.config.pos).place()
        return Diagnostic(rule_id, severity or meta.severity, meta.category, message, file, line, column, section,
                          hint, broker or meta.broker)


CheckResult = Iterator[Diagnostic]
