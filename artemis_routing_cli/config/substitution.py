"""``${name}`` / ``${name:default}`` substitution, exactly as the broker's XMLUtil does it.

The broker repeats, while the text contains ``${``: take the first ``${``, the first ``}`` after it,
split the inside at the first ``:`` (both parts trimmed), look the name up in JVM system
properties, then environment variables, then the default, then the empty string, and replace
*every* occurrence of that exact token. A value that itself contains ``${`` is expanded again
(the broker would loop forever on a self-reference; we stop and say so).

arouter does the same in linear time: one left-to-right pass with each token looked up once, which
is exactly the broker's result whenever no token holds another ``${`` and no value holds ``$``,
``{`` or ``}`` (nothing new can then appear). Otherwise it repeats the broker's loop step by step,
bounded: text that grows past :data:`MAX_EXPANDED_CHARS` (properties that expand each other,
``a1=${a0}${a0}``...) or more than :data:`MAX_REPLACEMENTS` steps stop with an error naming the
property. Trimming is Java's
``String.trim`` (a no-break space stays part of the name). An empty name (``${}``, ``${ }``,
``${:x}``) makes ``System.getProperty("")`` throw: the broker does not start. It is recorded with
source ``invalid`` (and replaced by the empty string so that checking can go on).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..errors import ConfigError
from ..javastr import java_trim
from ..records import record

# Steps of the broker's loop arouter repeats when values hold new tokens (each step is one pass
# over the text): far more than any real broker.xml needs.
MAX_REPLACEMENTS = 10_000
# Text that grows past this many characters while substituting (properties that expand each
# other grow exponentially) is refused: the largest broker.xml arouter reads is 32 MiB.
MAX_EXPANDED_CHARS = 32 << 20
# Characters the step-by-step loop may pass over in all (each step reads the rest of the text):
# bounds its time to a few seconds whatever the file.
MAX_LOOP_WORK = 256 << 20
INVALID = "invalid"  # the source of a token with an empty name

_TOKEN = re.compile(r"\$\{[^}]*\}")
_UNSAFE_VALUE = re.compile(r"[${}]")


@record(frozen=True, slots=True)
class Lookup:
    """Where ``${}`` values come from: ``-D``/``--define`` values, then the environment."""

    properties: Mapping[str, str]
    environ: Mapping[str, str]
    consider_env: bool = True

    def resolve(self, name: str, default: str | None) -> tuple[str, str]:
        """Return (value, source) with source one of property, env, default, empty, invalid."""
        if not name:
            return "", INVALID  # System.getProperty("") throws IllegalArgumentException
        if name in self.properties:
            return self.properties[name], "property"
        if self.consider_env and name in self.environ:
            return self.environ[name], "env"
        if default is not None:
            return default, "default"
        return "", "empty"


@record(frozen=True, slots=True)
class Replacement:
    token: str
    name: str
    default: str | None
    value: str
    source: str
    offset: int  # offset of the first occurrence in the text being substituted


def split_token(token: str) -> tuple[str, str | None]:
    inner = java_trim(token[2:-1])
    if ":" in inner:
        name, default = inner.split(":", 1)
        return java_trim(name), java_trim(default)
    return inner, None


# "${" found by the regex engine's literal search: on a large text it is about three times quicker
# than ``"${" in text``, which tries the two-character needle at every position.
_OPENING = re.compile(r"\$\{")


def has_opening(text: str) -> bool:
    """``"${" in text``, quickly on a large text: no '$' (one character: found at memchr's pace) or
    no match of the literal pattern."""
    return "$" in text and _OPENING.search(text) is not None


def substitute(text: str, lookup: Lookup, *, file: str = "<input>") -> tuple[str, list[Replacement]]:
    """Substitute like ``XMLUtil.replaceSystemPropsInString``; report every token replaced."""
    if not has_opening(text):
        return text, []
    fast = _one_pass(text, lookup)
    if fast is not None:
        return fast
    return _broker_loop(text, lookup, file)


def _one_pass(text: str, lookup: Lookup) -> tuple[str, list[Replacement]] | None:
    """The broker's result in one pass, or None when a token or a value could make new tokens."""
    seen: dict[str, Replacement] = {}
    unsafe = False

    def one(m: re.Match[str]) -> str:
        nonlocal unsafe
        token = m.group()
        rep = seen.get(token)
        if rep is None:
            if "${" in token[2:]:
                unsafe = True
            name, default = split_token(token)
            value, source = lookup.resolve(name, default)
            if _UNSAFE_VALUE.search(value):
                unsafe = True
            rep = seen[token] = Replacement(token, name, default, value, source, m.start())
        return rep.value

    out = _TOKEN.sub(one, text)
    if unsafe:
        return None
    return out, list(seen.values())


def _broker_loop(text: str, lookup: Lookup, file: str) -> tuple[str, list[Replacement]]:
    """The broker's loop step by step (only where values make new tokens), bounded in steps and size."""
    done: list[Replacement] = []
    original = text
    start = 0
    work = 0
    line, root = 1, ""
    while True:
        start = text.find("${", max(start - 1, 0))
        if start < 0:
            break
        end = text.find("}", start) + 1
        if end <= 0:
            break
        token = text[start:end]
        name, default = split_token(token)
        value, source = lookup.resolve(name, default)
        offset = original.find(token)
        done.append(Replacement(token, name, default, value, source, offset if offset >= 0 else start))
        if offset >= 0:  # a token of the text itself (not one a value brought in): errors are reported there
            line = original.count("\n", 0, offset) + 1
            root = "" if value == "" else f" (in the value of {token})"
        if token in value:
            raise ConfigError(
                f"property {name!r} expands to text that contains {token} again; "
                "the broker would loop forever on this",
                file=file, line=line, column=1,
            )
        work += len(text) - start
        if len(done) > MAX_REPLACEMENTS or work > MAX_LOOP_WORK:
            raise ConfigError(
                f"more than {MAX_REPLACEMENTS:,} ${{}} replacements whose values hold new tokens "
                f"(arouter's limit; the last was {token})", file=file, line=line, column=1,
            )
        # Every occurrence starts with "${" and none is before the first one: replace in the rest.
        count = text.count(token, start)
        if len(text) + count * (len(value) - len(token)) > MAX_EXPANDED_CHARS:
            raise ConfigError(
                f"property {name!r}{root} makes the text grow past {MAX_EXPANDED_CHARS:,} characters "
                "(properties that expand each other grow exponentially)", file=file, line=line, column=1,
            )
        text = text[:start] + text[start:].replace(token, value)
    return text, done
