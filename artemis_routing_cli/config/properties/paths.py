"""Property keys as the broker walks them (commons-beanutils' DefaultResolver, the broker's
SurroundResolver around it).

A key is read one step at a time: the step ends at the first ``.`` outside ``(...)`` and
``[...]``; a step that starts with the surround string (``"`` unless ``key.surround=`` says
otherwise) runs to the next surround string instead, so ``addressSettings."a.b.#".x`` has three
steps. ``name(KEY)`` is a mapped step (the entry named KEY, never created), ``name[3]`` an indexed
one. Pure functions over strings.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_SURROUND = '"'
DEFAULT_REMOVE = "-"
KEY_SURROUND = "key.surround"  # ActiveMQDefaultConfiguration.BROKER_PROPERTIES_KEY_SURROUND_PROPERTY
REMOVE_VALUE = "remove.value"  # ActiveMQDefaultConfiguration.BROKER_PROPERTIES_REMOVE_VALUE_PROPERTY


class PathError(ValueError):
    """A key the resolver cannot read (the broker records the line as an error and goes on)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a key: a property ``name``, or an entry (``mapped`` key, ``index``)."""

    text: str  # as written
    name: str  # the property name (surround removed)
    mapped: str | None = None
    index: int | None = None


def _next(expression: str) -> str:
    """DefaultResolver.next: the first step of ``expression``."""
    indexed = mapped = False
    for i, c in enumerate(expression):
        if indexed:
            if c == "]":
                return expression[:i + 1]
        elif mapped:
            if c == ")":
                return expression[:i + 1]
        elif c == ".":
            return expression[:i]
        elif c == "(":
            mapped = True
        elif c == "[":
            indexed = True
    return expression


def _surround_next(expression: str, surround: str) -> str:
    """SurroundResolver.next: a step starting with the surround string runs to the next one."""
    step = _next(expression)
    if surround and step.startswith(surround):
        rest = expression[expression.index(surround):]
        end = rest.find(surround, len(surround))
        return rest[:end + len(surround)] if end >= 0 else rest[:len(surround) - 1]
    return step


def _property(step: str, surround: str) -> str:
    if surround and len(step) >= 2 * len(surround) and step.startswith(surround) and step.endswith(surround):
        return step[len(surround):len(step) - len(surround)]
    for i, c in enumerate(step):
        if c in ".([":
            return step[:i]
    return step


def _parse_step(step: str, surround: str) -> Step:
    name = _property(step, surround)
    if surround and step.startswith(surround) and step.endswith(surround) and len(step) >= 2 * len(surround):
        return Step(step, name)
    for i, c in enumerate(step):
        if c in ".[":
            if c == "[":
                end = step.find("]", i)
                if end < 0:
                    raise PathError(f"missing ']' in {step!r}")
                text = step[i + 1:end]
                try:
                    index = int(text) if text.lstrip("-").isdigit() and text.isascii() else None
                except ValueError:
                    index = None
                if index is None:
                    raise PathError(f"invalid index value {text!r} in {step!r}")
                return Step(step, name, index=index)
            break
        if c == "(":
            end = step.find(")", i)
            if end < 0:
                raise PathError(f"missing ')' in {step!r}")
            return Step(step, name, mapped=step[i + 1:end])
    return Step(step, name)


def split_key(key: str, surround: str = DEFAULT_SURROUND) -> list[Step]:
    """Every step of ``key`` (the last one is the property to set)."""
    steps: list[Step] = []
    rest = key
    while True:
        step = _surround_next(rest, surround)
        steps.append(_parse_step(step, surround))
        if len(step) >= len(rest):
            return steps
        start = len(step)
        if rest[start] == ".":
            start += 1
        rest = rest[start:]
        if not rest:
            steps.append(Step("", ""))
            return steps
