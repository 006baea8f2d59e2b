"""The rule registry: every rule family module in this package, and the schema rules.

Adding a rule is adding a module here (``RULES`` + ``check``) and its tests; ``docs/rules.md``
is generated from the metadata (``python -m artemis_routing_cli.rules.docs``).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from functools import lru_cache
from types import ModuleType

from ..config.gcpause import gc_paused
from ..config.model import BrokerConfig
from ..diagnostics import REFUSES, Diagnostic, RuleMeta, Severity
from .base import Context

_NOT_FAMILIES = {"base", "docs", "suppress"}

# Rules the validate engine itself raises (loading, suppressions).
ENGINE_RULES = [
    RuleMeta(
        id="AR001",
        name="unreadable-input",
        severity=Severity.ERROR,
        category="schema",
        broker=REFUSES,
        summary="The file cannot be read or parsed as broker.xml (malformed XML, entities, not a broker.xml).",
        doc="""\
Malformed XML, a file that is not a broker.xml or one arouter cannot read: the broker would stop at
start-up too. `arouter validate` exits with code 2 for such a file. Entity declarations
(`<!ENTITY`) are refused by arouter's own safety policy (XXE, entity expansion), not because the
broker refuses them: a broker started without `-Dartemis.disableXxe=true` reads them.""",
    ),
    RuleMeta(
        id="AR002",
        name="unused-suppression",
        severity=Severity.WARNING,
        category="style",
        summary="An `arouter: disable=` comment suppresses nothing.",
        doc="Remove the comment, or fix the rule id it names. Stale suppressions hide future problems.",
    ),
    RuleMeta(
        id="AR003",
        name="suppression-without-reason",
        severity=Severity.WARNING,
        category="style",
        summary="An `arouter: disable=` comment gives no reason.",
        doc="Write why the finding does not apply: `<!-- arouter: disable=AR305 shard 0 of 3 -->`.",
    ),
    RuleMeta(
        id="AR004",
        name="broker-loader-refuses",
        severity=Severity.ERROR,
        category="schema",
        broker=REFUSES,
        summary="Your own broker's loader (--broker-home, run in a JVM) refuses this file; its exception is quoted.",
        doc="""\
With `--broker-home DIR` (or `$ARTEMIS_HOME`) and Java on the PATH, `arouter validate` also runs that
installation's own classes on the file, as the broker does at start-up but without starting it: the
file deployment (`${}`, XInclude, the schema, `FileConfigurationParser`), the broker properties, then
every connection router as `ConnectionRouterManager` deploys it. When they throw, the broker would not
start: this finding quotes the exception, at the element it names where arouter can find it (else
the router, else the file's first line). Pools are built but not started (that would connect to the
targets); what their start throws without the network (a cluster pool whose cluster connection is not
deployed, a discovery pool whose group does not exist) is said from the configuration.""",
    ),
    RuleMeta(
        id="AR005",
        name="broker-disagrees",
        severity=Severity.ERROR,
        category="schema",
        summary="arouter's verdict and your own broker's loader differ on this file: a bug in arouter.",
        doc="""\
arouter's own model said the broker starts and the broker's loader refused the file, or the other way
round. The broker is right: please report the file (and the versions in the message) to arouter's
issue tracker. The finding's `broker` field is the broker's own verdict.""",
    ),
]


@lru_cache(maxsize=1)
def families() -> tuple[ModuleType, ...]:
    mods = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name in _NOT_FAMILIES:
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(mod, "RULES") and hasattr(mod, "check"):
            mods.append(mod)
    return tuple(mods)


def schema_rules() -> list[RuleMeta]:
    from ..config import fullschema_rules, schema

    return [*schema.SCHEMA_RULES, *fullschema_rules.BROKER_SCHEMA_RULES]


@lru_cache(maxsize=1)
def all_rules() -> dict[str, RuleMeta]:
    metas: dict[str, RuleMeta] = {m.id: m for m in ENGINE_RULES}
    for m in schema_rules():
        metas[m.id] = m
    for mod in families():
        for m in mod.RULES:
            if m.id in metas:
                raise RuntimeError(f"duplicate rule id {m.id}")
            metas[m.id] = m
    return dict(sorted(metas.items()))


def resolve_rule(name_or_id: str) -> RuleMeta | None:
    rules = all_rules()
    key = name_or_id.strip()
    if key.upper() in rules:
        return rules[key.upper()]
    for meta in rules.values():
        if meta.name == key:
            return meta
    return None


@gc_paused()
def run_rules(config: BrokerConfig, *, only: Iterable[str] | None = None) -> list[Diagnostic]:
    """Every semantic rule family over one config (schema excluded)."""
    ctx = Context(config, all_rules())
    wanted = set(only) if only is not None else None
    out: list[Diagnostic] = []
    for mod in families():
        if wanted is not None and not any(m.id in wanted for m in mod.RULES):
            continue
        out.extend(mod.check(ctx))
    if wanted is not None:
        out = [d for d in out if d.rule in wanted]
    return out
