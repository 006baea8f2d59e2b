"""``${name}`` / ``${name:default}`` substitution, exactly as the broker's XMLUtil does it.

The broker repeats, while the text contains ``${``: take the first ``${``, the first ``}`` after it,
split the inside at the first ``:`` (both parts trimmed), look the name up in JVM system
properties, then environment variables, then the default, then the empty string, and replace
*every* occurrence of that exact token. A value that itself contains ``${`` is expanded again
(the broker would loop forever on a self-reference; we stop and say so). Trimming is Java's
``String.trim`` (a no-break space stays part of the name). An empty name (``${}``, ``${ }``,
``${:x}``) makes ``System.getProperty("")`` throw: the broker does not start. It is recorded with
source ``invalid`` (and replaced by the empty string so that checking can go on).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import ConfigError
from ..javastr import java_trim

# A value that keeps producing new tokens is a loop in the broker; we give up after this many
# replacements in one text (far more than any real broker.xml holds).
MAX_REPLACEMENTS = 10_000
INVALID = "invalid"  # the source of a token with an empty name


@dataclass(frozen=True, slots=True)
class Lookup:
    """Where ``${}`` values come from: ``-D``/``--property`` values, then the environment."""

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


@dataclass(frozen=True, slots=True)
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


def substitute(text: str, lookup: Lookup, *, file: str = "<input>") -> tuple[str, list[Replacement]]:
    """Substitute like ``XMLUtil.replaceSystemPropsInString``; report every token replaced."""
    done: list[Replacement] = []
    original = text
    while "${" in text:
        start = text.find("${")
        end = text.find("}", start) + 1
        if end <= 0:
            break
        token = text[start:end]
        name, default = split_token(token)
        value, source = lookup.resolve(name, default)
        offset = original.find(token)
        done.append(Replacement(token, name, default, value, source, offset if offset >= 0 else start))
        if len(done) > MAX_REPLACEMENTS or token in value:
            line = original.count("\n", 0, max(offset, 0)) + 1
            raise ConfigError(
                f"property {name!r} expands to text that contains {token} again; "
                "the broker would loop forever on this",
                file=file,
                line=line,
                column=1,
            )
        text = text.replace(token, value)
    return text, done
