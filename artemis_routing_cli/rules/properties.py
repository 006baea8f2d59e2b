"""Properties (AR701, AR705): what the broker substitutes for `${name}` / `${name:default}`.

Before anything else the broker replaces every `${name}` / `${name:default}` in the raw text
(comments included): system property, then environment variable, then the default, then,
silently, the empty string. Name and default are trimmed with Java's `String.trim`.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..config.positions import Pos
from ..diagnostics import REFUSES, Diagnostic, RuleMeta, Severity
from .base import Context

RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR701",
        name="property-empty",
        severity=Severity.WARNING,
        category="semantics",
        summary="A `${name}` with no system property, environment variable or default became the empty string.",
        doc="""\
The broker does not complain about an unresolved `${name}`: it substitutes the empty string,
and the damage shows up later: `tcp://0.0.0.0:${port}` becomes `tcp://0.0.0.0:`, whose port is
-1 (not 61616), so the acceptor cannot listen; a password becomes empty.
Give a default (`${name:value}`), or pass the value to `arouter validate` with `-D name=value`
as the broker would get it.""",
        fail="""<acceptors>
  <acceptor name="artemis">tcp://0.0.0.0:${arouter.test.unset.port}</acceptor>
</acceptors>""",
        ok="""<acceptors>
  <acceptor name="artemis">tcp://0.0.0.0:${arouter.test.unset.port:61616}</acceptor>
</acceptors>""",
    ),
    RuleMeta(
        id="AR705",
        name="property-name-empty",
        severity=Severity.ERROR,
        category="semantics",
        broker=REFUSES,
        summary="A `${}`, `${ }` or `${:default}`: the broker looks up the empty name and does not start.",
        doc="""\
The name is what is left before the first `:` after trimming; when nothing is left the broker
calls `System.getProperty("")`, which throws "key can't be empty", and it does not start. This
happens wherever the text appears, comments included (substitution runs on the raw file before
it is parsed) and again on every text node after parsing, so `$&#123;}` fails too. A default does
not help. Fix the name, or keep a literal `${}` apart with a CDATA edge: `<![CDATA[$]]>{}`.""",
        fail="""<acceptors>
  <acceptor name="artemis">tcp://0.0.0.0:${:61616}</acceptor>
</acceptors>""",
        ok="""<acceptors>
  <acceptor name="artemis">tcp://0.0.0.0:${port:61616}</acceptor>
</acceptors>""",
    ),
]

def check(ctx: Context) -> Iterator[Diagnostic]:
    seen: set[tuple[str, str]] = set()
    for use in ctx.config.properties:
        if use.source not in ("empty", "invalid") or (use.token, use.file) in seen:
            continue
        seen.add((use.token, use.file))
        pos = Pos(use.file, use.line, use.column)
        if use.source == "invalid":
            yield ctx.report("AR705", pos, f"{use.token} has an empty name: System.getProperty(\"\") throws and the "
                             "broker does not start", hint="write a name, e.g. ${port:61616}")
        else:
            yield ctx.report("AR701", pos,
                             f"{use.token} has no system property, environment variable or default: the broker "
                             "substitutes the empty string", hint=f"give a default (${{{use.name}:...}}) or pass "
                             f"-D {use.name}=...")
