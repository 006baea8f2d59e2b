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


def test_suppressions_found_from_the_text_are_those_of_the_walk(tmp_path: object) -> None:
    """With the parsed text given, a document without ``arouter:`` anywhere is not walked, and one
    with it gets the suppressions the walk over every comment finds (same ones, same order)."""
    from pathlib import Path

    from artemis_routing_cli.config import LoadOptions, load_document
    from artemis_routing_cli.rules.suppress import find_suppressions

    body = ['<!-- plain -->', '<!-- arouter: disable=AR201 first -->', '<!--arouter:disable-file=AR305-->',
            '<!-- not arouter: disable=AR201 -->', '<!-- arouter : disable=AR201 -->', '<name>arouter:</name>',
            '<!-- arouter: disable=AR201,policy-pool-mismatch two words -->']
    rnd = random.Random(3)
    seen = {True: 0, False: 0}
    for n in range(150):
        parts = rnd.sample(body, rnd.randint(0, len(body)))
        path = Path(str(tmp_path)) / f"b{n}.xml"
        path.write_text('<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">'
                        + "\n".join(parts) + "<acceptors/></core></configuration>", encoding="utf-8")
        doc = load_document(str(path), LoadOptions({}, None, None))
        assert doc.locator.verbatim_text is not None
        walked = find_suppressions(doc.root, doc.locator.locate, _normalise)
        read = find_suppressions(doc.root, doc.locator.locate, _normalise, text=doc.locator.verbatim_text)
        assert [(s.rules, s.reason, s.first_line, s.last_line, s.file_wide) for s in read] == \
            [(s.rules, s.reason, s.first_line, s.last_line, s.file_wide) for s in walked]
        seen["arouter:" in doc.locator.verbatim_text] += 1
    assert seen[True] and seen[False]
