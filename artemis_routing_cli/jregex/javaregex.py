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

That translation is exact on texts of BMP characters. Java walks a String in UTF-16 units, so a
text with a supplementary character (an emoji) or a lone surrogate, and the constructs the
translation cannot express (``\\X``, ``\\b{g}``, classes under ``(?c)``, some look-behinds and
back-references), run on :mod:`_javaregex_match`, a matcher with java.util.regex's own node
semantics over UTF-16 units. The answers are Java 17's (OpenJDK 17: Unicode 13, its grapheme rules).

A pattern Java rejects raises :class:`JavaRegexError` with Java's PatternSyntaxException
description and index; a text on which the matcher would need more than its step budget (Java
would backtrack for as long) raises it too, naming the pattern.
"""

from __future__ import annotations

import functools
import re
from dataclasses import field
from typing import TYPE_CHECKING

from artemis_routing_cli.errors import ArouterError
from artemis_routing_cli.jregex._javaregex_match import JavaThrows, Program, TooComplex, to_text, units
from artemis_routing_cli.jregex._javaregex_parser import Parser, SyntaxProblem, TranslationError

from ..records import record
from ._match_bound import quick_length
from ._match_budget import MATCH_DEADLINE, fast_timeout, match_budget, open_budget, remaining

if TYPE_CHECKING:
    import regex

    from artemis_routing_cli.jregex._javaregex_parser import Result

__all__ = ["JAVA_REGEX", "MATCH_DEADLINE", "JavaPattern", "JavaRegexError", "check_java", "compile_java",
           "match_budget", "open_budget", "portability_notes"]

#: Whose regex semantics the answers are, as --explain says it.
JAVA_REGEX = "java.util.regex as on Java 17"


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


_NOT_BMP = re.compile("[\ud800-\udfff\U00010000-\U0010ffff]")


def _bmp_text(text: str) -> bool:
    """Whether every char of ``text`` is one UTF-16 unit that is not a surrogate (the fast path's texts)."""
    return text.isascii() or _NOT_BMP.search(text) is None


#: find / matches remember their answers on texts of at most MEMO_KEY_CHARS characters, at most MEMO_SIZE
#: of them per pattern, all forgotten at once when full: a router evaluates its filters on every
#: connection's key, and clients come back with the same client id or user. The answer is a pure function
#: of the pattern and the text, so what is remembered changes no answer (an evaluation that runs out of
#: its time budget raises and is not remembered; the next one is bounded again).
MEMO_SIZE = 4096
MEMO_KEY_CHARS = 128
_UNKNOWN = object()


@record(frozen=True)
class JavaPattern:
    """A compiled Java pattern.

    ``source`` is the Java pattern as written; ``python`` the equivalent pattern for the ``regex``
    package (compiled with ``flags``).
    """

    source: str
    python: str
    flags: int = 0
    notes: tuple[str, ...] = ()
    #: the ``regex`` translation is not exact even on BMP texts: every text runs on ``program``
    engine_only: bool = False
    program: Program | None = field(default=None, repr=False, compare=False)
    #: the longest BMP text ``find`` (``matches``) evaluates with the ``regex`` translation without a time
    #: limit, under a budget or not: its work is bounded within _match_bound.QUICK_WORK (-1: none)
    quick_find: int = field(default=-1, repr=False, compare=False)
    quick_matches: int = field(default=-1, repr=False, compare=False)
    _compiled: regex.Pattern[str] | None = field(default=None, repr=False, compare=False)
    #: answers of find / matches on texts seen lately (see MEMO_SIZE)
    _found: dict[str, str | None] = field(default_factory=dict, init=False, repr=False, compare=False)
    _matched: dict[str, bool] = field(default_factory=dict, init=False, repr=False, compare=False)

    def _regex(self) -> regex.Pattern[str]:
        """The translation, compiled on first use (a pattern answered only by the matcher, or only on
        texts with surrogates, never pays for compiling its large Unicode classes)."""
        if self._compiled is not None:
            return self._compiled
        import regex

        try:
            compiled = regex.compile(self.python, self.flags)
        except (regex.error, RecursionError, OverflowError) as exc:  # pragma: no cover - a translator bug
            raise JavaRegexError(
                f"Java regex {self.source!r} could not be translated for Python: {exc}",
                construct="pattern", index=0, pattern=self.source,
            ) from None
        object.__setattr__(self, "_compiled", compiled)
        return compiled

    def prepare(self) -> JavaPattern:
        """Compile both matchers now (the ``regex`` translation and the UTF-16 program), so that the
        first key evaluated under a budget does not pay for compiling: serve calls it where a filter
        is set."""
        if not self.engine_only:
            self._regex()
        if self.program is not None:
            self.program.prepare()
        return self

    def fast(self, text: str) -> bool:
        """Whether the ``regex`` translation answers for ``text`` (else the UTF-16 matcher does)."""
        return not self.engine_only and _bmp_text(text)

    def _engine(self, run: str, text: str) -> tuple[int, int] | bool | None:
        assert self.program is not None
        try:
            if run == "find":
                return self.program.find(units(text))
            return self.program.matches(units(text))
        except JavaThrows as exc:
            raise JavaRegexError(f"Java regex {self.source!r} throws on {text!r} in java.util.regex ({exc})",
                                 construct="matcher", pattern=self.source) from None
        except TooComplex:
            raise JavaRegexError(
                f"Java regex {self.source!r} backtracks too much on a text of {len(text)} characters "
                "(arouter gives up where Java would keep going)",
                construct="backtracking", pattern=self.source, hint="simplify nested repetitions") from None

    def find(self, text: str) -> str | None:
        """``Matcher.find()`` from the start: group 0 of the first match, or None.

        Java's group 0 is ``text.substring(start, end)`` in UTF-16 units, so it can start or end
        inside a surrogate pair (the half is then a lone surrogate in the Python str).
        """
        found = self._found
        answer = found.get(text, _UNKNOWN)
        if answer is _UNKNOWN:
            answer = self._find(text)
            if len(text) <= MEMO_KEY_CHARS:
                if len(found) >= MEMO_SIZE:
                    found.clear()
                found[text] = answer
        return answer  # type: ignore[return-value]

    def _find(self, text: str) -> str | None:
        compiled = self._compiled
        if compiled is not None and len(text) <= self.quick_find and _bmp_text(text):
            m = compiled.search(text)  # bounded work: no timeout to set (_match_bound)
            return None if m is None else m.group(0)
        if self.fast(text):
            try:
                m = self._regex().search(text, timeout=fast_timeout())
            except TimeoutError:
                if not remaining():
                    raise
            else:
                return None if m is None else m.group(0)
        span = self._engine("find", text)
        if span is None:
            return None
        assert isinstance(span, tuple)
        start, end = span
        if end < start:
            raise JavaRegexError(f"Java regex {self.source!r} throws on {text!r} in java.util.regex "
                                 "(StringIndexOutOfBoundsException in group())", construct="matcher",
                                 pattern=self.source)
        return to_text(units(text)[start:end])

    def matches(self, text: str) -> bool:
        """``Matcher.matches()``: does the whole text match."""
        matched = self._matched
        answer = matched.get(text)
        if answer is None:
            answer = self._matches(text)
            if len(text) <= MEMO_KEY_CHARS:
                if len(matched) >= MEMO_SIZE:
                    matched.clear()
                matched[text] = answer
        return answer

    def _matches(self, text: str) -> bool:
        compiled = self._compiled
        if compiled is not None and len(text) <= self.quick_matches and _bmp_text(text):
            return compiled.fullmatch(text) is not None  # bounded work: no timeout to set (_match_bound)
        if self.fast(text):
            try:
                return self._regex().fullmatch(text, timeout=fast_timeout()) is not None
            except TimeoutError:
                if not remaining():
                    raise
        return bool(self._engine("matches", text))


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
    exact = not result.engine_only  # the regex translation answers BMP texts
    return JavaPattern(source=pattern, python=result.python, flags=flags, notes=tuple(result.notes),
                       engine_only=result.engine_only, program=result.program,
                       quick_find=quick_length(result.program, True) if exact else -1,
                       quick_matches=quick_length(result.program, False) if exact else -1)


def portability_notes(pattern: str) -> list[str]:
    """Plain-English notes on constructs of ``pattern`` whose meaning differs between Java and other
    engines (Python's re, JavaScript, other Java versions). Empty when nothing is notable.

    A pattern that does not compile gives no notes (:func:`compile_java` reports the error).
    """
    try:
        return list(check_java(pattern))
    except JavaRegexError:
        return []
