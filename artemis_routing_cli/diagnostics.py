"""The one problem type every checker (schema, rules) yields and every report format prints."""

from __future__ import annotations

from enum import Enum

from .records import record


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


CATEGORIES = ("schema", "reference", "semantics", "security", "style")

# What the broker does with the thing a finding is about: its verdict (docs/fidelity.md, "The
# deploy verdict"). Every finding carries one; ``arouter.verdict`` turns them into the broker's
# answer for a whole config, which simulate, serve and analyze obey.
REFUSES = "refuses-to-start"  # the broker stops at start-up: no router of this config is deployed
SKIPS = "logs-and-skips"  # the broker starts, logs a line and leaves the named thing out
DEPLOYS = "deploys"  # the broker starts and uses the config as written; the finding is advice
BROKER_VERDICTS = (REFUSES, SKIPS, DEPLOYS)
VERDICT_TEXT = {REFUSES: "broker: refuses to start", SKIPS: "broker: logs and skips", DEPLOYS: "broker: deploys"}


@record(frozen=True, slots=True)
class Diagnostic:
    """One finding about one place in one file."""

    rule: str
    severity: Severity
    category: str
    message: str
    file: str
    line: int
    column: int
    section: str | None = None
    hint: str | None = None
    broker: str = DEPLOYS  # REFUSES, SKIPS or DEPLOYS

    def __post_init__(self) -> None:
        # One finding, one line: text quoted from the file (an element's content, a filter)
        # may hold line breaks; show them escaped so every report format stays line-based.
        message, hint = self.message, self.hint
        if message is not None and ("\n" in message or "\r" in message):
            object.__setattr__(self, "message", _one_line(message))
        if hint is not None and ("\n" in hint or "\r" in hint):
            object.__setattr__(self, "hint", _one_line(hint))

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.file, self.line, self.column, self.rule)


def _one_line(text: str) -> str:
    return text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")


@record(frozen=True, slots=True)
class RuleMeta:
    """What a rule is, for the registry, SARIF metadata and docs/rules.md.

    ``id`` is stable forever (AR1xx schema, AR2xx references, AR3xx routers/policies/pools,
    AR4xx security, AR5xx diverts and filters, AR6xx cluster connections, AR7xx properties and
    loading); ``name`` is a short kebab-case slug usable in suppressions too.
    """

    id: str
    name: str
    severity: Severity
    category: str
    summary: str
    doc: str = ""
    fail: str = ""  # a <core> fragment on which the rule fires (documented and tested)
    ok: str = ""  # the same fragment, fixed: the rule stays quiet
    broker: str = DEPLOYS  # the broker's verdict on this rule's findings unless a finding says otherwise
