"""What a rule family module sees (:class:`Context`) and how it reports (:meth:`Context.report`).

A rule family is a module in ``artemis_routing_cli.rules`` with ``RULES: list[RuleMeta]`` and a
``check(ctx: Context) -> Iterator[Diagnostic]`` generator. No printing, no exit codes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import field

from lxml import etree

from ..config.model import BrokerConfig
from ..config.positions import Pos
from ..diagnostics import Diagnostic, RuleMeta, Severity
from ..records import record


@record
class Context:
    config: BrokerConfig
    metas: dict[str, RuleMeta] = field(default_factory=dict)

    @property
    def core(self) -> etree._Element:
        return self.config.core

    def locate(self, el: etree._Element) -> Pos:
        return self.config.locator.locate(el)

    def report(self, rule_id: str, pos: Pos | None, message: str, *, section: str | None = None,
               severity: Severity | None = None, hint: str | None = None, broker: str | None = None) -> Diagnostic:
        meta = self.metas[rule_id]
        where = pos or self.config.pos
        return Diagnostic(
            rule=rule_id,
            severity=severity or meta.severity,
            category=meta.category,
            message=message,
            file=where.file,
            line=where.line,
            column=where.column,
            section=section,
            hint=hint,
            broker=broker or meta.broker,
        )


CheckResult = Iterator[Diagnostic]
