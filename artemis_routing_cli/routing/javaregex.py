"""Java regular expressions, evaluated in Python exactly as the broker's java.util.regex does.

The broker applies a connection router's ``key-filter`` with
``Pattern.compile(f).matcher(value).find()`` (the key becomes group 0 of the first match) and its
``local-target-filter`` with ``Pattern.compile(f).matcher(key).matches()``. :func:`compile_java`
translates the Java pattern into one for the ``regex`` package with Java's meaning kept:

- classes, ``\\p{..}`` properties (POSIX, categories, scripts, blocks, ``javaXxx``) and
  ``\\w \\d \\s \\h \\v`` become explicit code-point sets built from the JVM's own Unicode data
  (Java 17, Unicode 13), so they are ASCII-only where Java's are;
- ``.``, ``^``, ``$``, ``\\Z`` use Java's line terminators (``\\n \\r \\u0085 \\u2028 \\u2029``, ``\\r\\n``
  as one), with ``(?d)``, ``(?m)`` and ``(?s)``;
- ``(?i)`` is ASCII-only unless ``(?u)``; ``(?U)`` makes classes Unicode; flags are scoped as Java
  scopes them; ``\\Q..\\E``, nested classes, ``&&``, possessive and atomic forms are supported;
- ``\\b`` is Java 17's (Unicode letters and digits, non-spacing marks after a base character).

A construct that cannot be reproduced exactly raises :class:`JavaRegexError` naming it and its
index; so does any pattern Java itself rejects, with Java's PatternSyntaxException description
and index.
"""

from __future__ import annotations

import functools
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from artemis_routing_cli.errors import ArouterError
from artemis_routing_cli.routing._javaregex_parser import Parser, SyntaxProblem, TranslationError

if TYPE_CHECKING:
    import regex

    from artemis_routing_cli.routing._javaregex_parser import Result

# Seconds one find()/matches() may take before it raises TimeoutError; None (the default) is no limit.
# ``serve`` sets it around its routing so one catastrophic pattern cannot stall its event loop.
MATCH_TIMEOUT: ContextVar[float | None] = ContextVar("MATCH_TIMEOUT", default=None)

__all__ = ["JavaPattern", "JavaRegexError", "check_java", "compile_java", "portability_notes"]


class JavaRegexError(ArouterError):
    """A Java regex that Java rejects, or that cannot be evaluated exactly in Python.

    ``construct`` names the construct that has no faithful translation (None for a syntax error);
    ``index`` is the position in the pattern, counted like Java's PatternSyntaxException.getIndex().
    """

    def __init__(
        self,
        message: str,
        *,
        construct: str | None = None,
        index: int | None = None,
        pattern: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.construct = construct
        self.index = index
        self.pattern = pattern


def _join_surrogates(text: str) -> str:
    """A Java string's surrogate pairs are one code point; make a Python str agree."""
    for ch in text:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return text


@dataclass(frozen=True)
class JavaPattern:
    """A compiled Java pattern.

    ``source`` is the Java pattern as written; ``python`` the equivalent pattern for the ``regex``
    package (compiled with ``flags``).
    """

    source: str
    python: str
    flags: int = 0
    notes: tuple[str, ...] = ()
    #: Java 17 steps such a pattern's look-behind in UTF-16 units: texts with non-BMP characters
    #: (emoji) are refused rather than answered differently.
    bmp_text_only: bool = False
    _compiled: regex.Pattern[str] | None = field(default=None, repr=False, compare=False)

    def _regex(self) -> regex.Pattern[str]:
        if self._compiled is not None:
            return self._compiled
        import regex

        return regex.compile(self.python, self.flags)

    def _text(self, text: str) -> str:
        text = _join_surrogates(text)
        if self.bmp_text_only and any(ord(ch) > 0xFFFF for ch in text):
            raise JavaRegexError(
                f"Java regex {self.source!r} has a look-behind that Java 17 evaluates in UTF-16 units; its "
                "answer for a text with characters beyond U+FFFF (such as emoji) cannot be reproduced",
                construct="look-behind", index=None, pattern=self.source,
            )
        return text

    def find(self, text: str) -> str | None:
        """``Matcher.find()`` from the start: group 0 of the first match, or None."""
        m = self._regex().search(self._text(text), timeout=MATCH_TIMEOUT.get())
        return None if m is None else m.group(0)

    def matches(self, text: str) -> bool:
        """``Matcher.matches()``: does the whole text match."""
        return self._regex().fullmatch(self._text(text), timeout=MATCH_TIMEOUT.get()) is not None


@functools.lru_cache(maxsize=512)
def _parse(pattern: str) -> Result:
    """Java's verdict on ``pattern`` and its translation (no ``regex`` import: validate needs no more)."""
    try:
        return Parser(pattern).parse()
    except SyntaxProblem as exc:
        raise JavaRegexError(
            f"invalid Java regex {pattern!r}: {exc.description} near index {exc.index}",
            index=exc.index,
            pattern=pattern,
        ) from None
    except TranslationError as exc:
        raise JavaRegexError(
            f"Java regex {pattern!r} uses {exc.construct} at index {exc.index}: {exc.why}",
            construct=exc.construct,
            index=exc.index,
            pattern=pattern,
            hint="rewrite the pattern without it",
        ) from None
    except RecursionError:
        raise JavaRegexError(
            f"Java regex of {len(pattern):,} characters nests its groups too deeply for arouter to check",
            construct="nesting",
            index=0,
            pattern=pattern,
            hint="nest fewer groups",
        ) from None


def check_java(pattern: str) -> tuple[str, ...]:
    """Raise :class:`JavaRegexError` where :func:`compile_java` would; else the pattern's portability notes.

    The same parse as :func:`compile_java`, without compiling the translation (a translation the
    ``regex`` package refused would be a bug of arouter's, not a problem of the pattern).
    """
    return tuple(_parse(pattern).notes)


@functools.lru_cache(maxsize=512)
def compile_java(pattern: str) -> JavaPattern:
    """Compile a Java regex (as ``Pattern.compile(pattern)`` with no flags) for use in Python.

    Raises :class:`JavaRegexError` when Java would reject the pattern or when it uses a construct
    that cannot be evaluated exactly.
    """
    import regex

    result = _parse(pattern)
    flags = regex.V0 | (regex.ASCII if result.needs_ascii else 0)
    try:
        compiled = regex.compile(result.python, flags)
    except (regex.error, RecursionError, OverflowError) as exc:  # pragma: no cover - a translator bug
        raise JavaRegexError(
            f"Java regex {pattern!r} could not be translated for Python: {exc}",
            construct="pattern",
            index=0,
            pattern=pattern,
        ) from None
    return JavaPattern(source=pattern, python=result.python, flags=flags, notes=tuple(result.notes),
                       bmp_text_only=result.utf16_lookbehind, _compiled=compiled)


def portability_notes(pattern: str) -> list[str]:
    """Plain-English notes on constructs of ``pattern`` whose meaning differs between Java and other
    engines (Python's re, JavaScript, other Java versions). Empty when nothing is notable.

    A pattern that does not compile gives no notes (:func:`compile_java` reports the error).
    """
    try:
        return list(check_java(pattern))
    except JavaRegexError:
        return []
