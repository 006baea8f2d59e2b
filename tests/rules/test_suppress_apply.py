"""``apply_suppressions`` gives what asking every suppression about every finding gives."""

from __future__ import annotations

import copy
import random

from artemis_routing_cli.config.positions import Pos
from artemis_routing_cli.diagnostics import Diagnostic, Severity
from artemis_routing_cli.linting import _normalise
from artemis_routing_cli.rules.suppress import Suppression, apply_suppressions


def _brute(diags: list[Diagnostic], sups: list[Suppression]) -> list[Diagnostic]:
    kept = []
    for d in diags:
        hit = False
        for s in sups:
            if s.covers(d, _normalise):
                s.used = hit = True
        if not hit:
            kept.append(d)
    return kept


def test_same_findings_kept_and_same_suppressions_used() -> None:
    rnd = random.Random(7)
    rules = ["AR201", "AR305", "AR402", "AR999", "ar305"]
    names = ["AR201", "AR305", "policy-pool-mismatch", "pool-password-plaintext", "AR999", "ar305", "nonsense"]
    files = ["a.xml", "b.xml"]
    for _ in range(200):
        diags = [Diagnostic(rnd.choice(rules), Severity.WARNING, "x", "m", rnd.choice(files), rnd.randint(1, 30), 1)
                 for _ in range(rnd.randint(0, 25))]
        sups = []
        for _ in range(rnd.randint(0, 6)):
            first = rnd.randint(1, 30)
            file = rnd.choice(files)
            chosen = {_normalise(n) for n in rnd.sample(names, rnd.randint(1, 3))}
            sups.append(Suppression(frozenset(chosen), "", Pos(file, first, 1), file, first,
                                    first + rnd.randint(0, 5), rnd.random() < 0.2))
        mine = copy.deepcopy(sups)
        assert apply_suppressions(diags, mine, _normalise) == _brute(diags, sups)
        assert [s.used for s in mine] == [s.used for s in sups]
