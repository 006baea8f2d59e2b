"""Every pattern jregex/plain.py answers for is one the JDK here compiles (``Pattern.compile``).

Seeded random patterns of the plain subset's grammar, and the same patterns with a character
changed, inserted or dropped (many of which Java rejects), go to a small Java program of this test;
the quick answer must never take a pattern Java rejects. (That its notes equal the parser's is in
test_javaregex_plain.py; the parser itself is checked against the JDK in test_javaregex_oracle.py.)
"""

from __future__ import annotations

import random

from artemis_routing_cli.jregex.plain import plain_notes
from tests.javarun import run_java

COMPILE = """
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.regex.*;

public class PlainCompile {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            try {
                Pattern.compile(line);
                out.append("ok\\n");
            } catch (PatternSyntaxException e) {
                out.append("error ").append(e.getDescription()).append('\\n');
            }
        }
        System.out.print(out);
    }
}
"""

LITERALS = "abzAZ09_-:/# @~'\"&,<>=%!;`"
ESCAPES = [".", "-", "\\", "(", ")", "[", "]", "{", "}", "*", "+", "?", "|", "^", "$", "/", " ", "d", "D", "s",
           "S", "w", "W"]
FLAGS = ["", "i", "m", "s", "d", "im", "i-s", "-i", "sd-m"]
NOISE = "\\^$.|?*+()[]{}-,:0123456789azAZ&#xUuc"


def _class(rng: random.Random) -> str:
    items = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.4:
            items.append("-".join(sorted(rng.sample("09AZaz", 2))))
        elif kind < 0.7:
            items.append(rng.choice(LITERALS.replace("-", "").replace("&", "")))
        else:
            items.append("\\" + rng.choice(ESCAPES))
    return rng.choice(["[", "[^"]) + rng.choice(["", "-"]) + "".join(items) + rng.choice(["", "-"]) + "]"


def _quantifier(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return ""
    low = rng.randint(0, 12)
    body = rng.choice(["*", "+", "?", f"{{{low}}}", f"{{{low},}}", f"{{{low},{low + rng.randint(0, 5)}}}"])
    return body + rng.choice(["", "", "?"])


def _sequence(rng: random.Random, depth: int) -> str:
    parts = []
    for _ in range(rng.randint(0, 5)):
        kind = rng.random()
        if kind < 0.1:
            parts.append(rng.choice("|^$"))
        elif kind < 0.15:
            parts.append(f"(?{rng.choice(FLAGS)})")
        elif kind < 0.3 and depth < 4:
            opener = rng.choice(["(", "(?:", f"(?{rng.choice(FLAGS)}:"])
            parts.append(opener + _sequence(rng, depth + 1) + ")" + _quantifier(rng))
        else:
            atom = rng.choice([rng.choice(LITERALS), "\\" + rng.choice(ESCAPES), ".", _class(rng)])
            parts.append(atom + _quantifier(rng))
    return "".join(parts)


def _patterns(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        pattern = _sequence(rng, 0)
        out.append(pattern)
        if pattern:
            at = rng.randrange(len(pattern))
            out.append(pattern[:at] + rng.choice(NOISE) + pattern[at + 1:])
            out.append(pattern[:at] + rng.choice(NOISE) + pattern[at:])
            out.append(pattern[:at] + pattern[at + 1:])
    return out


def test_every_pattern_taken_is_compiled_by_the_jdk(tmp_path) -> None:
    patterns = [p for p in dict.fromkeys(_patterns(21, 1500)) if p and "\n" not in p]
    answers = run_java(tmp_path, COMPILE, "".join(p + "\n" for p in patterns)).splitlines()
    assert len(answers) == len(patterns)
    taken = [(p, a) for p, a in zip(patterns, answers, strict=True) if plain_notes(p) is not None]
    assert [(p, a) for p, a in taken if a != "ok"] == []
    # the comparison saw many patterns taken, and many Java rejects (none of them taken)
    assert len(taken) > 1500
    assert sum(a != "ok" for a in answers) > 500
