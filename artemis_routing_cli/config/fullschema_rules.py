"""The rule of the whole-file check against the user's own broker (:mod:`.fullschema`), apart from it so
that the rule registry (every ``validate``) does not import the check itself."""

from __future__ import annotations

from ..diagnostics import REFUSES, RuleMeta, Severity

BROKER_SCHEMA_RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR107",
        name="broker-schema",
        severity=Severity.ERROR,
        category="schema",
        broker=REFUSES,
        summary="Outside the routing sections, broker.xml breaks the schema of your own broker (--broker-home).",
        doc="""\
With `--broker-home DIR` (or `$ARTEMIS_HOME`), `arouter validate` checks the whole `<core>`, as the
broker does before it reads anything, against the schema inside that installation's
`artemis-server` jar. A typo anywhere (`<jornal-type>`, `<persistance-enabled>`), an element the
version does not know yet, or a value its schema refuses stops the broker with a bare "Invalid
configuration"; this rule names the element and where it is.

Without a broker home only the sections arouter models (acceptors, connectors, broadcast and
discovery groups, diverts, cluster connections, connection routers) are checked, and the report says so.

**FAIL** (with `--broker-home`)
```xml
<jornal-type>NIO</jornal-type>
```

**PASS**
```xml
<journal-type>NIO</journal-type>
```""",
    ),
]
